/* Scene decoding: the binary scene of /api/graph/scene (format:
 * retrieval/graph/layout/wire.go) into typed arrays and strings, and what
 * drawing and search derive from it once (adjacency, ranks, lower-case
 * titles). Part of the graph view (main.js). */

var LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// ---------------------------------------------------------------- decode

function pad4(n) { return (n + 3) & ~3; }

/** decode parses a scene (ArrayBuffer) into typed arrays and strings. */
export function decode(buf) {
  if (buf.byteLength < 40) throw new Error('graph: scene too short');
  var dv = new DataView(buf);
  if (dv.getUint32(0, false) !== 0x474e4f47) throw new Error('graph: not a gno graph scene');
  var h = [];
  for (var i = 0; i < 9; i++) h.push(dv.getUint32(4 + 4 * i, true));
  if (h[0] !== 1) throw new Error('graph: scene version ' + h[0]);
  var n = h[1], e = h[2], nc = h[3], nf = h[4], nt = h[5], ntr = h[6], nstr = h[7];
  var want = 40 + 4 * (6 * n + 1 + ntr + 2 * e) + pad4(2 * n) + pad4(n) + nstr;
  if (want !== buf.byteLength) throw new Error('graph: scene size ' + buf.byteLength + ', header says ' + want);
  var off = 40;
  function arr(Ctor, k, size) {
    var a;
    if (LE || size === 1) a = new Ctor(buf, off, k);
    else {
      a = new Ctor(k);
      for (var j = 0; j < k; j++) {
        var p = off + j * size;
        a[j] = size === 2 ? dv.getUint16(p, true) : Ctor === Float32Array ? dv.getFloat32(p, true) : dv.getUint32(p, true);
      }
    }
    off += k * size;
    return a;
  }
  var s = { n: n, e: e };
  s.pos = arr(Float32Array, 2 * n, 4);
  s.rank = arr(Float32Array, n, 4);
  s.degree = arr(Uint32Array, n, 4);
  s.folder = arr(Uint32Array, n, 4);
  s.tagStart = arr(Uint32Array, n + 1, 4);
  s.tagRefs = arr(Uint32Array, ntr, 4);
  s.edges = arr(Uint32Array, 2 * e, 4);
  s.col = arr(Uint16Array, n, 2);
  off = 40 + 4 * (6 * n + 1 + ntr + 2 * e) + pad4(2 * n);
  s.flags = new Uint8Array(buf, off, n);
  off += pad4(n);
  var count = 2 * n + nc + nf + nt;
  var strs = count ? new TextDecoder().decode(new Uint8Array(buf, off, nstr)).split('\n') : [];
  if (strs.length !== count) throw new Error('graph: ' + strs.length + ' strings, header says ' + count);
  s.title = strs.slice(0, n);
  s.id = strs.slice(n, 2 * n);
  s.collections = strs.slice(2 * n, 2 * n + nc);
  s.folders = strs.slice(2 * n + nc, 2 * n + nc + nf);
  s.tags = strs.slice(2 * n + nc + nf);
  for (i = 0; i < 2 * e; i++) if (s.edges[i] >= n) throw new Error('graph: edge out of range');
  for (i = 0; i < n; i++) if (s.col[i] >= nc || s.folder[i] >= nf) throw new Error('graph: node out of range');
  for (i = 0; i < ntr; i++) if (s.tagRefs[i] >= nt) throw new Error('graph: tag out of range');
  return s;
}

export var ORPHAN = 1, GHOST = 2;

// ---------------------------------------------------------------- prepare

/** prepare derives what drawing and search need: adjacency, radii,
 * ranks, lower-case titles. */
export function prepare(s) {
  var n = s.n, e = s.e, i;
  var deg = new Uint32Array(n + 1);
  for (i = 0; i < 2 * e; i++) deg[s.edges[i] + 1]++;
  for (i = 0; i < n; i++) deg[i + 1] += deg[i];
  var adj = new Uint32Array(2 * e), fill = deg.slice(0, n);
  for (i = 0; i < e; i++) {
    var a = s.edges[2 * i], b = s.edges[2 * i + 1];
    adj[fill[a]++] = b;
    adj[fill[b]++] = a;
  }
  s.adjStart = deg;
  s.adj = adj;
  var maxRank = 0, maxDeg = 0;
  for (i = 0; i < n; i++) {
    if (s.rank[i] > maxRank) maxRank = s.rank[i];
    if (s.degree[i] > maxDeg) maxDeg = s.degree[i];
  }
  s.maxRank = maxRank || 1;
  s.maxDeg = maxDeg || 1;
  s.lc = s.title.map(function (t) { return t.toLowerCase(); });
  var order = new Uint32Array(n);
  for (i = 0; i < n; i++) order[i] = i;
  s.byRank = Array.prototype.slice.call(order).sort(function (x, y) {
    return (s.rank[y] - s.rank[x]) || (s.degree[y] - s.degree[x]) || (x - y);
  });
  var tagCount = new Uint32Array(s.tags.length);
  for (i = 0; i < s.tagRefs.length; i++) tagCount[s.tagRefs[i]]++;
  s.tagCount = tagCount;
  return s;
}


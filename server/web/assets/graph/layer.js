/* Layers: what is drawn. The global layer is every node at the server's
 * positions; a local layer is a note's neighbourhood, laid out here. Each
 * gets its bounds, an edge order and a grid for hit tests. Part of the
 * graph view (main.js). */

// A layer is what is drawn: all nodes (global view) or a note's
// neighbourhood (local view). gid maps layer node to scene node.
export function globalLayer(s) {
  var n = s.n, x = new Float32Array(n), y = new Float32Array(n);
  for (var i = 0; i < n; i++) { x[i] = s.pos[2 * i]; y[i] = s.pos[2 * i + 1]; }
  return finishLayer({ n: n, gid: null, x: x, y: y, edges: s.edges, rankOrder: s.byRank });
}

// finishLayer adds bounds, a draw order of edges (shortest first, so a
// partial drawing shows structure, not the long hub spokes) and a grid
// for hit tests.
export function finishLayer(L) {
  var n = L.n, i;
  var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (i = 0; i < n; i++) {
    if (L.x[i] < minX) minX = L.x[i];
    if (L.x[i] > maxX) maxX = L.x[i];
    if (L.y[i] < minY) minY = L.y[i];
    if (L.y[i] > maxY) maxY = L.y[i];
  }
  if (!n) { minX = minY = -1; maxX = maxY = 1; }
  L.minX = minX; L.minY = minY; L.maxX = maxX; L.maxY = maxY;
  // Counting sort on a log scale of the length: O(m), close enough.
  var m = L.edges.length / 2, key = new Uint8Array(m), count = new Uint32Array(257);
  for (i = 0; i < m; i++) {
    var a = L.edges[2 * i], b = L.edges[2 * i + 1];
    var d = Math.abs(L.x[a] - L.x[b]) + Math.abs(L.y[a] - L.y[b]);
    key[i] = Math.max(0, Math.min(255, Math.round(Math.log2(d + 1e-3) * 16) + 128));
    count[key[i] + 1]++;
  }
  for (i = 0; i < 256; i++) count[i + 1] += count[i];
  var ord = new Uint32Array(m);
  for (i = 0; i < m; i++) ord[count[key[i]]++] = i;
  L.edgeOrder = ord;
  // Grid: about two nodes a cell.
  var w = Math.max(maxX - minX, 1e-3), h = Math.max(maxY - minY, 1e-3);
  var cell = Math.max(Math.sqrt(w * h / Math.max(n, 1) * 2), 0.5);
  var gw = Math.min(2048, Math.ceil(w / cell) + 1), gh = Math.min(2048, Math.ceil(h / cell) + 1);
  cell = Math.max(w / (gw - 1 || 1), h / (gh - 1 || 1), cell);
  var start = new Uint32Array(gw * gh + 1), items = new Uint32Array(n), cellOf = new Uint32Array(n);
  for (i = 0; i < n; i++) {
    var c = Math.floor((L.y[i] - minY) / cell) * gw + Math.floor((L.x[i] - minX) / cell);
    cellOf[i] = c;
    start[c + 1]++;
  }
  for (i = 0; i < gw * gh; i++) start[i + 1] += start[i];
  var f = start.slice(0, gw * gh);
  for (i = 0; i < n; i++) items[f[cellOf[i]]++] = i;
  L.grid = { cell: cell, w: gw, h: gh, start: start, items: items };
  L.unit = spacing(L);
  return L;
}

// spacing is the median distance from a node to its nearest neighbour
// (over a sample), the scale nodes are drawn at so they do not overlap
// where notes crowd (the leaves of a hub), whatever the layout's units.
function spacing(L) {
  var gr = L.grid, step = Math.max(1, Math.floor(L.n / 1500)), d = [];
  for (var i = 0; i < L.n; i += step) {
    var cx = Math.floor((L.x[i] - L.minX) / gr.cell), cy = Math.floor((L.y[i] - L.minY) / gr.cell), best = Infinity;
    for (var y = Math.max(0, cy - 1); y <= Math.min(gr.h - 1, cy + 1); y++) {
      for (var x = Math.max(0, cx - 1); x <= Math.min(gr.w - 1, cx + 1); x++) {
        var c = y * gr.w + x;
        for (var k = gr.start[c]; k < gr.start[c + 1]; k++) {
          var j = gr.items[k];
          if (j === i) continue;
          var dd = Math.hypot(L.x[j] - L.x[i], L.y[j] - L.y[i]);
          if (dd < best) best = dd;
        }
      }
    }
    if (best < Infinity) d.push(best);
  }
  d.sort(function (a, b) { return a - b; });
  return d.length ? Math.max(d[d.length >> 1], 1e-3) : 1;
}

// localLayer is the neighbourhood of scene node focus to depth (1-3)
// among the visible nodes (vis), at most 1,500 nodes, laid out here:
// started from the global positions (so the picture keeps its
// orientation) and relaxed by a small force simulation.
export function localLayer(s, vis, focus, depth) {
  var dist = new Map([[focus, 0]]), queue = [focus], cap = 1500;
  for (var qi = 0; qi < queue.length && queue.length < cap; qi++) {
    var u = queue[qi], du = dist.get(u);
    if (du >= depth) continue;
    for (var k = s.adjStart[u]; k < s.adjStart[u + 1] && queue.length < cap; k++) {
      var w = s.adj[k];
      if (!dist.has(w) && vis[w]) { dist.set(w, du + 1); queue.push(w); }
    }
  }
  var n = queue.length, gid = new Uint32Array(queue), idx = new Map();
  queue.forEach(function (g, j) { idx.set(g, j); });
  var edges = [];
  for (var j = 0; j < n; j++) {
    var g = gid[j];
    for (k = s.adjStart[g]; k < s.adjStart[g + 1]; k++) {
      var o = idx.get(s.adj[k]);
      if (o !== undefined && o > j) edges.push(j, o);
    }
  }
  var pos = relax(s, gid, new Uint32Array(edges));
  var rankOrder = [];
  for (j = 0; j < n; j++) rankOrder.push(j);
  rankOrder.sort(function (a, b) { return s.rank[gid[b]] - s.rank[gid[a]] || a - b; });
  return finishLayer({ n: n, gid: gid, x: pos.x, y: pos.y, edges: new Uint32Array(edges), index: idx, rankOrder: rankOrder });
}

// relax lays out a neighbourhood: spring-electrical forces, all pairs
// (a neighbourhood is small: at most 1,500 notes), 150 rounds with a
// cooling step; node 0 (the focus) stays at the origin.
function relax(s, gid, edges) {
  var n = gid.length, x = new Float32Array(n), y = new Float32Array(n), i, j;
  var fx0 = s.pos[2 * gid[0]], fy0 = s.pos[2 * gid[0] + 1], sc = 0;
  for (i = 1; i < n; i++) sc += Math.hypot(s.pos[2 * gid[i]] - fx0, s.pos[2 * gid[i] + 1] - fy0);
  sc = sc > 0 ? (n - 1) * 2.5 / sc : 1;
  for (i = 0; i < n; i++) {
    x[i] = (s.pos[2 * gid[i]] - fx0) * sc + ((i * 7919) % 13 - 6) * 0.01;
    y[i] = (s.pos[2 * gid[i] + 1] - fy0) * sc + ((i * 104729) % 11 - 5) * 0.01;
  }
  var dx = new Float32Array(n), dy = new Float32Array(n), rounds = n > 600 ? 60 : 150, step = 1;
  for (var r = 0; r < rounds; r++) {
    dx.fill(0); dy.fill(0);
    for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) {
      var ex = x[i] - x[j], ey = y[i] - y[j], d2 = ex * ex + ey * ey + 1e-4, f = 0.6 / d2;
      dx[i] += ex * f; dy[i] += ey * f; dx[j] -= ex * f; dy[j] -= ey * f;
    }
    for (var e = 0; e < edges.length; e += 2) {
      var a = edges[e], b = edges[e + 1], gx = x[b] - x[a], gy = y[b] - y[a], d = Math.sqrt(gx * gx + gy * gy) + 1e-6;
      var f2 = (d - 1.6) / d * 0.5;
      dx[a] += gx * f2; dy[a] += gy * f2; dx[b] -= gx * f2; dy[b] -= gy * f2;
    }
    for (i = 1; i < n; i++) {
      var m = Math.hypot(dx[i], dy[i]);
      if (m > step) { dx[i] *= step / m; dy[i] *= step / m; }
      x[i] += dx[i]; y[i] += dy[i];
    }
    step *= 0.97;
  }
  return { x: x, y: y };
}

/* gno graph view. Draws a laid-out link graph on a canvas: the binary
 * scene of /api/graph/scene (format: retrieval/graph/layout/wire.go).
 * The server lays the graph out; this file draws and interacts.
 *
 * Embed: <div class="gno-graph" data-src="/api/graph/scene"
 *   data-open="/doc?ref=" [data-focus="ID" data-depth="1..3"]
 *   [data-controls="none"]></div>, /assets/graph.css and
 * <script src="/assets/graph.js" defer>. Every such element is mounted on
 * load; GnoGraph.mount(el, {src, open, controls, onOpen(i, id)}) mounts
 * one by hand. data-focus opens the local graph of that document ID.
 *
 * Instance (GnoGraph.instances[k]): ready (a promise), scene (decoded:
 * n, e, pos, rank, degree, flags, title, id, ...), stats (ms since
 * navigation: firstFrameMs, completeMs; fetchMs, decodeMs, bytes),
 * search(q, limit) → node indexes, select(i), flyTo(i), open(i),
 * setFilter({text, collection, tag, mode, ghosts, orphans}),
 * setLocal(i | null, depth), fit(), panBy(dx, dy), zoomAt(f, x, y),
 * screenOf(i), record() → stop() → frame statistics, idle().
 * GnoGraph.decode(arrayBuffer) parses a scene alone.
 *
 * Speed: frames draw a cached bitmap of the graph (edges and nodes,
 * redrawn in slices of a few ms, shortest edges first, culled to the
 * view, each slice rasterised at once) plus an overlay (labels,
 * highlight), so pan and zoom cost about the same on 200 notes and on
 * 20,000. No inline script or style, no eval, no request but the scene. */
(function () {
  'use strict';

  var LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

  // ---------------------------------------------------------------- decode

  function pad4(n) { return (n + 3) & ~3; }

  /** decode parses a scene (ArrayBuffer) into typed arrays and strings. */
  function decode(buf) {
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

  var ORPHAN = 1, GHOST = 2;

  // ---------------------------------------------------------------- prepare

  /** prepare derives what drawing and search need: adjacency, radii,
   * ranks, lower-case titles. */
  function prepare(s) {
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

  // A layer is what is drawn: all nodes (global view) or a note's
  // neighbourhood (local view). gid maps layer node to scene node.
  function globalLayer(s) {
    var n = s.n, x = new Float32Array(n), y = new Float32Array(n);
    for (var i = 0; i < n; i++) { x[i] = s.pos[2 * i]; y[i] = s.pos[2 * i + 1]; }
    return finishLayer({ n: n, gid: null, x: x, y: y, edges: s.edges, rankOrder: s.byRank });
  }

  // finishLayer adds bounds, a draw order of edges (shortest first, so a
  // partial drawing shows structure, not the long hub spokes) and a grid
  // for hit tests.
  function finishLayer(L) {
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

  // ---------------------------------------------------------------- colour

  // Paul Tol's "vibrant" scheme (distinct for the common colour-vision
  // deficiencies), and lighter versions of it for dark backgrounds.
  var PAL_LIGHT = ['#0077BB', '#EE7733', '#009988', '#CC3311', '#33BBEE', '#EE3377', '#997700', '#7744AA'];
  var PAL_DARK = ['#55AAEE', '#FFA366', '#33CCBB', '#FF6F5E', '#88DDFF', '#FF77AA', '#DDBB44', '#B59AEE'];

  function cssVar(el, name, fallback) {
    var v = getComputedStyle(el).getPropertyValue(name).trim();
    return v || fallback;
  }

  function luminance(c) {
    var m = /^#([0-9a-f]{6})$/i.exec(c);
    var r, g, b;
    if (m) {
      var x = parseInt(m[1], 16);
      r = x >> 16; g = (x >> 8) & 255; b = x & 255;
    } else {
      m = /rgba?\((\d+)[, ]+(\d+)[, ]+(\d+)/.exec(c);
      if (!m) return 1;
      r = +m[1]; g = +m[2]; b = +m[3];
    }
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  }

  // ---------------------------------------------------------------- DOM

  function h(tag, attrs, kids) {
    var el = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === 'text') el.textContent = attrs[k];
      else if (k === 'hidden') el.hidden = attrs[k];
      else el.setAttribute(k, attrs[k]);
    }
    if (kids) kids.forEach(function (c) { if (c) el.appendChild(c); });
    return el;
  }
  function opt(value, label) { return h('option', { value: value, text: label }); }

  var uid = 0;

  // ---------------------------------------------------------------- Graph

  function Graph(root, opts) {
    this.root = root;
    this.opts = opts || {};
    this.src = this.opts.src || root.getAttribute('data-src');
    this.openPrefix = this.opts.open || root.getAttribute('data-open') || '/doc?ref=';
    this.controls = (this.opts.controls || root.getAttribute('data-controls') || 'full') !== 'none';
    this.stats = { start: performance.now() };
    this.view = { x: 0, y: 0, k: 1 };
    this.hover = -1;
    this.selected = -1;
    this.local = null; // {focus, depth}
    this.filter = { text: '', collection: '', tag: '', mode: 'dim', ghosts: true, orphans: true };
    this.colorBy = 'collection';
    this.sizeBy = 'rank';
    this.styleVersion = 0;
    this.base = null;
    this.job = null;
    this.raf = 0;
    this.frameLog = null;
    this.lastInput = 0;
    this.pointers = new Map();
    this.build();
    var self = this;
    this.ready = this.load().catch(function (err) {
      self.status('The graph could not be loaded: ' + err.message, true);
      throw err;
    });
  }

  var G = Graph.prototype;

  G.build = function () {
    var id = 'gg' + (++uid), self = this;
    this.canvas = h('canvas', { tabindex: '0', role: 'application', 'aria-roledescription': 'graph',
      'aria-label': 'Link graph', 'aria-describedby': id + '-help' });
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.tip = h('div', { 'class': 'gg-tip', hidden: true, 'aria-hidden': 'true' });
    this.card = h('div', { 'class': 'gg-card', hidden: true });
    this.live = h('p', { 'class': 'gg-status', role: 'status', 'aria-live': 'polite' });
    var help = h('p', { 'class': 'vh', id: id + '-help',
      text: 'Arrow keys pan, plus and minus zoom, 0 fits the graph, Enter opens the selected note, slash finds a note.' });
    this.stage = h('div', { 'class': 'gg-stage' }, [this.canvas, this.tip, this.card, this.live, help]);
    var kids = [];
    if (this.controls) {
      this.find = h('input', { type: 'search', placeholder: 'Find a note…', 'aria-label': 'Find a note in the graph',
        role: 'combobox', 'aria-autocomplete': 'list', 'aria-expanded': 'false', 'aria-controls': id + '-list', autocomplete: 'off' });
      this.list = h('ul', { 'class': 'gg-list', role: 'listbox', id: id + '-list', hidden: true });
      this.text = h('input', { type: 'search', placeholder: 'Filter…', 'aria-label': 'Filter notes by title or folder' });
      this.colSel = h('select', { 'aria-label': 'Collection' }, [opt('', 'All collections')]);
      this.tagSel = h('select', { 'aria-label': 'Tag' }, [opt('', 'All tags')]);
      this.modeSel = h('select', { 'aria-label': 'Notes not matching the filter' }, [opt('dim', 'Dim others'), opt('hide', 'Hide others')]);
      this.colorSel = h('select', { 'aria-label': 'Colour by' }, [opt('collection', 'Colour: collection'), opt('folder', 'Colour: folder')]);
      this.sizeSel = h('select', { 'aria-label': 'Size by' }, [opt('rank', 'Size: PageRank'), opt('degree', 'Size: links')]);
      this.ghostBox = h('input', { type: 'checkbox', checked: '' });
      this.orphanBox = h('input', { type: 'checkbox', checked: '' });
      this.localBox = h('input', { type: 'checkbox' });
      this.depthSel = h('select', { 'aria-label': 'Local graph depth' }, [opt('1', 'Depth 1'), opt('2', 'Depth 2'), opt('3', 'Depth 3')]);
      this.fitBtn = h('button', { type: 'button', 'class': 'gg-fit', text: 'Fit' });
      var more = h('details', { 'class': 'gg-more' }, [h('summary', { text: 'Filters' }), h('div', { 'class': 'gg-opts' }, [
        this.text, this.colSel, this.tagSel, this.modeSel, this.colorSel, this.sizeSel,
        h('label', null, [this.ghostBox, document.createTextNode(' Unresolved')]),
        h('label', null, [this.orphanBox, document.createTextNode(' Orphans')])])]);
      var bar = h('div', { 'class': 'gg-bar', role: 'toolbar', 'aria-label': 'Graph' }, [
        h('div', { 'class': 'gg-find' }, [this.find, this.list]),
        h('label', { 'class': 'gg-local' }, [this.localBox, document.createTextNode(' Local')]), this.depthSel,
        this.fitBtn, more]);
      kids.push(bar);
    }
    kids.push(this.stage);
    this.legend = h('ul', { 'class': 'gg-legend', 'aria-label': 'Colours' });
    kids.push(this.legend);
    kids.forEach(function (k) { self.root.appendChild(k); });
    this.root.classList.add('gg');
    this.status('Loading the graph…');
  };

  G.status = function (msg, bad) {
    this.live.textContent = msg;
    this.live.classList.toggle('bad', !!bad);
    this.live.hidden = !msg;
  };

  G.load = function () {
    var self = this, t0 = performance.now();
    if (!this.src) return Promise.reject(new Error('no data-src'));
    return fetch(this.src, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) {
        var msg = r.status + ' ' + r.statusText;
        try { msg = JSON.parse(t).error.message || msg; } catch (e) { /* not JSON */ }
        throw new Error(msg);
      });
      return r.arrayBuffer();
    }).then(function (buf) {
      var t1 = performance.now();
      var s = prepare(decode(buf));
      var t2 = performance.now();
      self.stats.fetchMs = t1 - t0;
      self.stats.decodeMs = t2 - t1;
      self.stats.bytes = buf.byteLength;
      self.scene = s;
      self.width = new Float32Array(s.n).fill(-1);
      self.vis = new Uint8Array(s.n).fill(2);
      self.layer = globalLayer(s);
      self.stats.layerMs = performance.now() - t2;
      if (s.collections.length < 2) self.colorBy = 'folder';
      self.fillControls();
      self.restyle();
      self.attach();
      self.resize();
      var focus = self.root.getAttribute('data-focus');
      var fi = focus ? s.id.indexOf(focus) : -1;
      if (fi >= 0) self.setLocal(fi, +(self.root.getAttribute('data-depth') || 1));
      else self.fit();
      self.status('');
      self.canvas.setAttribute('aria-label', 'Link graph: ' + s.n + ' notes and ' + s.e + ' links. Use Find to reach a note.');
      self.frame(performance.now()); // the first frame, synchronously
      self.stats.firstFrameMs = performance.now();
      return self;
    });
  };

  G.fillControls = function () {
    var s = this.scene, self = this;
    if (!this.controls) return;
    s.collections.forEach(function (c, i) { if (c) self.colSel.appendChild(opt(String(i), c)); });
    this.colSel.hidden = s.collections.length < 2;
    var tags = [];
    for (var i = 0; i < s.tags.length; i++) tags.push(i);
    tags.sort(function (a, b) { return s.tagCount[b] - s.tagCount[a] || (s.tags[a] < s.tags[b] ? -1 : 1); });
    tags.slice(0, 300).forEach(function (t) { self.tagSel.appendChild(opt(String(t), '#' + s.tags[t] + ' (' + s.tagCount[t] + ')')); });
    this.tagSel.hidden = !s.tags.length;
    this.colorSel.value = this.colorBy;
  };

  // ---------------------------------------------------------------- style

  // restyle recomputes colours, radii and visibility, and redraws.
  G.restyle = function () {
    var s = this.scene, n = s.n, i;
    var bg = cssVar(this.root, '--bg', '#ffffff');
    this.dark = luminance(bg) < 0.5;
    this.colors = {
      bg: bg, fg: cssVar(this.root, '--fg', '#1d2127'), muted: cssVar(this.root, '--muted', '#5d6673'),
      accent: cssVar(this.root, '--accent', '#2456c7'), edge: this.dark ? '#8a96a6' : '#5d6673'
    };
    var pal = this.dark ? PAL_DARK : PAL_LIGHT;
    // Colour groups: collection, or collection and top folder.
    var keyOf = [], groups = new Map(), key;
    for (i = 0; i < n; i++) {
      key = s.collections[s.col[i]];
      if (this.colorBy === 'folder') key += '/' + s.folders[s.folder[i]].split('/')[0];
      var g = groups.get(key);
      if (!g) { g = { key: key, count: 0, color: -1 }; groups.set(key, g); }
      g.count++;
      keyOf.push(g);
    }
    var list = Array.from(groups.values()).sort(function (a, b) { return b.count - a.count || (a.key < b.key ? -1 : 1); });
    list.forEach(function (g, j) { g.color = j < pal.length ? j : pal.length; });
    this.palette = pal.concat([this.dark ? '#7d8794' : '#9aa3ad']);
    this.color = new Uint8Array(n);
    for (i = 0; i < n; i++) this.color[i] = keyOf[i].color;
    this.groups = list;
    this.sizes();
    this.refilter();
    this.drawLegend();
  };

  // sizes sets each node's radius in world units, from the layer's node
  // spacing, and a floor in pixels so hubs stand out when zoomed out.
  G.sizes = function () {
    var s = this.scene, n = s.n, u = this.layer.unit;
    this.radius = this.radius || new Float32Array(n);
    this.minPx = this.minPx || new Float32Array(n);
    for (var i = 0; i < n; i++) {
      var m = this.sizeBy === 'rank' ? s.rank[i] / s.maxRank : s.degree[i] / s.maxDeg;
      this.radius[i] = u * (s.flags[i] & GHOST ? 0.22 : 0.25 + 0.6 * Math.sqrt(m));
      this.minPx[i] = s.flags[i] & GHOST ? 1.6 : 1.2 + 5 * m;
    }
  };

  // px is node g's radius on screen at zoom k: its world radius, at
  // least its floor, at most 22 px (a zoomed-in hub would hide its
  // neighbours).
  G.px = function (g, k) {
    return Math.max(Math.min(this.radius[g] * k, 22), this.minPx[g]);
  };

  G.refilter = function () {
    var s = this.scene, f = this.filter, n = s.n, i;
    var text = f.text.trim().toLowerCase();
    var col = f.collection === '' ? -1 : +f.collection, tag = f.tag === '' ? -1 : +f.tag;
    var active = text || col >= 0 || tag >= 0;
    var matches = 0;
    for (i = 0; i < n; i++) {
      var fl = s.flags[i];
      if ((fl & GHOST && !f.ghosts) || (fl & ORPHAN && !f.orphans)) { this.vis[i] = 0; continue; }
      var ok = true;
      if (active) {
        if (col >= 0 && s.col[i] !== col) ok = false;
        if (ok && tag >= 0) {
          ok = false;
          for (var k = s.tagStart[i]; k < s.tagStart[i + 1]; k++) if (s.tagRefs[k] === tag) { ok = true; break; }
        }
        if (ok && text) ok = s.lc[i].indexOf(text) >= 0 || s.folders[s.folder[i]].toLowerCase().indexOf(text) >= 0;
      }
      if (ok) matches++;
      this.vis[i] = ok ? 2 : f.mode === 'hide' ? 0 : 1;
    }
    this.matches = active ? matches : -1;
    if (active) this.status(matches + ' of ' + n + ' notes match');
    else if (this.scene) this.status('');
    this.invalidate();
  };

  G.drawLegend = function () {
    var self = this;
    this.legend.textContent = '';
    function item(color, label) {
      var sw = h('span', { 'class': 'gg-sw' });
      sw.style.background = color; // CSSOM, allowed by the CSP
      self.legend.appendChild(h('li', null, [sw, document.createTextNode(' ' + label)]));
    }
    var pal = this.palette;
    this.groups.slice(0, pal.length - 1).forEach(function (g) { item(pal[g.color], (g.key || '(root)') + ' · ' + g.count); });
    if (this.groups.length >= pal.length) item(pal[pal.length - 1], 'other');
    this.legend.appendChild(h('li', null, [h('span', { 'class': 'gg-sw gg-ghost' }), document.createTextNode(' unresolved link')]));
  };

  G.invalidate = function () {
    this.styleVersion++;
    this.request();
  };

  // ---------------------------------------------------------------- view

  G.resize = function () {
    var r = this.stage.getBoundingClientRect();
    var dpr = window.devicePixelRatio || 1;
    var w = Math.max(1, Math.round(r.width)), hh = Math.max(1, Math.round(r.height));
    if (w === this.w && hh === this.h && dpr === this.dpr) return;
    this.w = w; this.h = hh; this.dpr = dpr;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(hh * dpr);
    this.canvas.style.width = w + 'px';
    this.canvas.style.height = hh + 'px';
    this.base = null;
    this.job = null;
    this.request();
  };

  G.fitK = function () {
    var L = this.layer, pad = 24;
    var k = Math.min((this.w - 2 * pad) / Math.max(L.maxX - L.minX, 1), (this.h - 2 * pad) / Math.max(L.maxY - L.minY, 1));
    return Math.min(Math.max(k, 0.02), 60);
  };

  G.fit = function (animate) {
    var L = this.layer;
    var to = { x: (L.minX + L.maxX) / 2, y: (L.minY + L.maxY) / 2, k: this.fitK() };
    if (animate) this.animateTo(to);
    else { this.view = to; this.request(); }
  };

  G.toScreen = function (wx, wy) {
    var v = this.view;
    return [(wx - v.x) * v.k + this.w / 2, (wy - v.y) * v.k + this.h / 2];
  };

  G.toWorld = function (sx, sy) {
    var v = this.view;
    return [(sx - this.w / 2) / v.k + v.x, (sy - this.h / 2) / v.k + v.y];
  };

  G.panBy = function (dx, dy) {
    this.view = { x: this.view.x - dx / this.view.k, y: this.view.y - dy / this.view.k, k: this.view.k };
    this.anim = null;
    this.touched();
  };

  G.zoomAt = function (f, sx, sy) {
    var w = this.toWorld(sx, sy), k = Math.min(Math.max(this.view.k * f, 0.02), 200);
    this.view = { x: w[0] - (sx - this.w / 2) / k, y: w[1] - (sy - this.h / 2) / k, k: k };
    this.anim = null;
    this.touched();
  };

  G.touched = function () {
    this.lastInput = performance.now();
    this.request();
  };

  G.animateTo = function (to, ms) {
    this.anim = { from: this.view, to: to, t0: performance.now(), ms: ms || 450 };
    this.request();
  };

  // flyTo centres node i (a scene node) at a readable zoom.
  G.flyTo = function (i) {
    var li = this.layerIndex(i);
    if (li < 0) { this.setLocal(null); li = i; }
    // Zoom so that most of its neighbours are in view.
    var L = this.layer, nb = this.layerNeighbours(li), d = [];
    nb.forEach(function (j) { d.push(Math.hypot(L.x[j] - L.x[li], L.y[j] - L.y[li])); });
    d.sort(function (a, b) { return a - b; });
    var reach = d.length ? d[Math.floor(d.length * 0.8)] : 2;
    var k = Math.min(Math.max(Math.min(this.w, this.h) / (2.4 * Math.max(reach, 0.5)), this.fitK() * 1.5), 60);
    this.animateTo({ x: L.x[li], y: L.y[li], k: k });
  };

  G.layerIndex = function (i) {
    var L = this.layer;
    if (!L.gid) return i;
    var j = L.index.get(i);
    return j === undefined ? -1 : j;
  };

  // ---------------------------------------------------------------- frames

  G.request = function () {
    if (!this.raf && this.scene) {
      var self = this;
      this.raf = requestAnimationFrame(function (t) { self.raf = 0; self.frame(t); });
    }
  };

  G.frame = function () {
    if (!this.scene) return;
    var t0 = performance.now();
    if (this.anim) {
      var a = this.anim, p = Math.min(1, (t0 - a.t0) / a.ms), e = p < 0.5 ? 2 * p * p : 1 - Math.pow(-2 * p + 2, 2) / 2;
      var k = a.from.k * Math.pow(a.to.k / a.from.k, e);
      this.view = { x: a.from.x + (a.to.x - a.from.x) * e, y: a.from.y + (a.to.y - a.from.y) * e, k: k };
      if (p >= 1) this.anim = null;
      this.lastInput = t0;
    }
    var v = this.view, base = this.base;
    var fresh = base && base.style === this.styleVersion && base.layer === this.layer &&
      base.view.x === v.x && base.view.y === v.y && base.view.k === v.k;
    if (!fresh && (!this.job || this.job.style !== this.styleVersion || this.job.layer !== this.layer)) {
      this.job = this.startJob();
    }
    if (this.job) {
      // A slice per frame: small while the user moves the view, larger
      // when idle and for the first frame.
      var budget = !base ? 120 : t0 - this.lastInput < 250 ? 8 : 40;
      if (this.runJob(this.job, budget)) {
        if (!this.stats.completeMs) this.stats.completeMs = performance.now();
        this.base = this.job.done;
        this.job = null;
        base = this.base;
        fresh = base.view.x === v.x && base.view.y === v.y && base.view.k === v.k;
        if (!fresh) this.job = this.startJob();
      }
    }
    var tJob = performance.now();
    var c = this.ctx, dpr = this.dpr;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.globalAlpha = 1;
    c.fillStyle = this.colors.bg;
    c.fillRect(0, 0, this.canvas.width, this.canvas.height);
    if (!base && this.job) base = { canvas: this.job.canvas, view: this.job.view }; // first drawing, in progress
    if (base) {
      // The cached bitmap, moved and scaled from its view to this one.
      var s = v.k / base.view.k;
      var bx = (base.view.x - v.x) * v.k + this.w / 2 - s * this.w / 2;
      var by = (base.view.y - v.y) * v.k + this.h / 2 - s * this.h / 2;
      c.imageSmoothingEnabled = s !== 1;
      c.setTransform(s, 0, 0, s, bx * dpr, by * dpr);
      c.drawImage(base.canvas, 0, 0);
      c.setTransform(1, 0, 0, 1, 0, 0);
    }
    var tBlit = performance.now();
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.overlay(c);
    var t1 = performance.now();
    if (this.frameLog) this.frameLog.push([t1 - t0, tJob - t0, tBlit - tJob, t1 - tBlit]);
    if (this.anim || this.job) this.request();
  };

  // startJob begins drawing the graph for the current view into a spare
  // canvas (the bitmap frames reuse).
  G.startJob = function () {
    // Two bitmaps: the one frames show and the one being drawn.
    if (!this.bitmaps) this.bitmaps = [document.createElement('canvas'), document.createElement('canvas')];
    var cv = this.bitmaps[this.base && this.base.canvas === this.bitmaps[0] ? 1 : 0];
    if (cv.width !== this.canvas.width || cv.height !== this.canvas.height) {
      cv.width = this.canvas.width;
      cv.height = this.canvas.height;
    }
    var c = cv.getContext('2d', { alpha: false, willReadFrequently: true });
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.globalAlpha = 1; // an abandoned job may have left it lower
    c.fillStyle = this.colors.bg;
    c.fillRect(0, 0, cv.width, cv.height);
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    var L = this.layer, v = { x: this.view.x, y: this.view.y, k: this.view.k };
    var n = L.n, sx = new Float32Array(n), sy = new Float32Array(n), w2 = this.w / 2, h2 = this.h / 2;
    for (var i = 0; i < n; i++) {
      sx[i] = (L.x[i] - v.x) * v.k + w2;
      sy[i] = (L.y[i] - v.y) * v.k + h2;
    }
    // Phases: 0 dimmed edges, 1 edges, 2 dimmed nodes, 3 nodes. The
    // first drawing starts with the nodes, so frames can show it while
    // the edges come.
    var phases = this.base ? [0, 1, 2, 3] : [2, 3, 0, 1, 2, 3];
    return { canvas: cv, ctx: c, view: v, style: this.styleVersion, layer: L, sx: sx, sy: sy,
      phases: phases, pi: 0, phase: phases[0], cursor: 0, drawn: 0, done: null };
  };

  // runJob draws the next slice of job within budget ms; true when done.
  G.runJob = function (job, budget) {
    var t0 = performance.now(), L = job.layer, c = job.ctx, s = this.scene;
    var sx = job.sx, sy = job.sy, W = this.w, H = this.h, vis = this.vis, gid = L.gid;
    var ord = L.edgeOrder, E = L.edges, m = ord.length, k = job.view.k;
    var dark = this.dark;
    while (job.pi < job.phases.length) {
      job.phase = job.phases[job.pi];
      if (job.phase < 2) {
        var dimPass = job.phase === 0;
        var visible = this.visibleEdges || m;
        var alpha = Math.min(0.55, Math.max(dark ? 0.16 : 0.12, 0.55 * Math.sqrt(2000 / Math.max(2000, visible))));
        c.strokeStyle = this.colors.edge;
        c.globalAlpha = dimPass ? alpha * 0.35 : alpha;
        // One device pixel: browsers draw such hairlines on a fast path
        // (wider strokes cost several times more on a CPU canvas).
        c.lineWidth = 1 / this.dpr;
        while (job.cursor < m) {
          // As many edges as should fit the time left (rate: ms an edge,
          // measured on the previous slices).
          var left = budget - (performance.now() - t0), rate = this.edgeRate || 0.01;
          var t1 = performance.now(), from = job.cursor, drawn = 0;
          var end = Math.min(m, from + Math.max(300, Math.min(8000, Math.floor(left / rate))));
          c.beginPath();
          for (var j = job.cursor; j < end; j++) {
            var ei = ord[j], a = E[2 * ei], b = E[2 * ei + 1];
            var ga = gid ? gid[a] : a, gb = gid ? gid[b] : b;
            var va = vis[ga], vb = vis[gb];
            if (!va || !vb) continue;
            if ((va === 1 || vb === 1) !== dimPass) continue;
            var xa = sx[a], ya = sy[a], xb = sx[b], yb = sy[b];
            if ((xa < 0 && xb < 0) || (xa > W && xb > W) || (ya < 0 && yb < 0) || (ya > H && yb > H)) continue;
            c.moveTo(xa, ya);
            c.lineTo(xb, yb);
            drawn++;
          }
          c.stroke();
          job.drawn += drawn;
          job.cursor = end;
          if (drawn) {
            flush(c);
            this.edgeRate = 0.7 * rate + 0.3 * Math.max(0.0002, (performance.now() - t1) / (end - from));
          }
          if (performance.now() - t0 > budget) return false;
        }
        job.pi++;
        job.cursor = 0;
        if (job.phase === 1) this.visibleEdges = job.drawn;
        continue;
      }
      // Nodes, by colour, rectangles when small (much cheaper).
      var dimNodes = job.phase === 2, n = L.n, pal = this.palette;
      c.globalAlpha = dimNodes ? 0.25 : 1;
      if (!job.buckets) {
        job.buckets = [];
        for (var q = 0; q <= pal.length; q++) job.buckets.push([]);
        for (var i = 0; i < n; i++) {
          var g = gid ? gid[i] : i;
          if (!vis[g]) continue;
          var r0 = this.px(g, k);
          if (sx[i] < -r0 || sx[i] > W + r0 || sy[i] < -r0 || sy[i] > H + r0) continue;
          job.buckets[s.flags[g] & GHOST ? pal.length : this.color[g]].push(i);
        }
      }
      // Slices of up to 4,000 nodes, bucket by bucket (job.cursor counts
      // nodes over the buckets in order).
      for (var bi = 0, seen = 0; bi <= pal.length; bi++) {
        var list = job.buckets[bi], ghost = bi === pal.length;
        if (job.cursor >= seen + list.length) { seen += list.length; continue; }
        while (job.cursor < seen + list.length) {
          var from = job.cursor - seen, to = Math.min(list.length, from + 4000);
          c.beginPath();
          for (var li = from; li < to; li++) {
            var x = list[li], gx = gid ? gid[x] : x;
            if ((vis[gx] === 1) !== dimNodes) continue;
            var r = this.px(gx, k);
            if (r < 2 && !ghost) c.rect(sx[x] - r, sy[x] - r, 2 * r, 2 * r);
            else { c.moveTo(sx[x] + r, sy[x]); c.arc(sx[x], sy[x], r, 0, 6.283185307); }
          }
          if (ghost) {
            c.fillStyle = this.colors.bg;
            c.fill();
            c.strokeStyle = this.colors.muted;
            c.lineWidth = 1;
            c.stroke();
          } else {
            c.fillStyle = pal[bi];
            c.fill();
          }
          flush(c);
          job.cursor = seen + to;
          if (performance.now() - t0 > budget) return false;
        }
        seen += list.length;
      }
      job.cursor = 0;
      job.pi++;
    }
    c.globalAlpha = 1;
    job.done = { canvas: job.canvas, view: job.view, style: job.style, layer: job.layer };
    return true;
  };

  // flush makes the canvas draw what it has recorded now: browsers defer
  // the rasterisation of a canvas until it is used, which would move the
  // whole cost of a time-sliced drawing into the frame that shows it.
  function flush(c) { c.getImageData(0, 0, 1, 1); }

  // overlay draws what changes every frame: the highlight of the hovered
  // or selected note and its neighbours, and the labels.
  G.overlay = function (c) {
    var s = this.scene, L = this.layer, v = this.view, w2 = this.w / 2, h2 = this.h / 2, self = this;
    var focus = this.hover >= 0 ? this.hover : this.selected;
    var lf = focus >= 0 ? this.layerIndex(focus) : -1;
    var labelled = [];
    function sxy(li) { return [(L.x[li] - v.x) * v.k + w2, (L.y[li] - v.y) * v.k + h2]; }
    if (lf >= 0) {
      c.globalAlpha = 0.6;
      c.fillStyle = this.colors.bg;
      c.fillRect(0, 0, this.w, this.h);
      c.globalAlpha = 1;
      var p = sxy(lf), nb = this.layerNeighbours(lf);
      c.strokeStyle = this.colors.accent;
      // A hub's hundreds of links would paint the screen: thinner, fainter.
      c.lineWidth = nb.length > 100 ? 1 : 1.5;
      c.globalAlpha = Math.min(1, Math.max(0.15, 6 / Math.sqrt(nb.length + 1)));
      c.beginPath();
      nb.forEach(function (j) { var q = sxy(j); c.moveTo(p[0], p[1]); c.lineTo(q[0], q[1]); });
      c.stroke();
      c.globalAlpha = 1;
      nb.forEach(function (j) { self.dot(c, j, sxy(j)); });
      this.dot(c, lf, p, true);
      labelled = [lf];
      var more = nb.length <= 80 ? nb : [];
    } else if (this.local) {
      labelled = [this.layerIndex(this.local.focus)];
    }
    this.labels(c, labelled, more || []);
  };

  G.layerNeighbours = function (li) {
    var s = this.scene, L = this.layer, out = [];
    if (!L.gid) {
      for (var k = s.adjStart[li]; k < s.adjStart[li + 1]; k++) if (this.vis[s.adj[k]]) out.push(s.adj[k]);
      return out;
    }
    for (var j = 0; j < L.edges.length; j += 2) {
      if (L.edges[j] === li) out.push(L.edges[j + 1]);
      else if (L.edges[j + 1] === li) out.push(L.edges[j]);
    }
    return out;
  };

  G.dot = function (c, li, p, ring) {
    var L = this.layer, g = L.gid ? L.gid[li] : li, s = this.scene;
    var r = Math.max(this.px(g, this.view.k), 2.5);
    c.beginPath();
    c.arc(p[0], p[1], r, 0, 6.283185307);
    if (s.flags[g] & GHOST) {
      c.fillStyle = this.colors.bg; c.fill();
      c.strokeStyle = this.colors.muted; c.lineWidth = 1.2; c.stroke();
    } else {
      c.fillStyle = this.palette[this.color[g]]; c.fill();
    }
    if (ring) {
      c.beginPath();
      c.arc(p[0], p[1], r + 3, 0, 6.283185307);
      c.strokeStyle = this.colors.accent; c.lineWidth = 2; c.stroke();
    }
  };

  // labels: the given nodes first, then the highest ranked visible ones
  // whose label fits (no overlap), more as the user zooms in.
  G.labels = function (c, first, next) {
    var s = this.scene, L = this.layer, v = this.view, W = this.w, H = this.h;
    c.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    c.textBaseline = 'middle';
    c.lineJoin = 'round';
    var cell = 8, gw = Math.ceil(W / cell) + 1, gh = Math.ceil(H / cell) + 1, occ = new Uint8Array(gw * gh);
    // Fewer labels while the view moves and when zoomed out.
    var per = performance.now() - this.lastInput < 250 ? 40000 : v.k < 2 * this.fitK() ? 28000 : 9000;
    // With a note highlighted, its labels matter: few others.
    var max = Math.round(W * H / per / (first.length && !L.gid ? 3 : 1)), count = 0, self = this;
    var minR = L.gid ? 0 : 3; // screen radius a note needs to earn a label
    // mode 2: always; 1: when it fits; 0: when it fits and the note is
    // large enough on screen.
    function tryLabel(li, mode) {
      var force = mode === 2;
      var g = L.gid ? L.gid[li] : li;
      if (!self.vis[g]) return;
      var r = self.px(g, v.k);
      if (!mode && r < minR && v.k < 22) return;
      var x = (L.x[li] - v.x) * v.k + W / 2, y = (L.y[li] - v.y) * v.k + H / 2;
      if (x < -50 || x > W + 50 || y < 0 || y > H) return;
      var text = s.title[g];
      if (text.length > 42) text = text.slice(0, 40) + '…';
      var tw = self.width[g];
      if (tw < 0) tw = self.width[g] = c.measureText(text).width;
      var lx = x + Math.max(r, 2) + 4, x0 = Math.floor(lx / cell), x1 = Math.floor((lx + tw) / cell);
      var r0 = Math.floor((y - 7) / cell), r1 = Math.floor((y + 7) / cell), q, row;
      if (x0 < 0 || lx + tw > W - 2 || r0 < 0 || r1 >= gh) return;
      if (!force) for (row = r0; row <= r1; row++) for (q = x0; q <= x1; q++) if (occ[row * gw + q]) return;
      for (row = r0; row <= r1; row++) for (q = x0; q <= x1; q++) occ[row * gw + q] = 1;
      c.globalAlpha = self.vis[g] === 1 ? 0.4 : 1;
      c.lineWidth = 3;
      c.strokeStyle = self.colors.bg;
      c.strokeText(text, lx, y);
      c.fillStyle = self.colors.fg;
      c.fillText(text, lx, y);
      c.globalAlpha = 1;
      count++;
    }
    first.forEach(function (li) { if (li >= 0) tryLabel(li, 2); });
    next.forEach(function (li) { tryLabel(li, 1); });
    var order = L.rankOrder;
    for (var i = 0; i < order.length && count < max; i++) tryLabel(order[i], 0);
  };

  // ---------------------------------------------------------------- input

  // nodeAt is the visible layer node under screen point (x, y), or -1.
  G.nodeAt = function (x, y) {
    var L = this.layer, gr = L.grid, v = this.view, w = this.toWorld(x, y);
    var reach = 12 / v.k + 1.9; // world units: 12 px plus the largest radius
    var cx0 = Math.max(0, Math.floor((w[0] - reach - L.minX) / gr.cell)), cx1 = Math.min(gr.w - 1, Math.floor((w[0] + reach - L.minX) / gr.cell));
    var cy0 = Math.max(0, Math.floor((w[1] - reach - L.minY) / gr.cell)), cy1 = Math.min(gr.h - 1, Math.floor((w[1] + reach - L.minY) / gr.cell));
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > 400) return -1;
    var best = -1, bestD = Infinity;
    for (var cy = cy0; cy <= cy1; cy++) for (var cx = cx0; cx <= cx1; cx++) {
      var c = cy * gr.w + cx;
      for (var k = gr.start[c]; k < gr.start[c + 1]; k++) {
        var li = gr.items[k], g = L.gid ? L.gid[li] : li;
        if (!this.vis[g]) continue;
        var dx = (L.x[li] - w[0]) * v.k, dy = (L.y[li] - w[1]) * v.k, d = dx * dx + dy * dy;
        var r = this.px(g, v.k) + 5;
        if (d <= r * r && d < bestD) { best = li; bestD = d; }
      }
    }
    return best < 0 ? -1 : L.gid ? L.gid[best] : best;
  };

  G.attach = function () {
    var self = this, cv = this.canvas;
    function local(ev) { var r = cv.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }
    cv.addEventListener('pointerdown', function (ev) {
      var p = local(ev);
      try { cv.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic pointer */ }
      self.pointers.set(ev.pointerId, { x: p[0], y: p[1], x0: p[0], y0: p[1], type: ev.pointerType });
      self.lastInput = performance.now();
    });
    cv.addEventListener('pointermove', function (ev) {
      var p = local(ev), pt = self.pointers.get(ev.pointerId);
      if (!pt) {
        if (ev.pointerType === 'mouse') self.setHover(self.nodeAt(p[0], p[1]), p);
        return;
      }
      if (self.pointers.size === 2) {
        var other;
        self.pointers.forEach(function (o, id) { if (id !== ev.pointerId) other = o; });
        var d0 = Math.hypot(pt.x - other.x, pt.y - other.y), d1 = Math.hypot(p[0] - other.x, p[1] - other.y);
        if (d0 > 0) self.zoomAt(d1 / d0, (p[0] + other.x) / 2, (p[1] + other.y) / 2);
        self.panBy((p[0] - pt.x) / 2, (p[1] - pt.y) / 2);
      } else {
        self.panBy(p[0] - pt.x, p[1] - pt.y);
      }
      pt.x = p[0]; pt.y = p[1];
      if (Math.hypot(pt.x - pt.x0, pt.y - pt.y0) > 4) { pt.moved = true; self.setHover(-1); }
    });
    function up(ev) {
      var pt = self.pointers.get(ev.pointerId);
      self.pointers.delete(ev.pointerId);
      if (!pt || pt.moved || ev.type === 'pointercancel' || self.pointers.size) return;
      var i = self.nodeAt(pt.x, pt.y);
      if (i < 0) { self.select(-1); return; }
      // A tap on touch selects first (no hover there); a click opens.
      if (pt.type === 'mouse' || self.selected === i) self.open(i);
      else self.select(i);
    }
    cv.addEventListener('pointerup', up);
    cv.addEventListener('pointercancel', up);
    cv.addEventListener('pointerleave', function (ev) { if (ev.pointerType === 'mouse') self.setHover(-1); });
    cv.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var p = local(ev), dy = ev.deltaY * (ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1);
      self.zoomAt(Math.exp(-dy * 0.0015), p[0], p[1]);
    }, { passive: false });
    cv.addEventListener('keydown', function (ev) {
      var step = 60, handled = true;
      switch (ev.key) {
        case 'ArrowLeft': self.panBy(step, 0); break;
        case 'ArrowRight': self.panBy(-step, 0); break;
        case 'ArrowUp': self.panBy(0, step); break;
        case 'ArrowDown': self.panBy(0, -step); break;
        case '+': case '=': self.zoomAt(1.25, self.w / 2, self.h / 2); break;
        case '-': case '_': self.zoomAt(0.8, self.w / 2, self.h / 2); break;
        case '0': self.fit(true); break;
        case 'Enter': if (self.selected >= 0) self.open(self.selected); break;
        case 'Escape': self.select(-1); self.setHover(-1); break;
        case '/': if (self.find) self.find.focus(); break;
        default: handled = false;
      }
      if (handled) ev.preventDefault();
    });
    if (window.ResizeObserver) new ResizeObserver(function () { self.resize(); }).observe(this.stage);
    else window.addEventListener('resize', function () { self.resize(); });
    var mq = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)');
    if (mq && mq.addEventListener) mq.addEventListener('change', function () { self.restyle(); });
    new MutationObserver(function () { self.restyle(); }).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class'] });
    if (!this.controls) return;
    this.find.addEventListener('input', function () { self.suggest(); });
    this.find.addEventListener('keydown', function (ev) { self.findKey(ev); });
    this.find.addEventListener('blur', function () { setTimeout(function () { self.showList(false); }, 150); });
    this.list.addEventListener('mousedown', function (ev) { ev.preventDefault(); });
    this.list.addEventListener('click', function (ev) {
      var li = ev.target.closest('li');
      if (li) self.pick(+li.getAttribute('data-i'));
    });
    this.text.addEventListener('input', function () { self.setFilter({ text: self.text.value }); });
    this.colSel.addEventListener('change', function () { self.setFilter({ collection: self.colSel.value }); });
    this.tagSel.addEventListener('change', function () { self.setFilter({ tag: self.tagSel.value }); });
    this.modeSel.addEventListener('change', function () { self.setFilter({ mode: self.modeSel.value }); });
    this.ghostBox.addEventListener('change', function () { self.setFilter({ ghosts: self.ghostBox.checked }); });
    this.orphanBox.addEventListener('change', function () { self.setFilter({ orphans: self.orphanBox.checked }); });
    this.colorSel.addEventListener('change', function () { self.colorBy = self.colorSel.value; self.restyle(); });
    this.sizeSel.addEventListener('change', function () { self.sizeBy = self.sizeSel.value; self.restyle(); });
    this.localBox.addEventListener('change', function () {
      var f = self.selected >= 0 ? self.selected : self.scene.byRank[0];
      self.setLocal(self.localBox.checked ? f : null, +self.depthSel.value);
    });
    this.depthSel.addEventListener('change', function () { if (self.local) self.setLocal(self.local.focus, +self.depthSel.value); });
    this.fitBtn.addEventListener('click', function () { self.fit(true); });
  };

  G.setHover = function (i, p) {
    if (i === this.hover) { if (i >= 0 && p) this.placeTip(p); return; }
    this.hover = i;
    this.canvas.style.cursor = i >= 0 ? 'pointer' : '';
    if (i < 0) this.tip.hidden = true;
    else {
      var s = this.scene;
      this.tip.textContent = s.title[i] + (s.flags[i] & GHOST ? ' (no note yet)' : '');
      this.tip.hidden = false;
      if (p) this.placeTip(p);
    }
    this.request();
  };

  G.placeTip = function (p) {
    this.tip.style.transform = 'translate(' + Math.round(p[0] + 12) + 'px,' + Math.round(p[1] + 12) + 'px)';
  };

  G.href = function (i) { return this.openPrefix + encodeURIComponent(this.scene.id[i]); };

  G.open = function (i) {
    var s = this.scene;
    if (i < 0 || s.flags[i] & GHOST) { this.select(i); return; }
    if (this.opts.onOpen) this.opts.onOpen(i, s.id[i]);
    else window.location.assign(this.href(i));
  };

  // select shows node i's card and keeps its neighbours highlighted.
  G.select = function (i) {
    this.selected = i;
    var card = this.card, s = this.scene, self = this;
    card.textContent = '';
    if (i < 0) { card.hidden = true; this.request(); return; }
    var ghost = s.flags[i] & GHOST;
    var where = s.collections[s.col[i]] + (s.folders[s.folder[i]] ? ' / ' + s.folders[s.folder[i]] : '');
    var close = h('button', { type: 'button', 'class': 'gg-x', 'aria-label': 'Close', text: '×' });
    close.addEventListener('click', function () { self.select(-1); self.canvas.focus(); });
    var localBtn = h('button', { type: 'button', text: 'Local graph' });
    localBtn.addEventListener('click', function () { self.setLocal(i, self.local ? self.local.depth : 1); });
    var tags = [];
    for (var k = s.tagStart[i]; k < s.tagStart[i + 1]; k++) tags.push('#' + s.tags[s.tagRefs[k]]);
    card.appendChild(close);
    card.appendChild(h('h2', { text: s.title[i] }));
    card.appendChild(h('p', { 'class': 'meta', text: (ghost ? 'Unresolved link · ' : '') + where + ' · ' + s.degree[i] + ' link' + (s.degree[i] === 1 ? '' : 's') }));
    if (tags.length) card.appendChild(h('p', { 'class': 'meta', text: tags.slice(0, 8).join(' ') }));
    var acts = h('p', { 'class': 'gg-acts' });
    if (!ghost) acts.appendChild(h('a', { href: this.href(i), 'class': 'gg-open', text: 'Open note' }));
    else acts.appendChild(h('span', { 'class': 'meta', text: 'No note has this name yet.' }));
    acts.appendChild(localBtn);
    card.appendChild(acts);
    card.hidden = false;
    this.status('Selected ' + s.title[i] + ', ' + s.degree[i] + ' links');
    this.request();
  };

  // ---------------------------------------------------------------- find

  // search returns up to limit nodes whose title contains q: prefix
  // matches first, then by rank.
  G.search = function (q, limit) {
    var s = this.scene, out = [], pre = [];
    q = q.trim().toLowerCase();
    if (!q) return out;
    for (var j = 0; j < s.byRank.length; j++) {
      var i = s.byRank[j], at = s.lc[i].indexOf(q);
      if (at === 0) pre.push(i);
      else if (at > 0 && out.length < (limit || 8)) out.push(i);
      if (pre.length >= (limit || 8)) break;
    }
    return pre.concat(out).slice(0, limit || 8);
  };

  G.suggest = function () {
    var s = this.scene, self = this, res = this.search(this.find.value, 8);
    this.list.textContent = '';
    this.active = -1;
    res.forEach(function (i, j) {
      var li = h('li', { role: 'option', id: self.list.id + '-' + j, 'data-i': String(i), 'aria-selected': 'false' }, [
        document.createTextNode(s.title[i]),
        h('span', { 'class': 'meta', text: ' ' + s.collections[s.col[i]] + (s.folders[s.folder[i]] ? '/' + s.folders[s.folder[i]] : '') })]);
      self.list.appendChild(li);
    });
    this.showList(res.length > 0);
    if (!res.length && this.find.value.trim()) this.status('No note matches “' + this.find.value.trim() + '”');
  };

  G.showList = function (on) {
    this.list.hidden = !on;
    this.find.setAttribute('aria-expanded', on ? 'true' : 'false');
  };

  G.findKey = function (ev) {
    var items = this.list.children, n = items.length;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      if (!n) return;
      ev.preventDefault();
      this.active = (this.active + (ev.key === 'ArrowDown' ? 1 : n - 1) + (this.active < 0 && ev.key === 'ArrowUp' ? 1 : 0)) % n;
      for (var j = 0; j < n; j++) items[j].setAttribute('aria-selected', j === this.active ? 'true' : 'false');
      this.find.setAttribute('aria-activedescendant', items[this.active].id);
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      var pickEl = items[this.active >= 0 ? this.active : 0];
      if (pickEl) this.pick(+pickEl.getAttribute('data-i'));
    } else if (ev.key === 'Escape') {
      this.showList(false);
    }
  };

  G.pick = function (i) {
    this.showList(false);
    this.find.value = this.scene.title[i];
    this.select(i);
    this.flyTo(i);
    this.canvas.focus({ preventScroll: true });
  };

  // setFilter changes some of text, collection, tag (indexes as
  // strings, '' for all), mode ('dim' or 'hide'), ghosts, orphans.
  G.setFilter = function (f) {
    for (var k in f) this.filter[k] = f[k];
    if (this.controls) {
      var F = this.filter;
      this.text.value = F.text;
      this.colSel.value = F.collection;
      this.tagSel.value = F.tag;
      this.modeSel.value = F.mode;
      this.ghostBox.checked = F.ghosts;
      this.orphanBox.checked = F.orphans;
    }
    this.refilter();
  };

  // ---------------------------------------------------------------- local

  // setLocal shows the neighbourhood of scene node focus to depth (1-3),
  // laid out here: started from the global positions (so the picture
  // keeps its orientation) and relaxed by a small force simulation. null
  // returns to the whole graph.
  G.setLocal = function (focus, depth) {
    var s = this.scene;
    if (focus === null || focus < 0) {
      this.local = null;
      this.layer = this.global || this.layer;
      if (this.localBox) this.localBox.checked = false;
      this.sizes();
      this.fit();
      this.invalidate();
      return;
    }
    depth = Math.min(Math.max(depth || 1, 1), 3);
    if (!this.global) this.global = this.layer;
    var dist = new Map([[focus, 0]]), queue = [focus], cap = 1500;
    for (var qi = 0; qi < queue.length && queue.length < cap; qi++) {
      var u = queue[qi], du = dist.get(u);
      if (du >= depth) continue;
      for (var k = s.adjStart[u]; k < s.adjStart[u + 1] && queue.length < cap; k++) {
        var w = s.adj[k];
        if (!dist.has(w) && this.vis[w]) { dist.set(w, du + 1); queue.push(w); }
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
    this.layer = finishLayer({ n: n, gid: gid, x: pos.x, y: pos.y, edges: new Uint32Array(edges), index: idx, rankOrder: rankOrder });
    this.local = { focus: focus, depth: depth };
    this.sizes();
    if (this.localBox) { this.localBox.checked = true; this.depthSel.value = String(depth); }
    this.selected = focus;
    this.fit();
    this.invalidate();
    this.status('Local graph of ' + s.title[focus] + ': ' + n + ' notes within ' + depth + ' link' + (depth > 1 ? 's' : ''));
  };

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

  // ---------------------------------------------------------------- API

  // screenOf is where scene node i is drawn, in client coordinates (null
  // when it is not in the current layer).
  G.screenOf = function (i) {
    var li = this.layerIndex(i);
    if (li < 0) return null;
    var p = this.toScreen(this.layer.x[li], this.layer.y[li]), r = this.canvas.getBoundingClientRect();
    return { x: p[0] + r.left, y: p[1] + r.top };
  };

  // record starts measuring frames; the function it returns stops and
  // gives the frame rate, the intervals between frames and the time a
  // frame's own work took (p95, ms).
  G.record = function () {
    var self = this, ts = [], stop = false, work = [];
    this.frameLog = work;
    function tick(t) { ts.push(t); if (!stop) requestAnimationFrame(tick); }
    requestAnimationFrame(tick);
    function p95(a) { a = a.slice().sort(function (x, y) { return x - y; }); return a.length ? a[Math.floor(a.length * 0.95)] : 0; }
    return function () {
      stop = true;
      self.frameLog = null;
      var iv = [];
      for (var i = 1; i < ts.length; i++) iv.push(ts[i] - ts[i - 1]);
      var ms = ts.length > 1 ? ts[ts.length - 1] - ts[0] : 0;
      function col(k) { return work.map(function (w) { return w[k]; }); }
      return { frames: iv.length, ms: ms, fps: ms ? iv.length * 1000 / ms : 0, p95Interval: p95(iv),
        maxInterval: Math.max.apply(null, iv.concat([0])), drawn: work.length, p95Work: p95(col(0)),
        p95Job: p95(col(1)), p95Blit: p95(col(2)), p95Overlay: p95(col(3)) };
    };
  };

  // idle resolves once nothing is left to draw.
  G.idle = function () {
    var self = this;
    return new Promise(function (resolve) {
      (function check() { if (!self.job && !self.anim && !self.raf) resolve(); else requestAnimationFrame(check); })();
    });
  };

  /** mount turns el into a graph view; opts: src, open (URL prefix of a
   * note), controls ('none' for a bare graph), onOpen(i, id). */
  function mount(el, opts) {
    var g = new Graph(el, opts);
    window.GnoGraph.instances.push(g);
    return g;
  }

  window.GnoGraph = { decode: decode, mount: mount, instances: [] };

  function boot() {
    var els = document.querySelectorAll('.gno-graph[data-src]');
    for (var i = 0; i < els.length; i++) mount(els[i]);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();

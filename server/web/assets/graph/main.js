/* gno graph view. Draws a laid-out link graph on a canvas: the binary
 * scene of /api/graph/scene (format: retrieval/graph/layout/wire.go).
 * The server lays the graph out; these modules draw and interact, along
 * the data flow: decode.js (bytes → scene), layer.js (scene → what is
 * drawn: the whole graph or a note's neighbourhood), style.js (colours,
 * sizes, filter), draw.js (frames), view.js (camera and input), ui.js
 * (controls), dom.js (element helpers); this one ties them together.
 *
 * Embed: <div class="gno-graph" data-src="/api/graph/scene"
 *   data-open="/doc?ref=" [data-focus="ID" data-depth="1..3"]
 *   [data-controls="none"|"local"]></div>, /assets/graph.css and
 * <script type="module" src="/assets/graph/main.js">. Every such element
 * is mounted on load; GnoGraph.mount(el, {src, open, controls,
 * onOpen(i, id)}) mounts one by hand. data-focus opens the local graph
 * of that document ID.
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

import { decode, prepare } from './decode.js';
import { globalLayer, localLayer } from './layer.js';
import { installStyle } from './style.js';
import { installView } from './view.js';
import { installDraw } from './draw.js';
import { installUI } from './ui.js';

function Graph(root, opts) {
  this.root = root;
  this.opts = opts || {};
  this.src = this.opts.src || root.getAttribute('data-src');
  this.openPrefix = this.opts.open || root.getAttribute('data-open') || '/doc?ref=';
  // mode: 'full' (the graph page's toolbar), 'local' (a note's local
  // graph: depth and a link to the graph page) or 'none'.
  this.mode = this.opts.controls || root.getAttribute('data-controls') || 'full';
  this.controls = this.mode === 'full';
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

installUI(G);
installStyle(G);
installView(G);
installDraw(G);

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

// setLocal shows the neighbourhood of scene node focus to depth (1-3)
// (localLayer); null returns to the whole graph.
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
  this.layer = localLayer(s, this.vis, focus, depth);
  this.local = { focus: focus, depth: depth };
  this.sizes();
  if (this.localBox) this.localBox.checked = true;
  if (this.depthSel) this.depthSel.value = String(depth);
  if (this.fullLink) this.fullLink.href = '/graph?focus=' + encodeURIComponent(s.id[focus]) + '&depth=' + depth;
  // On the graph page the note is selected (its card shows); a note's
  // own page has it already, and a small graph reads better undimmed.
  this.selected = this.mode === 'local' ? -1 : focus;
  this.fit();
  this.invalidate();
  var n = this.layer.n;
  this.status('Local graph of ' + s.title[focus] + ': ' + n + ' notes within ' + depth + ' link' + (depth > 1 ? 's' : ''));
};

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

/* Drawing: frames show a cached bitmap of the graph (edges and nodes,
 * redrawn in time slices, shortest edges first, culled to the view) plus
 * an overlay (labels, the highlighted note and its neighbours). Part of
 * the graph view (main.js). */

import { GHOST } from './decode.js';

// flush makes the canvas draw what it has recorded now: browsers defer
// the rasterisation of a canvas until it is used, which would move the
// whole cost of a time-sliced drawing into the frame that shows it.
function flush(c) { c.getImageData(0, 0, 1, 1); }

// installDraw adds the drawing methods to the Graph prototype G.
export function installDraw(G) {

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
      // The local graph's note: ringed and labelled, with its links'.
      var lc = this.layerIndex(this.local.focus);
      if (lc >= 0) {
        this.dot(c, lc, sxy(lc), true);
        var near = this.layerNeighbours(lc);
        more = near.length <= 80 ? near : [];
      }
      labelled = [lc];
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
      // Right of the node, or left of it where the right has no room.
      var lx = x + Math.max(r, 2) + 4;
      if (lx + tw > W - 2) lx = x - Math.max(r, 2) - 4 - tw;
      var x0 = Math.floor(lx / cell), x1 = Math.floor((lx + tw) / cell);
      var r0 = Math.floor((y - 7) / cell), r1 = Math.floor((y + 7) / cell), q, row;
      if (lx < 2 || lx + tw > W - 2 || r0 < 0 || r1 >= gh) return;
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
}

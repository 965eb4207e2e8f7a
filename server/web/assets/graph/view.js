/* View and input: the camera (pan, zoom, fit, fly to a note), hit tests
 * and the pointer, wheel and key handlers. Part of the graph view
 * (main.js). */

// installView adds the view and input methods to the Graph prototype G.
export function installView(G) {

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
    // A view nobody has moved yet follows the size (a style sheet that
    // arrives after the first frame, a rotated phone).
    if (this.layer && !this.lastInput && !this.anim) this.fit();
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

  // central is the highest ranked note shown, or -1.
  G.central = function () {
    var s = this.scene;
    for (var j = 0; j < s.byRank.length; j++) {
      var i = s.byRank[j];
      if (this.vis[i] === 2 && this.layerIndex(i) >= 0) return i;
    }
    return -1;
  };

  G.layerIndex = function (i) {
    var L = this.layer;
    if (!L.gid) return i;
    var j = L.index.get(i);
    return j === undefined ? -1 : j;
  };


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
        case 'Enter':
          // The first Enter selects a note (the local graph's, or the
          // most central shown), whose card lists its links; the next
          // opens it.
          if (self.selected >= 0) self.open(self.selected);
          else self.select(self.local ? self.local.focus : self.central());
          break;
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
    if (this.depthSel) this.depthSel.addEventListener('change', function () { if (self.local) self.setLocal(self.local.focus, +self.depthSel.value); });
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
    this.fitBtn.addEventListener('click', function () { self.fit(true); });
  };
}

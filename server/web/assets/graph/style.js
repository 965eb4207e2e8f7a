/* Style: colours (Paul Tol's palettes, from the page's theme), node
 * sizes, the filter's visibility and the legend. Part of the graph view
 * (main.js). */

import { GHOST, ORPHAN } from './decode.js';
import { h } from './dom.js';

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

// installStyle adds the style methods to the Graph prototype G.
export function installStyle(G) {

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
    // A local graph is small and zoomed in: smaller discs leave room
    // for the labels.
    this.maxPx = this.layer.gid ? 11 : 22;
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
    return Math.max(Math.min(this.radius[g] * k, this.maxPx), this.minPx[g]);
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
    // "notes/" is a collection's top folder.
    function label(key) { return /\/$/.test(key) ? key.slice(0, -1) + ' (top level)' : key || '(none)'; }
    var pal = this.palette;
    this.groups.slice(0, pal.length - 1).forEach(function (g) { item(pal[g.color], label(g.key) + ' · ' + g.count); });
    if (this.groups.length >= pal.length) item(pal[pal.length - 1], 'other');
    this.legend.appendChild(h('li', null, [h('span', { 'class': 'gg-sw gg-ghost' }), document.createTextNode(' unresolved link')]));
  };

  G.invalidate = function () {
    this.styleVersion++;
    this.request();
  };
}

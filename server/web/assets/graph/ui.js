/* Controls: the toolbar, the find box and its list, the filters, the
 * selected note's card and the status line. Part of the graph view
 * (main.js). */

import { GHOST } from './decode.js';
import { h, opt } from './dom.js';

var uid = 0;

// installUI adds the control methods to the Graph prototype G.
export function installUI(G) {
  G.build = function () {
    var id = 'gg' + (++uid), self = this;
    this.canvas = h('canvas', { tabindex: '0', role: 'application', 'aria-roledescription': 'graph',
      'aria-label': 'Link graph', 'aria-describedby': id + '-help' });
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.tip = h('div', { 'class': 'gg-tip', hidden: true, 'aria-hidden': 'true' });
    this.card = h('div', { 'class': 'gg-card', hidden: true });
    this.live = h('p', { 'class': 'gg-status', role: 'status', 'aria-live': 'polite' });
    var help = h('p', { 'class': 'vh', id: id + '-help',
      text: 'Arrow keys pan, plus and minus zoom, 0 fits the graph. Enter selects the most linked note and lists its links after the graph; Enter again opens it. Slash finds a note.' });
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
    } else if (this.mode === 'local') {
      this.depthSel = h('select', { 'aria-label': 'Local graph depth' }, [opt('1', 'Depth 1'), opt('2', 'Depth 2'), opt('3', 'Depth 3')]);
      this.fullLink = h('a', { href: '/graph', text: 'Open in graph view' });
      kids.push(h('div', { 'class': 'gg-bar' }, [this.depthSel, this.fullLink]));
    }
    kids.push(this.stage);
    this.legend = h('ul', { 'class': 'gg-legend', 'aria-label': 'Colours', hidden: this.mode === 'local' });
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
    var localBtn = h('button', { type: 'button', text: 'Local graph', hidden: this.mode === 'local' });
    localBtn.addEventListener('click', function () { self.setLocal(i, self.local ? self.local.depth : 1); });
    var tags = [];
    for (var k = s.tagStart[i]; k < s.tagStart[i + 1]; k++) tags.push('#' + s.tags[s.tagRefs[k]]);
    card.appendChild(close);
    card.appendChild(h('h2', { text: s.title[i] }));
    card.appendChild(h('p', { 'class': 'meta', text: (ghost ? 'Unresolved link · ' : '') + where + ' · ' + s.degree[i] + ' link' + (s.degree[i] === 1 ? '' : 's') }));
    if (tags.length) card.appendChild(h('p', { 'class': 'meta', text: tags.slice(0, 8).join(' ') }));
    this.neighbourList(i);
    var acts = h('p', { 'class': 'gg-acts' });
    if (!ghost) acts.appendChild(h('a', { href: this.href(i), 'class': 'gg-open', text: 'Open note' }));
    else acts.appendChild(h('span', { 'class': 'meta', text: 'No note has this name yet.' }));
    acts.appendChild(localBtn);
    card.appendChild(acts);
    card.hidden = false;
    this.status('Selected ' + s.title[i] + ', ' + s.degree[i] + ' links');
    this.request();
  };

  // neighbourList adds to the card the selected note's linked notes, by
  // rank: the graph's text alternative. Each selects its note here, so
  // the graph can be walked from note to note with Tab and Enter.
  G.neighbourList = function (i) {
    var s = this.scene, self = this, nb = [];
    for (var k = s.adjStart[i]; k < s.adjStart[i + 1]; k++) if (this.vis[s.adj[k]] && this.layerIndex(s.adj[k]) >= 0) nb.push(s.adj[k]);
    if (!nb.length) return;
    nb.sort(function (a, b) { return s.rank[b] - s.rank[a] || (s.lc[a] < s.lc[b] ? -1 : 1); });
    var id = this.list ? this.list.id + '-nb' : 'gg-nb-' + Math.random().toString(36).slice(2);
    this.card.appendChild(h('h3', { id: id, text: 'Linked notes (' + nb.length + ')' }));
    var ul = h('ul', { 'class': 'gg-nb', 'aria-labelledby': id });
    nb.slice(0, 50).forEach(function (j) {
      var b = h('button', { type: 'button', 'data-i': String(j), text: s.title[j] + (s.flags[j] & GHOST ? ' (no note yet)' : '') });
      ul.appendChild(h('li', null, [b]));
    });
    if (nb.length > 50) ul.appendChild(h('li', { 'class': 'meta', text: 'and ' + (nb.length - 50) + ' more' }));
    ul.addEventListener('click', function (ev) {
      var b = ev.target.closest('button');
      if (!b) return;
      var j = +b.getAttribute('data-i');
      self.select(j);
      self.flyTo(j);
      var again = self.card.querySelector('.gg-nb button, .gg-open');
      (again || self.canvas).focus({ preventScroll: true });
    });
    this.card.appendChild(ul);
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

}

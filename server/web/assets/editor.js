// gno editor: a plain textarea (see the package doc for why), a server
// rendered preview, [[link and #tag completion, properties, autosave with
// a visible state, and saves that name the version they edit, so a file
// changed on disk is never overwritten silently.
(function () {
  "use strict";
  var g = window.gno;
  var ed = document.getElementById("editor");
  if (!g || !ed) return;
  var $ = function (s, r) { return (r || document).querySelector(s); };
  var el = g.el, api = g.api;
  var ta = $("#ed-body"), state = $("#save-state"), preview = $("#ed-preview");
  var ref = ed.dataset.ref, hash = ed.dataset.hash;
  var readOnly = ed.hasAttribute("data-readonly");
  var saved = ta.value, dirty = false, saving = false, conflict = false, again = false;
  var retry = null;

  function setState(s, msg) {
    state.dataset.state = s;
    state.textContent = msg || { saved: "Saved", unsaved: "Unsaved changes", saving: "Saving…", conflict: "Conflict: not saved" }[s] || s;
  }

  // Properties: only the keys the user changed are sent; the others keep
  // their bytes in the file.
  function propInputs() { return Array.prototype.slice.call(document.querySelectorAll("#props input[data-key]")); }
  function propEdits() {
    var out = [];
    propInputs().forEach(function (i) {
      var v = i.value.trim(), o = i.dataset.orig;
      if (v === o) return;
      if (v === "") { out.push({ key: i.dataset.key, kind: "remove" }); return; }
      if (i.dataset.kind === "list") {
        out.push({ key: i.dataset.key, kind: "list", list: v.split(",").map(function (s) { return s.trim(); }).filter(Boolean) });
      } else out.push({ key: i.dataset.key, kind: "text", value: v });
    });
    return out;
  }
  function changed() { return ta.value !== saved || propEdits().length > 0; }

  function save(force) {
    if (readOnly) return Promise.resolve();
    if (conflict && !force) {
      if (!cf.open) g.openDialog(cf); // the conflict must be resolved first
      return Promise.resolve();
    }
    if (saving) { again = true; return Promise.resolve(); }
    if (!changed() && !force) { dirty = false; setState("saved"); return Promise.resolve(); }
    saving = true;
    clearTimeout(retry);
    var body = ta.value, props = propEdits();
    setState("saving");
    return api("/api/note/save", { ref: ref, baseHash: hash, body: body, props: props, force: !!force }).then(function (r) {
      hash = r.hash;
      saved = body;
      propInputs().forEach(function (i) {
        var e = props.filter(function (p) { return p.key === i.dataset.key; })[0];
        if (e) i.dataset.orig = e.kind === "list" ? e.list.join(", ") : (e.value || "");
      });
      conflict = false;
      dirty = changed();
      setState(dirty ? "unsaved" : "saved");
      if (dirty) autosave();
    }, function (e) {
      if (e.status === 409 && e.body && e.body.current) {
        conflict = true;
        setState("conflict");
        showConflict(e.body);
        return;
      }
      setState("error", "Not saved: " + e.message);
      if (e.code === "LOCKED" || e.status === 503 || !e.status) retry = setTimeout(save, 5000);
    }).then(function () {
      saving = false;
      if (again) { again = false; save(); }
    });
  }
  var autosave = g.debounce(function () { save(); }, 1000);

  var pCtl = null;
  var renderPreview = g.debounce(function () {
    if (pCtl) pCtl.abort();
    pCtl = new AbortController();
    api("/api/note/preview", { ref: ref, body: ta.value }, pCtl.signal).then(function (r) {
      preview.innerHTML = r.html; // rendered without raw HTML and checked by the server
    }, function () {});
  }, 250);

  function edited() {
    if (readOnly) return;
    dirty = true;
    if (!conflict) { setState("unsaved"); autosave(); }
  }
  ta.addEventListener("input", function () { edited(); renderPreview(); complete(); });
  document.addEventListener("input", function (e) { if (e.target.closest && e.target.closest("#props")) edited(); });
  document.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && (e.key === "s" || e.key === "S")) { e.preventDefault(); save(); }
  });
  var saveBtn = $("#ed-save");
  if (saveBtn) saveBtn.addEventListener("click", function () { save(); });
  window.addEventListener("beforeunload", function (e) { if (!readOnly && changed()) { e.preventDefault(); e.returnValue = ""; } });

  var addBtn = $("#newprop-add");
  if (addBtn) addBtn.addEventListener("click", function () {
    var k = $("#newprop-key"), v = $("#newprop-val");
    if (!k.value.trim()) { k.focus(); return; }
    var lab = el("label", "prop"), input = el("input");
    lab.appendChild(el("span", "", k.value.trim()));
    input.dataset.key = k.value.trim();
    input.dataset.kind = "text";
    input.dataset.orig = "";
    input.value = v.value;
    lab.appendChild(input);
    $("#props").appendChild(lab);
    k.value = v.value = "";
    edited();
  });

  // Narrow screens: Write and Preview are tabs.
  var panes = $(".ed-panes");
  Array.prototype.forEach.call(document.querySelectorAll(".ed-tabs button"), function (b) {
    b.addEventListener("click", function () {
      panes.dataset.view = b.dataset.tab;
      Array.prototype.forEach.call(document.querySelectorAll(".ed-tabs button"), function (o) { o.setAttribute("aria-pressed", String(o === b)); });
    });
  });

  // Conflict: show what overwriting would change, and the three ways out.
  var cf = $("#conflict"), cfMsg = $("#cf-msg");
  function showConflict(body) {
    var pre = $("#conflict-diff");
    pre.textContent = "";
    body.diff.forEach(function (l) {
      var cls = { "-": "del", "+": "ins", "@": "hunk" }[l.op] || "ctx";
      var sign = { "-": "−", "+": "+", "@": "" }[l.op] || " ";
      pre.appendChild(el("span", cls, (l.op === "@" ? "@ " : sign + " ") + l.text + "\n"));
    });
    cfMsg.textContent = "";
    g.openDialog(cf);
  }
  $("#cf-overwrite").addEventListener("click", function () {
    cf.close();
    conflict = false;
    save(true);
  });
  $("#cf-reload").addEventListener("click", function () {
    saved = ta.value = "";
    dirty = false;
    propInputs().forEach(function (i) { i.value = i.dataset.orig; });
    readOnly = true; // no beforeunload prompt: the user chose to drop their text
    location.reload();
  });
  $("#cf-copy").addEventListener("click", function () {
    var text = ta.value;
    var done = function () { cfMsg.textContent = "Your text is on the clipboard."; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else fallback();
    function fallback() {
      var t = el("textarea");
      t.value = text;
      t.setAttribute("aria-hidden", "true");
      cf.appendChild(t);
      t.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) {}
      t.remove();
      cfMsg.textContent = ok ? "Your text is on the clipboard." : "Copy failed: select the text in the editor and copy it.";
    }
  });
  cf.addEventListener("cancel", function () { setState("conflict", "Conflict: not saved (resolve it to save)"); });

  // Rename: the plan (which links in which notes will be rewritten) is
  // shown before the rename, and the rename does exactly it.
  var rn = $("#rename"), rf = $("#rename-form"), plan = $("#rename-plan"), go = $("#rename-go");
  var rCtl = null;
  var loadPlan = g.debounce(function () {
    if (rCtl) rCtl.abort();
    rCtl = new AbortController();
    go.disabled = true;
    plan.textContent = "Checking…";
    api("/api/note/rename-plan?ref=" + encodeURIComponent(ref) + "&newPath=" + encodeURIComponent(rf.newPath.value), undefined, rCtl.signal).then(function (p) {
      plan.textContent = "";
      plan.appendChild(el("p", "", p.linksUpdated ? p.linksUpdated + " link" + (p.linksUpdated === 1 ? "" : "s") + " in " + p.files.length +
        " note" + (p.files.length === 1 ? "" : "s") + " will be rewritten:" : "No link needs rewriting."));
      var ul = el("ul", "plan-files");
      p.files.forEach(function (f) {
        var li = el("li");
        li.appendChild(el("strong", "", f.title || f.uri));
        var shown = f.uri;
        try { shown = decodeURI(f.uri); } catch (x) {}
        li.appendChild(el("span", "muted", " " + shown));
        var inner = el("ul", "plan-links");
        f.links.forEach(function (l) {
          var x = el("li");
          x.appendChild(el("span", "muted", "line " + l.line + ": "));
          x.appendChild(el("code", "del", l.before));
          x.appendChild(document.createTextNode(" → "));
          x.appendChild(el("code", "ins", l.after));
          inner.appendChild(x);
        });
        li.appendChild(inner);
        ul.appendChild(li);
      });
      plan.appendChild(ul);
      go.disabled = false;
    }, function (e) {
      if (e.name === "AbortError") return;
      plan.textContent = "";
      plan.appendChild(el("p", "error", e.message));
    });
  }, 250);
  $("#ed-rename").addEventListener("click", function () {
    plan.textContent = "";
    g.openDialog(rn);
    rf.newPath.focus();
    rf.newPath.select();
    loadPlan();
  });
  rf.newPath.addEventListener("input", function () {
    go.disabled = true;
    plan.textContent = "Checking…";
    loadPlan();
  });
  rf.addEventListener("submit", function (e) {
    e.preventDefault();
    if (go.disabled) return;
    go.disabled = true;
    save().then(function () {
      return api("/api/note/rename", { ref: ref, newPath: rf.newPath.value });
    }).then(function (r) {
      readOnly = true;
      location.href = "/edit?ref=" + encodeURIComponent(r.uri);
    }, function (x) {
      plan.appendChild(el("p", "error", x.message));
      go.disabled = false;
    });
  });

  // Delete, after the dialog listed the backlinks that will break.
  var df = $("#delete-form");
  $("#ed-delete").addEventListener("click", function () { g.openDialog($("#delete")); });
  df.addEventListener("submit", function (e) {
    e.preventDefault();
    api("/api/note/delete", { ref: ref }).then(function () {
      readOnly = true;
      var dir = ed.dataset.rel.split("/").slice(0, -1).join("/");
      location.href = "/browse?c=" + encodeURIComponent(ed.dataset.collection) + (dir ? "&dir=" + encodeURIComponent(dir) : "");
    }, function (x) { var p = $(".error", df); p.textContent = x.message; p.hidden = false; });
  });

  // Completion of [[links (notes, aliases, Note#headings) and #tags, in
  // the text and in the tags property. The list is built from text nodes.
  var ac = $("#ac"), acItems = [], acActive = -1, acCtx = null, acCtl = null, acSeq = 0;
  ta.setAttribute("aria-autocomplete", "list");
  ta.setAttribute("aria-controls", "ac");
  function context(input) {
    var pos = input.selectionStart, before = input.value.slice(Math.max(0, pos - 300), pos);
    if (input !== ta) {
      var m0 = /([^,]*)$/.exec(before);
      return { kind: "tag", text: m0[1].trim().replace(/^#/, ""), start: pos - m0[1].length, end: pos, input: input, list: true };
    }
    var open = before.lastIndexOf("[[");
    if (open >= 0 && !/\]\]|\n/.test(before.slice(open))) {
      return { kind: "link", text: before.slice(open + 2), start: pos - (before.length - open - 2), end: pos, input: input };
    }
    var m = /(^|\s)#([\p{L}\p{N}_\/-]*)$/u.exec(before);
    if (m) return { kind: "tag", text: m[2], start: pos - m[2].length, end: pos, input: input };
    return null;
  }
  var fetchAc = g.debounce(function (c) {
    if (acCtl) acCtl.abort();
    acCtl = new AbortController();
    var seq = ++acSeq;
    var url = c.kind === "link" ? "/api/complete?limit=8&from=" + encodeURIComponent(ref) + "&text=" + encodeURIComponent(c.text)
      : "/api/tags?prefix=" + encodeURIComponent(c.text);
    api(url, undefined, acCtl.signal).then(function (r) {
      if (seq !== acSeq) return;
      var items = c.kind === "link" ? r.completions.map(function (x) {
        return { label: x.label, detail: x.kind === "heading" ? x.detail + " · " + x.title : x.kind === "alias" ? "alias of " + x.title : x.detail, insert: x.insert };
      }) : r.tags.slice(0, 8).map(function (t) { return { label: "#" + t.tag, detail: String(t.count), insert: t.tag }; });
      showAc(c, items);
    }, function () {});
  }, 80);
  function complete(e) {
    var input = e && e.target && e.target.matches && e.target.matches("input[data-tags]") ? e.target : ta;
    var c = context(input);
    if (!c || (c.kind === "link" && !c.text)) { hideAc(); return; }
    acCtx = c;
    fetchAc(c);
  }
  document.addEventListener("input", function (e) { if (e.target.matches && e.target.matches("input[data-tags]")) complete(e); });
  function hideAc() {
    ac.hidden = true;
    acItems = [];
    acActive = -1;
    [ta].concat(Array.prototype.slice.call(document.querySelectorAll("input[data-tags]"))).forEach(function (i) {
      i.removeAttribute("aria-activedescendant");
    });
  }
  function showAc(c, items) {
    ac.textContent = "";
    acItems = items;
    if (!items.length) { hideAc(); return; }
    items.forEach(function (it, i) {
      var li = el("li", "ac-item");
      li.id = "ac-" + i;
      li.setAttribute("role", "option");
      li.appendChild(el("span", "", it.label));
      if (it.detail) li.appendChild(el("span", "muted", it.detail));
      li.addEventListener("mousedown", function (e) { e.preventDefault(); accept(i); });
      ac.appendChild(li);
    });
    var p = caret(c.input, c.start);
    ac.style.left = p.left + "px";
    ac.style.top = p.top + "px";
    ac.hidden = false;
    c.input.setAttribute("aria-controls", "ac");
    c.input.setAttribute("aria-autocomplete", "list");
    selectAc(0);
  }
  function selectAc(i) {
    if (acActive >= 0 && ac.children[acActive]) ac.children[acActive].setAttribute("aria-selected", "false");
    acActive = i;
    var li = ac.children[i];
    li.setAttribute("aria-selected", "true");
    acCtx.input.setAttribute("aria-activedescendant", li.id);
    li.scrollIntoView({ block: "nearest" });
  }
  function accept(i) {
    var it = acItems[i], c = acCtx;
    if (!it || !c) return;
    var v = c.input.value, ins = it.insert;
    if (c.kind === "link" && v.slice(c.end, c.end + 2) !== "]]") ins += "]]";
    else if (c.kind === "tag" && !c.list) ins += " ";
    if (c.list) ins = (c.start > 0 && !/\s$/.test(v.slice(0, c.start)) ? " " : "") + ins;
    c.input.value = v.slice(0, c.start) + ins + v.slice(c.end);
    var pos = c.start + ins.length + (c.kind === "link" && ins.slice(-2) !== "]]" ? 2 : 0);
    c.input.setSelectionRange(pos, pos);
    c.input.focus();
    hideAc();
    if (c.input === ta) renderPreview();
    edited();
  }
  function acKeys(e) {
    if (ac.hidden) return;
    var n = acItems.length;
    if (e.key === "ArrowDown") { e.preventDefault(); selectAc((acActive + 1) % n); }
    else if (e.key === "ArrowUp") { e.preventDefault(); selectAc((acActive - 1 + n) % n); }
    else if (e.key === "Enter" || e.key === "Tab") { e.preventDefault(); accept(acActive); }
    else if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); hideAc(); }
  }
  ta.addEventListener("keydown", acKeys);
  document.addEventListener("keydown", function (e) { if (e.target.matches && e.target.matches("input[data-tags]")) acKeys(e); });
  ta.addEventListener("blur", function () { setTimeout(hideAc, 150); });
  ta.addEventListener("click", hideAc);

  // caret places the list under the text at offset: a hidden copy of the
  // field with the same font and width, measured up to that offset.
  function caret(input, offset) {
    var r = input.getBoundingClientRect(), host = ed.getBoundingClientRect();
    if (input !== ta) return { left: r.left - host.left, top: r.bottom - host.top + 2 };
    var cs = getComputedStyle(ta), m = el("div");
    ["fontFamily", "fontSize", "fontWeight", "lineHeight", "letterSpacing", "paddingTop", "paddingLeft", "paddingRight",
      "borderLeftWidth", "borderTopWidth", "boxSizing", "tabSize"].forEach(function (p) { m.style[p] = cs[p]; });
    m.style.position = "absolute";
    m.style.visibility = "hidden";
    m.style.whiteSpace = "pre-wrap";
    m.style.overflowWrap = "break-word";
    m.style.width = ta.clientWidth + "px";
    m.textContent = ta.value.slice(0, offset);
    var mark = el("span", "", "\u200b");
    m.appendChild(mark);
    document.body.appendChild(m);
    var top = mark.offsetTop + parseFloat(cs.lineHeight || "20") - ta.scrollTop, left = mark.offsetLeft;
    m.remove();
    return { left: Math.min(r.left - host.left + left, host.width - 260), top: r.top - host.top + Math.min(top, ta.clientHeight) + 2 };
  }
})();

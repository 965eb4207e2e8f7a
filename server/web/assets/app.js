// gno web app: progressive enhancements. Every page works without this
// file; it adds the command palette, keyboard shortcuts, the theme
// toggle, search as you type, streamed answers, live job progress, the
// folder tree and the write buttons. No framework, no build step; text
// from the index only ever reaches the page as textContent.
(function () {
  "use strict";
  var csrf = (document.querySelector('meta[name="gno-csrf"]') || {}).content || "";
  var write = document.body.hasAttribute("data-write");
  var $ = function (s, r) { return (r || document).querySelector(s); };
  var $$ = function (s, r) { return Array.prototype.slice.call((r || document).querySelectorAll(s)); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function debounce(fn, ms) {
    var t;
    return function () {
      var args = arguments;
      clearTimeout(t);
      t = setTimeout(function () { fn.apply(null, args); }, ms);
    };
  }
  // api fetches JSON; writes carry the CSRF token. It rejects with the
  // server's error message (and the parsed body as .body).
  function api(url, body, signal) {
    var opt = { signal: signal, headers: {} };
    if (body !== undefined) {
      opt.method = "POST";
      opt.headers["Content-Type"] = "application/json";
      opt.headers["X-Gno-Csrf"] = csrf;
      opt.body = JSON.stringify(body);
    }
    return fetch(url, opt).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) {
          var e = new Error((j.error && j.error.message) || r.statusText);
          e.status = r.status; e.body = j; e.code = j.error && j.error.code;
          throw e;
        }
        return j;
      });
    });
  }
  function typing(t) {
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }
  function openDialog(d) { if (d && !d.open) d.showModal(); }
  window.gno = { api: api, el: el, debounce: debounce, openDialog: openDialog, csrf: csrf };

  // Buttons that need this script are hidden until it runs.
  $$("[data-cmd], .menu-btn, .ed-tabs").forEach(function (b) { b.hidden = false; });
  $$("dialog [data-close]").forEach(function (b) {
    b.addEventListener("click", function () { b.closest("dialog").close(); });
  });

  // Theme: the system's until the user picks one; the choice persists.
  var themeBtn = $(".theme-btn");
  function dark() {
    var t = document.documentElement.getAttribute("data-theme");
    return t ? t === "dark" : window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function showTheme() { if (themeBtn) themeBtn.setAttribute("aria-pressed", String(dark())); }
  function toggleTheme() {
    var t = dark() ? "light" : "dark";
    document.documentElement.setAttribute("data-theme", t);
    try { localStorage.setItem("gno-theme", t); } catch (e) {}
    showTheme();
  }
  showTheme();

  // Narrow screens: the navigation folds behind a Menu button.
  var menu = $(".menu-btn");
  if (menu) menu.addEventListener("click", function () {
    var open = menu.getAttribute("aria-expanded") !== "true";
    menu.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("nav-open", open);
  });

  // Recent notes, newest first, for the palette.
  function recent() {
    try { return JSON.parse(localStorage.getItem("gno-recent") || "[]"); } catch (e) { return []; }
  }
  var here = $("#doc-title") || $("#editor");
  if (here) {
    var uri = (($(".doc .uri") || $(".editor .uri") || {}).dataset || {}).uri;
    var title = (document.title || "").replace(/ · gno$/, "");
    if (uri) {
      var list = recent().filter(function (r) { return r.uri !== uri; });
      list.unshift({ uri: uri, title: title, href: "/doc?ref=" + encodeURIComponent(uri) });
      try { localStorage.setItem("gno-recent", JSON.stringify(list.slice(0, 10))); } catch (e) {}
    }
  }

  // Commands, for the palette and the shortcuts.
  var commands = [
    { name: "Go to Search", run: function () { location.href = "/"; } },
    { name: "Go to Browse", run: function () { location.href = "/browse"; } },
    { name: "Go to Tags", run: function () { location.href = "/tags"; } },
    { name: "Go to Ask", run: function () { location.href = "/ask"; } },
    { name: "Go to Status", run: function () { location.href = "/status"; } },
    { name: "Toggle dark theme", run: toggleTheme },
    { name: "Keyboard shortcuts", run: function () { openDialog($("#help")); } }
  ];
  if (write) {
    commands.unshift({ name: "New note", run: function () { capture(); } });
    commands.push({ name: "Sync all collections", run: function () { post("/api/sync", {}, "Sync started"); } });
    commands.push({ name: "Embed (make vectors)", run: function () { post("/api/embed", {}, "Embedding started"); } });
  }
  function post(url, body, done) {
    return api(url, body).then(function () { toast(done); }, function (e) { toast(e.message, true); });
  }
  var toastEl;
  function toast(msg, bad) {
    if (!toastEl) {
      toastEl = el("div", "toast");
      toastEl.setAttribute("role", "status");
      document.body.appendChild(toastEl);
    }
    toastEl.textContent = msg;
    toastEl.className = "toast show" + (bad ? " bad" : "");
    clearTimeout(toastEl.t);
    toastEl.t = setTimeout(function () { toastEl.className = "toast"; }, 4000);
  }
  window.gno.toast = toast;

  // Command palette: notes by title as you type, keyword hits in their
  // text, recent notes, commands. A new keystroke cancels the request of
  // the one before.
  var pal = $("#palette"), palQ = $("#pal-q"), palList = $("#pal-list"), palStatus = $("#pal-status");
  var palItems = [], palActive = -1, palCtl = null, palSeq = 0;
  function palOpen() {
    if (!pal) return;
    palQ.value = "";
    palEmpty();
    openDialog(pal);
    palQ.focus();
  }
  function palEmpty() {
    palSeq++;
    if (palCtl) palCtl.abort();
    palRender([{ name: "Recent", items: recent().map(function (r) { return option(r.title, readable(r.uri), "note", go(r.href)); }) },
      { name: "Commands", items: matchCmds("") }], "");
  }
  function option(label, detail, kind, run, segs) {
    return { label: label, detail: detail, kind: kind, run: run, segs: segs };
  }
  function palRender(groups, msg) {
    palList.textContent = "";
    palItems = [];
    groups.forEach(function (g) {
      if (!g.items.length) return;
      var head = el("li", "pal-group", g.name);
      head.setAttribute("role", "presentation");
      palList.appendChild(head);
      g.items.forEach(function (it) {
        var li = el("li", "pal-item");
        li.id = "pal-" + palItems.length;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.appendChild(el("span", "pal-label", it.label));
        if (it.detail) li.appendChild(el("span", "pal-detail", it.detail));
        if (it.segs) {
          var sn = el("span", "pal-snip");
          it.segs.forEach(function (s) { sn.appendChild(s.m ? el("mark", "", s.t) : document.createTextNode(s.t)); });
          li.appendChild(sn);
        }
        var i = palItems.length;
        li.addEventListener("mousedown", function (e) { e.preventDefault(); palRun(i); });
        palList.appendChild(li);
        palItems.push(it);
      });
    });
    palQ.setAttribute("aria-expanded", String(palItems.length > 0));
    palSelect(palItems.length ? 0 : -1);
    palStatus.textContent = msg !== undefined ? msg : palItems.length + " result" + (palItems.length === 1 ? "" : "s");
  }
  function palSelect(i) {
    if (palActive >= 0 && palList.querySelector("#pal-" + palActive)) {
      palList.querySelector("#pal-" + palActive).setAttribute("aria-selected", "false");
    }
    palActive = i;
    if (i < 0) { palQ.removeAttribute("aria-activedescendant"); return; }
    var li = palList.querySelector("#pal-" + i);
    li.setAttribute("aria-selected", "true");
    palQ.setAttribute("aria-activedescendant", li.id);
    li.scrollIntoView({ block: "nearest" });
  }
  function palRun(i) {
    var it = palItems[i];
    if (!it) return;
    pal.close();
    it.run();
  }
  function readable(uri) { try { return decodeURI(uri); } catch (e) { return uri; } }
  function go(href) { return function () { location.href = href; }; }
  function matchCmds(q) {
    q = q.toLowerCase();
    return commands.filter(function (c) { return c.name.toLowerCase().indexOf(q) >= 0; }).map(function (c) {
      return option(c.name, "", "cmd", c.run);
    });
  }
  var palSearch = debounce(function (q) {
    if (palCtl) palCtl.abort();
    palCtl = new AbortController();
    var seq = ++palSeq;
    palStatus.textContent = "Searching…";
    // Untrimmed at the end: a last word followed by a space is complete,
    // one without is still being typed (a prefix).
    var typed = palQ.value.replace(/^\s+/, "");
    api("/api/palette?q=" + encodeURIComponent(typed || q), undefined, palCtl.signal).then(function (r) {
      if (seq !== palSeq) return;
      var notes = r.notes.map(function (n) {
        return option(n.label, n.kind === "alias" ? "alias of " + n.title : n.detail, "note", go("/doc?ref=" + encodeURIComponent(n.uri)));
      });
      var hits = r.hits.map(function (h) { return option(h.title, readable(h.uri), "hit", go(h.href), h.snippet); });
      palRender([{ name: "Notes", items: notes }, { name: "In the text", items: hits }, { name: "Commands", items: matchCmds(q).slice(0, 3) }]);
    }, function (e) {
      if (e.name !== "AbortError" && seq === palSeq) palRender([{ name: "Commands", items: matchCmds(q) }], e.message);
    });
  }, 60);
  if (pal) {
    palQ.addEventListener("input", function () {
      var q = palQ.value.trim();
      if (q.charAt(0) === ">") {
        palSeq++;
        if (palCtl) palCtl.abort();
        palRender([{ name: "Commands", items: matchCmds(q.slice(1).trim()) }]);
      } else if (!q) {
        palEmpty();
      } else {
        palSearch(q);
      }
    });
    palQ.addEventListener("keydown", function (e) {
      var n = palItems.length;
      if (e.key === "ArrowDown" && n) { e.preventDefault(); palSelect((palActive + 1) % n); }
      else if (e.key === "ArrowUp" && n) { e.preventDefault(); palSelect((palActive - 1 + n) % n); }
      else if (e.key === "Enter") { e.preventDefault(); palRun(palActive); }
    });
    pal.addEventListener("close", function () { palSeq++; if (palCtl) palCtl.abort(); });
    pal.addEventListener("click", function (e) { if (e.target === pal) pal.close(); });
  }

  // Quick capture: a title (and a template) make a note, then the editor.
  var cap = $("#capture");
  function capture() {
    if (!cap) return;
    var f = $("#cap-form");
    f.reset();
    $(".error", f).hidden = true;
    loadTemplates();
    openDialog(cap);
    f.title.focus();
  }
  function loadTemplates() {
    var f = $("#cap-form"), sel = f.template;
    while (sel.options.length > 1) sel.remove(1);
    if (!f.collection.value) return;
    api("/api/templates?collection=" + encodeURIComponent(f.collection.value)).then(function (r) {
      r.templates.forEach(function (t) { var o = el("option", "", t.name); o.value = t.uri; sel.appendChild(o); });
    }, function () {});
  }
  if (cap) {
    var cf = $("#cap-form");
    cf.collection.addEventListener("change", loadTemplates);
    cf.addEventListener("submit", function (e) {
      e.preventDefault();
      var err = $(".error", cf);
      api("/api/capture", { collection: cf.collection.value, title: cf.title.value, content: cf.content.value, template: cf.template.value })
        .then(function (r) { location.href = "/edit?ref=" + encodeURIComponent(r.uri); },
          function (x) { err.textContent = x.message; err.hidden = false; });
    });
  }

  // Shortcuts.
  document.addEventListener("keydown", function (ev) {
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && (ev.key === "k" || ev.key === "K")) {
      ev.preventDefault();
      if (pal && pal.open) pal.close(); else palOpen();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target) || document.querySelector("dialog[open]")) return;
    var box = document.querySelector('form.search input[type="search"]');
    if (ev.key === "/" && box) { ev.preventDefault(); box.focus(); box.select(); }
    else if (ev.key === "?") { ev.preventDefault(); openDialog($("#help")); }
    else if ((ev.key === "n" || ev.key === "N") && cap) { ev.preventDefault(); capture(); }
    else if ((ev.key === "e" || ev.key === "E") && $("#edit-link")) { ev.preventDefault(); location.href = $("#edit-link").href; }
  });
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-cmd]");
    if (!b) return;
    var c = b.getAttribute("data-cmd");
    if (c === "palette") palOpen();
    else if (c === "theme") toggleTheme();
    else if (c === "help") openDialog($("#help"));
    else if (c === "capture") capture();
  });

  // A wide table or code block scrolls; keyboard users must reach it.
  $$(".md table, .md pre, .table-wrap, .source").forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1 && !e.hasAttribute("tabindex")) e.tabIndex = 0;
  });

  // Document: a line anchor inside a rendered block scrolls to the block.
  if (location.hash && /^#L\d+$/.test(location.hash) && !document.getElementById(location.hash.slice(1))) {
    var hit = $(".hit");
    if (hit) hit.scrollIntoView({ block: "center" });
  }

  // Search: results follow the words as they are typed; the URL keeps up,
  // and a newer keystroke cancels the request of an older one.
  var sf = $("#search"), area = $("#results-area");
  if (sf && area) {
    var sCtl = null, sSeq = 0;
    var run = function () {
      var params = new URLSearchParams(new FormData(sf));
      ["collection", "tags", "mode"].forEach(function (k) { if (!params.get(k)) params.delete(k); });
      if (params.get("mode") === "search") params.delete("mode");
      var qs = params.toString();
      history.replaceState(null, "", qs ? "/?" + qs : "/");
      if (!(params.get("q") || "").trim() && !params.get("tags")) return;
      if (sCtl) sCtl.abort();
      sCtl = new AbortController();
      var seq = ++sSeq;
      area.setAttribute("aria-busy", "true");
      params.set("fragment", "1");
      fetch("/?" + params.toString(), { signal: sCtl.signal }).then(function (r) { return r.text(); }).then(function (html) {
        if (seq !== sSeq) return;
        area.innerHTML = html; // rendered and escaped by the server's templates
        area.removeAttribute("aria-busy");
        document.title = ((params.get("q") || "").trim() || "Search") + " · gno";
      }, function () {});
    };
    var later = debounce(run, 200);
    sf.addEventListener("input", later);
    sf.addEventListener("change", later);
    sf.addEventListener("submit", function (e) { e.preventDefault(); run(); });
  }

  // Ask: stream the answer as the model writes it.
  var ask = $("#ask"), out = $("#answer");
  if (ask && out && window.EventSource) {
    ask.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var params = new URLSearchParams(new FormData(ask));
      var q = (params.get("q") || "").trim();
      if (!q) return;
      params.delete("q");
      params.set("question", q);
      if (params.get("collection") === "") params.delete("collection");
      history.replaceState(null, "", "/ask?" + new URLSearchParams(new FormData(ask)).toString());
      out.textContent = "";
      var live = el("div", "streaming");
      var status = el("p", "meta", "Searching…");
      out.appendChild(status);
      out.appendChild(live);
      var es = new EventSource("/api/ask/stream?" + params.toString());
      es.addEventListener("token", function (e) {
        status.textContent = "Writing…";
        live.textContent += JSON.parse(e.data);
      });
      es.addEventListener("done", function (e) {
        es.close();
        out.innerHTML = JSON.parse(e.data).html; // rendered and escaped by the server
      });
      es.addEventListener("error", function (e) {
        es.close();
        var msg = "The connection to gno was lost.";
        if (e.data) { try { msg = JSON.parse(e.data).error.message; } catch (_) {} }
        out.appendChild(el("p", "error", msg));
      });
    });
  }

  // Status: live job progress over server-sent events; when a job ends
  // the collection table is read again.
  var jobs = $("#jobs");
  if (jobs && window.EventSource) {
    var src = new EventSource("/api/jobs/events"), done = null;
    src.addEventListener("jobs", function (e) {
      var data = JSON.parse(e.data);
      var all = data.active.concat(data.recent);
      jobs.textContent = "";
      if (!all.length) jobs.appendChild(el("li", "empty", "No jobs yet."));
      all.forEach(function (j) {
        var li = el("li", "job job-" + j.status, j.type + " " + (j.collections || []).join(", ") + " — " + j.status);
        if (j.progress && j.status === "running") {
          var p = el("progress");
          p.max = j.progress.total || 1;
          p.value = j.progress.done;
          p.setAttribute("aria-label", j.type + " progress");
          li.appendChild(document.createTextNode(" " + j.progress.collection + " " + j.progress.done + "/" + j.progress.total + " "));
          li.appendChild(p);
        }
        if (j.error) li.appendChild(el("span", "bad", " " + j.error.message));
        jobs.appendChild(li);
      });
      // A job that finished since the page loaded changed the table.
      var fresh = false, now = {};
      data.recent.forEach(function (j) { now[j.jobId] = true; if (done && !done[j.jobId]) fresh = true; });
      done = now;
      if (fresh) refreshTable();
    });
  }
  function refreshTable() {
    fetch("/status").then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.querySelector(".table-wrap"), old = $(".table-wrap");
      if (fresh && old) { old.replaceWith(fresh); bindPosts(fresh); }
    });
  }

  // Write buttons (only rendered with --enable-write). data-confirm asks
  // a second click.
  function bindPosts(root) {
    $$("button[data-post]", root).forEach(function (b) {
      b.addEventListener("click", function () {
        var ask = b.getAttribute("data-confirm");
        if (ask && !b.classList.contains("armed")) {
          b.classList.add("armed");
          b.dataset.label = b.textContent;
          b.textContent = ask + " Click again";
          setTimeout(function () { b.classList.remove("armed"); b.textContent = b.dataset.label; }, 5000);
          return;
        }
        var body = {};
        if (b.dataset.collection) body.collection = b.dataset.collection;
        b.disabled = true;
        api(b.dataset.post, body).then(function () {
          toast(b.dataset.label || b.textContent.trim() + " started");
          if (b.dataset.post.indexOf("remove") > 0) refreshTable();
        }, function (e) { toast(e.message, true); }).then(function () { b.disabled = false; });
      });
    });
  }
  bindPosts(document);
  var addCol = $("#add-col");
  if (addCol) addCol.addEventListener("submit", function (e) {
    e.preventDefault();
    var err = $(".error", addCol);
    err.hidden = true;
    api("/api/collections", { path: addCol.path.value, name: addCol.name.value }).then(function (r) {
      toast("Added " + r.collection.name + "; indexing");
      addCol.reset();
    }, function (x) { err.textContent = x.message; err.hidden = false; });
  });

  // Folder tree: folders open and close in place (their subfolders are
  // fetched when first opened); arrow keys move between folders.
  var tree = $("#tree");
  if (tree) {
    var toggle = function (btn, open) {
      var li = btn.closest("li");
      var name = li.querySelector("a").textContent;
      btn.setAttribute("aria-expanded", String(open));
      btn.setAttribute("aria-label", (open ? "Collapse " : "Expand ") + name);
      var ul = li.querySelector(":scope > ul");
      if (ul) { ul.hidden = !open; return; }
      if (!open) return;
      var q = "collection=" + encodeURIComponent(li.dataset.c) + "&depth=1";
      if (li.dataset.path) q += "&dir=" + encodeURIComponent(li.dataset.path);
      api("/api/tree?" + q).then(function (r) {
        var kids = el("ul");
        (r.folders[0].folders || []).forEach(function (f) { kids.appendChild(folderItem(f)); });
        li.appendChild(kids);
      }, function (e) { toast(e.message, true); });
    };
    var folderItem = function (f) {
      var li = el("li");
      li.dataset.c = f.collection;
      li.dataset.path = f.path;
      var row = el("div", "trow");
      if (f.folders) {
        var b = el("button", "tw");
        b.type = "button";
        b.setAttribute("aria-expanded", "false");
        b.setAttribute("aria-label", "Expand " + f.name);
        row.appendChild(b);
      } else row.appendChild(el("span", "tw-pad"));
      var a = el("a", "", f.name);
      a.href = "/browse?c=" + encodeURIComponent(f.collection) + (f.path ? "&dir=" + encodeURIComponent(f.path) : "");
      row.appendChild(a);
      row.appendChild(document.createTextNode(" "));
      row.appendChild(el("span", "count", String(f.count)));
      li.appendChild(row);
      return li;
    };
    tree.addEventListener("click", function (e) {
      var b = e.target.closest(".tw");
      if (b) toggle(b, b.getAttribute("aria-expanded") !== "true");
    });
    tree.addEventListener("keydown", function (e) {
      if (!/^Arrow/.test(e.key) || !e.target.closest(".trow")) return;
      var links = $$("a", tree).filter(function (a) { return a.offsetParent !== null; });
      var row = e.target.closest(".trow"), a = $("a", row), i = links.indexOf(a);
      var btn = $(".tw", row), open = btn && btn.getAttribute("aria-expanded") === "true";
      e.preventDefault();
      if (e.key === "ArrowDown" && i < links.length - 1) links[i + 1].focus();
      else if (e.key === "ArrowUp" && i > 0) links[i - 1].focus();
      else if (e.key === "ArrowRight" && btn && !open) toggle(btn, true);
      else if (e.key === "ArrowLeft") {
        if (open) toggle(btn, false);
        else { var up = row.parentNode.parentNode.closest("li"); if (up) $("a", up).focus(); }
      }
    });
  }
  // A note's local graph: the graph view's modules and style sheet are
  // fetched once the slot nears the screen, so the page itself does not
  // wait for (or pay for) them.
  var lg = $("#local-graph");
  if (lg && window.IntersectionObserver) {
    var focusID = lg.getAttribute("data-focus");
    var box = el("div", "gno-graph");
    box.setAttribute("data-src", "/api/graph/scene?focus=" + encodeURIComponent(focusID) + "&depth=3");
    box.setAttribute("data-focus", focusID);
    box.setAttribute("data-depth", "1");
    box.setAttribute("data-controls", "local");
    lg.appendChild(box);
    lg.hidden = false;
    var io = new IntersectionObserver(function (entries) {
      if (!entries.some(function (e) { return e.isIntersecting; })) return;
      io.disconnect();
      var css = el("link");
      css.rel = "stylesheet";
      css.href = "/assets/graph.css";
      document.head.appendChild(css);
      import("/assets/graph/main.js");
    }, { rootMargin: "200px" });
    io.observe(lg);
  }
  document.documentElement.setAttribute("data-ready", "");
})();

// gno web app: small progressive enhancements. Every page works without
// this file; it adds streaming answers, live job progress and write
// buttons. No framework, no build step.
(function () {
  "use strict";
  var csrf = (document.querySelector('meta[name="gno-csrf"]') || {}).content || "";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // "/" focuses the search box.
  document.addEventListener("keydown", function (ev) {
    var box = document.querySelector('form.search input[type="search"]');
    if (ev.key === "/" && box && document.activeElement !== box) {
      ev.preventDefault();
      box.focus();
      box.select();
    }
  });

  // Document: a line anchor inside a rendered block scrolls to the block.
  if (location.hash && !document.getElementById(location.hash.slice(1))) {
    var hit = document.querySelector(".hit");
    if (hit) hit.scrollIntoView({ block: "center" });
  }

  // Ask: stream the answer as the model writes it.
  var ask = document.getElementById("ask");
  var out = document.getElementById("answer");
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

  // Status: live job progress over server-sent events.
  var jobs = document.getElementById("jobs");
  if (jobs && window.EventSource) {
    var src = new EventSource("/api/jobs/events");
    src.addEventListener("jobs", function (e) {
      var data = JSON.parse(e.data);
      var all = data.active.concat(data.recent);
      jobs.textContent = "";
      if (!all.length) jobs.appendChild(el("li", "empty", "No jobs yet."));
      all.forEach(function (j) {
        var li = el("li", "job", j.type + " " + (j.collections || []).join(", ") + " — " + j.status);
        if (j.progress && j.status === "running") {
          var p = el("progress");
          p.max = j.progress.total || 1;
          p.value = j.progress.done;
          li.appendChild(document.createTextNode(" " + j.progress.collection + " " + j.progress.done + "/" + j.progress.total + " "));
          li.appendChild(p);
        }
        if (j.error) li.appendChild(el("span", "bad", " " + j.error.message));
        jobs.appendChild(li);
      });
    });
  }

  // Write buttons (only rendered with --enable-write).
  document.querySelectorAll("button[data-post]").forEach(function (b) {
    b.addEventListener("click", function () {
      var body = {};
      if (b.dataset.collection) body.collection = b.dataset.collection;
      b.disabled = true;
      fetch(b.dataset.post, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Gno-Csrf": csrf },
        body: JSON.stringify(body)
      }).then(function (r) { return r.json(); }).then(function (r) {
        if (r.error) alert(r.error.message);
      }).finally(function () { b.disabled = false; });
    });
  });
})();

// Runs before the page paints (not deferred): applies the theme the user
// chose, so a dark page never flashes light. No choice: the system's.
(function () {
  var t = null;
  try { t = localStorage.getItem("gno-theme"); } catch (e) {}
  var d = document.documentElement;
  if (t === "dark" || t === "light") d.setAttribute("data-theme", t);
  d.className += " js";
})();

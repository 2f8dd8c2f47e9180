// adcab panel: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";
  // Stored times are UTC; show them in the browser's own time zone, in the page's language,
  // unless the server already wrote them in the person's chosen zone (data-zoned).
  var fmt = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"
  });
  function localTimes(root) {
    root.querySelectorAll("time[datetime]:not([data-zoned])").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d)) { t.title = t.textContent; t.textContent = fmt.format(d); }
    });
  }
  // A checkbox with data-select-all ticks every checkbox named by its value.
  function selectAll(root) {
    root.querySelectorAll("input[data-select-all]").forEach(function (box) {
      box.addEventListener("change", function () {
        document.querySelectorAll("input[name='" + box.dataset.selectAll + "']").forEach(function (c) {
          c.checked = box.checked;
        });
      });
    });
  }
  function enhance(root) { localTimes(root); selectAll(root); }
  document.addEventListener("DOMContentLoaded", function () { enhance(document); });
  document.addEventListener("htmx:afterSwap", function (e) { enhance(e.target); });
})();

// The campaigns list: a row's form (switch, budget, bid) swaps only its row when the action
// succeeds; a refused or failed one shows the page the server answered in place of the list.
document.addEventListener("htmx:beforeSwap", function (e) {
  var form = e.detail.elt;
  if (!form || !form.closest || !form.closest("table.campaign-list")) { return; }
  if (e.detail.xhr.status >= 400) {
    e.detail.shouldSwap = true;
    e.detail.isError = false;
    e.detail.target = document.querySelector("main");
    e.detail.selectOverride = "main";
  }
});

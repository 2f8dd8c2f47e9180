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

// New campaign (/campaigns/new): show the targeting of the chosen target type, count the
// text's characters against the platform's limit, filter the pickers, add a looked-up channel
// or bot to its list, and draw search keywords as chips. The form works without this.
(function () {
  "use strict";
  function byType(form) {
    var select = form.querySelector("select[data-target-type]");
    if (!select) { return; }
    var show = function () {
      var type = select.value;
      form.querySelectorAll(".for-type[data-for]").forEach(function (el) {
        el.hidden = el.dataset.for.split(" ").indexOf(type) < 0;
      });
      form.querySelectorAll("select[name=placement] option[data-for]").forEach(function (o) {
        o.hidden = o.disabled = o.dataset.for.split(" ").indexOf(type) < 0;
      });
      form.querySelectorAll(".types-note").forEach(function (n) { n.hidden = true; });
    };
    select.addEventListener("change", show);
    show();
  }
  function counter(form) {
    form.querySelectorAll("textarea[data-limit]").forEach(function (area) {
      var out = form.querySelector("output.count[data-for='" + area.name + "']");
      if (!out) { return; }
      var limit = parseInt(area.dataset.limit, 10);
      var update = function () {
        var n = Array.from(area.value).length;
        out.textContent = n + " / " + limit;
        out.classList.toggle("over", n > limit);
      };
      area.addEventListener("input", update);
      update();
    });
  }
  function filters(form) {
    form.querySelectorAll("input[data-filter]").forEach(function (box) {
      var select = form.querySelector("select[name='" + box.dataset.filter + "']");
      if (!select) { return; }
      box.addEventListener("input", function () {
        var q = box.value.trim().toLowerCase();
        Array.from(select.options).forEach(function (o) {
          o.hidden = q !== "" && !o.selected && o.textContent.toLowerCase().indexOf(q) < 0;
        });
      });
    });
  }
  function chips(form) {
    form.querySelectorAll("input[data-chips]").forEach(function (input) {
      var box = document.getElementById(input.dataset.chips);
      if (!box) { return; }
      input.addEventListener("input", function () {
        box.textContent = "";
        input.value.split(",").map(function (s) { return s.trim(); }).filter(Boolean).forEach(function (k) {
          var chip = document.createElement("span");
          chip.className = "chip";
          chip.textContent = k;
          box.appendChild(chip);
        });
      });
    });
  }
  // The hints that follow the cabinet (its currency, the minimum bid and budget, whether its
  // ads have a button) are carried by each cabinet's option; choosing another swaps them.
  function cabinetHints(form) {
    var select = form.querySelector("select[data-cabinet]");
    if (!select) { return; }
    select.addEventListener("change", function () {
      var o = select.options[select.selectedIndex];
      if (!o) { return; }
      form.querySelectorAll(".currency").forEach(function (c) { c.textContent = o.dataset.currency; });
      var min = form.querySelector("#cpm-min");
      if (min) { min.textContent = o.dataset.cpmMin; min.hidden = !o.dataset.cpmMin; }
      var budget = form.querySelector("#budget-help");
      if (budget) { budget.textContent = o.dataset.budgetHelp; }
      form.querySelectorAll(".button-field").forEach(function (b) { b.hidden = o.dataset.button !== "true"; });
    });
  }
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("button[data-add]");
    if (!button) { return; }
    var list = document.querySelector("#new-campaign textarea[name='" + button.dataset.to + "']");
    if (!list) { return; }
    var entries = list.value.split(/[\n,]/).map(function (s) { return s.trim(); }).filter(Boolean);
    if (entries.indexOf(button.dataset.add) < 0) { entries.push(button.dataset.add); }
    list.value = entries.join("\n");
    button.disabled = true;
  });
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("new-campaign");
    if (!form) { return; }
    byType(form); counter(form); filters(form); chips(form); cabinetHints(form);
  });
})();

// New campaign: a chosen picture or video shows at once and is uploaded for the chosen
// cabinet; the answer's token fills the form's media field.
(function () {
  "use strict";
  document.addEventListener("change", function (e) {
    var input = e.target;
    if (!input.matches || !input.matches("#new-campaign input[type=file][data-upload]")) { return; }
    var form = input.form, file = input.files && input.files[0];
    var shown = document.getElementById("media-preview");
    if (!file || !shown) { return; }
    shown.textContent = "";
    var media = document.createElement(file.type.indexOf("video/") === 0 ? "video" : "img");
    media.src = URL.createObjectURL(file);
    media.className = "media-shown";
    if (media.tagName === "VIDEO") { media.muted = true; media.controls = true; }
    shown.appendChild(media);
    var status = document.createElement("p");
    status.className = "muted";
    status.textContent = input.dataset.sending;
    shown.appendChild(status);
    var account = form.querySelector("[name=account_id]").value;
    var csrf = form.querySelector("input[name=csrf]").value;
    fetch(input.dataset.upload + "?account_id=" + encodeURIComponent(account), {
      method: "POST", body: file, credentials: "same-origin",
      headers: { "x-csrf-token": csrf, "content-type": "application/octet-stream" }
    }).then(function (r) { return r.text(); }).then(function (html) {
      var answer = document.createElement("div");
      answer.innerHTML = html;
      var kept = answer.querySelector("[data-token]");
      if (kept) { form.querySelector("input[name='" + input.dataset.tokenTo + "']").value = kept.dataset.token; }
      status.className = kept ? "muted" : "error";
      status.textContent = answer.textContent.trim();
    });
  });
})();
// The campaigns list: a row's form (switch, budget, bid) swaps only its row when the action
// succeeds or is refused (the refusal in the row); a failed one shows the page the server
// answered in place of the list.
document.addEventListener("htmx:beforeSwap", function (e) {
  var form = e.detail.elt;
  if (!form || !form.closest || !form.closest("table.campaign-list")) { return; }
  // A refusal of the row's own form comes back as the list with the sentence in that row:
  // swap the row alone, as on success.
  var row = form.closest("tr");
  if (e.detail.xhr.status === 422 && row && row.id &&
      e.detail.serverResponse.indexOf('id="' + row.id + '"') >= 0) {
    e.detail.shouldSwap = true;
    e.detail.isError = false;
    return;
  }
  if (e.detail.xhr.status >= 400) {
    e.detail.shouldSwap = true;
    e.detail.isError = false;
    e.detail.target = document.querySelector("main");
    e.detail.selectOverride = "main";
  }
});

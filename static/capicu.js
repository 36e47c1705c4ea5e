// capicu: the little the pages need beyond htmx. Plain script, no build step.
(function () {
  "use strict";
  if (window.htmx) {
    htmx.config.timeout = 15000;          // a phone on a bad connection: give up and say so
    htmx.config.historyCacheSize = 0;
  }
  function banner(text) {
    var el = document.getElementById("connection");
    if (!el) return;
    el.textContent = text;
    el.hidden = !text;
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var token = document.querySelector('meta[name="csrf-token"]');
    if (token) event.detail.headers["X-CSRFToken"] = token.content;
  });
  function failed(event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (form && form.dataset.saves) {
      banner("Not confirmed: the connection failed. Press “" + form.dataset.saves +
        "” again — it will not be counted twice.");
    } else if (event.detail.requestConfig && event.detail.requestConfig.verb !== "get") {
      banner("Not confirmed: the connection failed. Try again — nothing is counted twice.");
    } else {
      banner("Live updates paused: no connection. They resume by themselves.");
    }
  }
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:timeout", failed);
  document.addEventListener("htmx:responseError", function (event) {
    banner("The server could not answer (" + event.detail.xhr.status + "). Try again.");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // A preview answering does not mean the hand was saved: only a write clears the warning.
    var quiet = event.detail.elt && event.detail.elt.hasAttribute("data-quiet");
    if (event.detail.successful && !quiet) banner("");
  });
  // "updated 4 s ago" keeps counting between refreshes.
  var spanish = (document.documentElement.lang || "").slice(0, 2) === "es";
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-ago]").forEach(function (el) {
      var seconds = Math.max(0, Math.round((now - Date.parse(el.getAttribute("datetime"))) / 1000));
      var span = seconds < 90 ? seconds + " s"
        : seconds < 5400 ? Math.round(seconds / 60) + " min"
        : Math.round(seconds / 3600) + " h";
      el.textContent = spanish ? "hace " + span : span + " ago";
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:afterSwap", tick);
  // The player who dominoed holds no pips: fill in the 0 for the referee.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.name !== "ending") return;
    var form = input.form;
    var pips = form.querySelector('[name="pips_' + input.value + '"]');
    if (pips && pips.value === "") pips.value = "0";
  });
})();
// A stage form shows the options of the chosen format only (all of them without script);
// an option with an error stays in view.
(function () {
  "use strict";
  function fit(form) {
    var chosen = form.querySelector('[name="format"]').value;
    form.querySelectorAll("[data-formats]").forEach(function (box) {
      var wanted = box.getAttribute("data-formats").split(" ").indexOf(chosen) >= 0;
      box.hidden = !wanted && !box.querySelector(".has-error");
    });
  }
  function each() { document.querySelectorAll("form[data-stage-form]").forEach(fit); }
  document.addEventListener("DOMContentLoaded", each);
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    if (event.target.name === "format" && form && form.hasAttribute("data-stage-form")) fit(form);
  });
})();

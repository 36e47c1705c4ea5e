// capicu: the little the pages need beyond htmx. Plain script, no build step.
(function () {
  "use strict";
  if (window.htmx) {
    htmx.config.timeout = 15000;          // a phone on a bad connection: give up and say so
    htmx.config.historyCacheSize = 0;
  }
  // A failure is said at once (role="alert"); live updates pausing, politely.
  function banner(text, quiet) {
    [["connection", !quiet], ["connection-paused", quiet]].forEach(function (which) {
      var el = document.getElementById(which[0]);
      if (!el) return;
      el.textContent = which[1] ? text : "";
      el.hidden = !(which[1] && text);
    });
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var token = document.querySelector('meta[name="csrf-token"]');
    if (token) event.detail.headers["X-CSRFToken"] = token.content;
  });
  // The messages come in the page's language from the banner's data- attributes.
  function words(name, values) {
    var el = document.getElementById("connection");
    var text = (el && el.dataset[name]) || "";
    return text.replace(/\{(\w+)\}/g, function (whole, key) {
      return values && key in values ? values[key] : whole;
    });
  }
  function failed(event) {
    var elt = event.detail.elt;
    var form = elt && elt.closest && elt.closest("form");
    if (elt && elt.hasAttribute && elt.hasAttribute("data-quiet")) {
      // A preview: say it where it shows, without a banner that would push the page down.
      elt.textContent = words("previewOffline");
    } else if (form && form.dataset.saves) {
      banner(words("formFailed", { button: form.dataset.saves }));
    } else if (event.detail.requestConfig && event.detail.requestConfig.verb !== "get") {
      banner(words("writeFailed"));
    } else {
      banner(words("paused"), true);
    }
  }
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:timeout", failed);
  document.addEventListener("htmx:responseError", function (event) {
    banner(words("serverError", { status: event.detail.xhr.status }));
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // A preview answering does not mean the hand was saved: only a write clears the warning.
    var quiet = event.detail.elt && event.detail.elt.hasAttribute("data-quiet");
    if (event.detail.successful && !quiet) banner("");
  });
  // The tournament page's live parts: pushed by the server (Server-Sent Events, read with
  // fetch so that a refusal's status and Retry-After are seen) where it streams them (the
  // poller's data-events); the poll every 5 s is the fallback and is held while a stream
  // is open. The server ends a stream every few minutes: the page opens the next one with
  // the tags it then holds. A server that streams nothing (204) is not asked again; one
  // that has too many streams (429, 503) is asked again after its Retry-After.
  var streaming = false, tries = 0;
  function follow() {
    var live = document.getElementById("live");
    if (!live || !live.dataset.events || !window.fetch || !window.TextDecoder) return;
    if (!window.htmx) return;
    fetch(live.dataset.events, { headers: { Accept: "text/event-stream" }, cache: "no-store" })
      .then(function (response) {
        if (response.status === 429 || response.status === 503) {
          var wait = parseInt(response.headers.get("Retry-After"), 10);
          setTimeout(follow, (wait > 0 ? wait : 60) * 1000 * (1 + Math.random() / 2));
          return "refused";
        }
        if (response.status === 204) return "refused";
        if (response.status !== 200 || !response.body) return "failed";
        streaming = true;
        tries = 0;
        return read(response.body.getReader());
      })
      .catch(function () { return "failed"; })
      .then(function (how) {
        streaming = false;
        if (how === "ended") follow();
        // A stream that broke or never opened: again in a few seconds, twice at most
        // in a row; the poll carries on meanwhile.
        else if (how === "failed" && ++tries <= 2) setTimeout(follow, 2000 + Math.random() * 3000);
      });
  }
  // The stream's events, each handed on as it completes: "ended" at its end event,
  // "failed" if the connection drops first.
  function read(reader) {
    var decoder = new TextDecoder(), held = "";
    function next() {
      return reader.read().then(function (got) {
        if (got.done) return "failed";
        held += decoder.decode(got.value, { stream: true });
        var blocks = held.split("\n\n");
        held = blocks.pop();
        for (var i = 0; i < blocks.length; i++) {
          if (take(blocks[i]) === "end") {
            reader.cancel();
            return "ended";
          }
        }
        return next();
      });
    }
    return next();
  }
  function take(block) {
    var kind = "message", data = [];
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event: ") === 0) kind = line.slice(7);
      else if (line.indexOf("data: ") === 0) data.push(line.slice(6));
    });
    if (kind === "live") {
      var current = document.getElementById("live");
      if (current) htmx.swap(current, data.join("\n"), { swapStyle: "outerHTML" });
      banner("");
    }
    return kind;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (streaming && event.detail.elt && event.detail.elt.id === "live") event.preventDefault();
  });
  document.addEventListener("DOMContentLoaded", follow);
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
  // Logging out forgets the referee's kept copy of the scoring pages (referee-sw.js).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!window.caches || !form.matches || !form.matches("form[action$='/logout/']")) return;
    event.preventDefault();
    caches.delete("capicu-referee-1").catch(function () {}).then(function () { form.submit(); });
  });
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
// A stage's name follows its format until the organizer types a name of their own.
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var chosen = event.target;
    if (!chosen.form || (chosen.name !== "format" && chosen.name !== "stage_format")) return;
    var name = chosen.form.querySelector("[data-format-names]");
    if (!name) return;
    var names = JSON.parse(name.getAttribute("data-format-names"));
    var given = name.value.trim();
    var said = Object.keys(names).some(function (key) { return names[key] === given; });
    if ((!given || said) && names[chosen.value]) name.value = names[chosen.value];
  });
})();
// A confirmation's "Cancel" closes the panel it is in: nothing was sent, nothing changed.
// A part answered in place (data-stay) leaves the page scrolled where it was: the
// organizer stays on the row they acted on.
(function () {
  "use strict";
  var kept = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    kept = target && target.hasAttribute && target.hasAttribute("data-stay") ? window.scrollY : null;
  });
  function stay() { if (kept !== null) window.scrollTo(window.scrollX, kept); }
  document.addEventListener("htmx:afterSwap", stay);
  document.addEventListener("htmx:afterSettle", function () { stay(); kept = null; });
  document.addEventListener("click", function (event) {
    var cancel = event.target.closest && event.target.closest("[data-cancel]");
    var panel = cancel && cancel.closest("details");
    if (!panel) return;
    panel.open = false;
    panel.querySelector("summary").focus({ preventScroll: true });
  });
})();
// The ladder floor refreshes every 10 s, but not over a forfeit being filled in: an open
// panel there keeps its reason and its ticked box until it is sent or closed.
document.addEventListener("htmx:beforeRequest", function (event) {
  var part = event.detail.elt;
  if (part && part.id === "floor" && part.querySelector("details[open]")) event.preventDefault();
});

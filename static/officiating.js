// capicu: the play clock and the officiating parts of the scoring page. The clock runs
// here, on the phone: no request per tick. Plain script, no build step.
(function () {
  "use strict";
  var timer = null;
  var endsAt = 0;

  function clockBox() { return document.getElementById("clock"); }

  function seatSelect() { return document.getElementById("clock-seat"); }

  function show(left) {
    var box = clockBox();
    if (!box) return;
    var out = document.getElementById("clock-left");
    var warning = document.getElementById("clock-warning");
    var violation = document.getElementById("clock-violation");
    if (out) out.textContent = String(left);
    box.classList.toggle("clock-warn", left > 0 && left <= 5);
    box.classList.toggle("clock-zero", left === 0);
    if (warning) warning.hidden = left !== 0;
    if (violation) violation.classList.toggle("attention", left === 0);
  }

  function tick() {
    var left = Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
    show(left);
    if (left === 0) {
      clearInterval(timer);
      timer = null;
      var violation = document.getElementById("clock-violation");
      if (violation) violation.focus();
    }
  }

  // The next seat in the order of play: each new play moves the clock to it.
  function nextSeat(first) {
    var select = seatSelect();
    if (!select || first) return;
    select.selectedIndex = (select.selectedIndex + 1) % select.options.length;
  }

  document.addEventListener("click", function (event) {
    var start = event.target.closest && event.target.closest("#clock-start");
    if (!start) return;
    var box = clockBox();
    var seconds = parseInt(box.getAttribute("data-seconds"), 10) || 30;
    nextSeat(!start.hasAttribute("data-started"));
    start.setAttribute("data-started", "");
    start.textContent = start.getAttribute("data-again");
    endsAt = Date.now() + seconds * 1000;
    if (timer) clearInterval(timer);
    timer = setInterval(tick, 250);
    tick();
  });

  // After a violation, forced pass or penalty the clock part is new: stop the old count
  // and keep the seat to play and the started clock where the referee left them.
  var kept = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var select = seatSelect();
    var start = document.getElementById("clock-start");
    if (event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("#clock")) {
      kept = {
        seat: select ? select.value : "",
        started: !!(start && start.hasAttribute("data-started"))
      };
    }
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "clock") return;
    if (timer) { clearInterval(timer); timer = null; }
    var box = clockBox();
    if (!box || !kept) return;
    var select = seatSelect();
    if (select && kept.seat) select.value = kept.seat;
    var start = document.getElementById("clock-start");
    if (start && kept.started) {
      start.setAttribute("data-started", "");
      start.textContent = start.getAttribute("data-again");
    }
    kept = null;
  });
  // An officiating act changes the totals and the hand's events: the scoring panel
  // shows them afresh (the server says so with the HX-Trigger "capicu:officiated").
  document.addEventListener("capicu:officiated", refreshPanel);
  function refreshPanel() {
    var panel = document.getElementById("panel");
    if (!panel || !window.htmx) return;
    htmx.ajax("GET", window.location.pathname, {target: "#panel", select: "#panel", swap: "outerHTML"});
  }
})();

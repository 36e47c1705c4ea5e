// The round clock: every element with data-deadline counts down to that moment on the
// device's own clock, so nothing is asked of the server while it ticks. Parts swapped in
// by live updates (or read back from the offline copy) are found again at the next tick.
(function () {
  "use strict";
  if (window.capicuRoundClock) return;  // one ticker, however many pages include it
  window.capicuRoundClock = true;
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function text(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    return (hours ? hours + ":" + two(minutes) : String(minutes)) + ":" + two(seconds % 60);
  }
  function show(box, selector, on) {
    box.querySelectorAll(selector).forEach(function (el) { el.hidden = !on; });
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-deadline]").forEach(function (box) {
      var deadline = Date.parse(box.getAttribute("data-deadline"));
      if (isNaN(deadline)) return;
      var left = Math.max(0, Math.ceil((deadline - now) / 1000));
      box.querySelectorAll("[data-left]").forEach(function (out) {
        var shown = text(left);
        if (out.textContent !== shown) out.textContent = shown;
      });
      var called = left === 0;
      if (box.classList.contains("called") !== called || box.dataset.ticked !== "1") {
        box.dataset.ticked = "1";
        box.classList.toggle("called", called);
        show(box, "[data-when-called]", called);
        show(box, "[data-when-running]", !called);
      }
    });
  }
  tick();
  window.setInterval(tick, 1000);
  document.addEventListener("htmx:afterSwap", tick);
})();

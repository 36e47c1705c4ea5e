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
    var violation = document.getElementById("clock-violation");
    if (out) out.textContent = String(left);
    box.classList.toggle("clock-warn", left > 0 && left <= 5);
    box.classList.toggle("clock-zero", left === 0);
    if (violation) violation.classList.toggle("attention", left === 0);
    // Said once, politely, when the time runs out: the ticking figure itself is silent.
    var warning = document.getElementById("clock-warning");
    var said = left === 0 ? warning && warning.getAttribute("data-text") : "";
    if (warning && warning.textContent !== said) warning.textContent = said;
  }

  function tick() {
    var left = Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
    show(left);
    if (left === 0) {
      clearInterval(timer);
      timer = null;
      var violation = document.getElementById("clock-violation");
      if (violation) violation.focus({ preventScroll: true });
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

  // The clock's part is never replaced: its buttons go through the phone's outbox
  // (referee.js) and the answer replaces the scoring panel only. When the panel shows a
  // new hand, the clock waits for its first play again, with the seat that leads it; when
  // the leader question is answered, the clock's seat follows before the first play.
  var shownHand = null;
  var shownLeader = null;
  document.addEventListener("capicu:panel", function (event) {
    var panel = event.detail && event.detail.panel;
    var select = seatSelect();
    var start = document.getElementById("clock-start");
    if (!panel || !select) return;
    var hand = panel.getAttribute("data-hand");
    var leading = panel.querySelector("#leader-question");
    var leader = leading ? leading.getAttribute("data-leader") : "";
    var newHand = shownHand !== null && hand !== shownHand;
    shownHand = hand;
    if (newHand && start) {
      if (timer) { clearInterval(timer); timer = null; }
      start.removeAttribute("data-started");
      start.textContent = start.getAttribute("data-first");
      show(parseInt(clockBox().getAttribute("data-seconds"), 10) || 30);
    }
    var started = start && start.hasAttribute("data-started");
    // The menu follows a new leader (a new hand, the leader question answered); any other
    // answer (a penalty, a forced pass) leaves the seat the referee chose.
    var newLeader = leader !== shownLeader;
    shownLeader = leader;
    if (leader && (newHand || (newLeader && !started))) select.value = leader;
  });
  var first = document.getElementById("clock-start");
  if (first) first.setAttribute("data-first", first.textContent);
  var panel = document.getElementById("panel");
  if (panel) shownHand = panel.getAttribute("data-hand");
  var leading = document.getElementById("leader-question");
  shownLeader = leading ? leading.getAttribute("data-leader") : "";
})();

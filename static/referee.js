// The referee's scoring page: every action goes through an outbox kept in the browser,
// so a tap without a connection is kept (across a reload) and sent later, in order, with
// the same idempotency key; the outcome shows in a bar fixed by the thumb; the panel is
// replaced in place so the buttons never move. Plain script, no build step.
(function () {
  "use strict";
  var root = document.getElementById("referee");
  if (!root) return;
  var words = JSON.parse(document.getElementById("referee-words").textContent);
  var bar = document.getElementById("referee-bar");
  var line = bar.querySelector("[data-bar-line]");
  var outboxBox = bar.querySelector("[data-outbox]");
  var STORE = "capicu-outbox:" + root.dataset.user + ":" + root.dataset.game;
  var FLASH = "capicu-flash:" + root.dataset.game;
  var PANEL = root.dataset.panel || "panel";  // what an answer replaces on this page
  var sending = false;
  var retryIn = 0;
  var retryTimer = null;

  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
  }
  function freshKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }
  function load() {
    try { return JSON.parse(localStorage.getItem(STORE)) || []; } catch (e) { return []; }
  }
  function store(list) {
    try { localStorage.setItem(STORE, JSON.stringify(list)); } catch (e) { /* full: keep in memory */ }
  }
  function panel() { return document.getElementById(PANEL); }

  // --- the bar ---------------------------------------------------------------------------
  var heard = document.getElementById("referee-said");  // the bar's words, for screen readers
  function say(text, state) {
    line.textContent = text;
    if (heard) heard.textContent = text;
    bar.classList.remove("saving", "saved", "waiting", "refused");
    if (state) bar.classList.add(state);
  }
  function showOutbox() {
    var list = load();
    outboxBox.hidden = list.length === 0;
    if (!list.length) return;
    if (!/saving|saved|waiting|refused/.test(bar.className)) bar.classList.add("waiting");
    outboxBox.querySelector("[data-outbox-count]").textContent = list.length === 1
      ? words.waiting_one : fill(words.waiting_many, { count: list.length });
    var items = outboxBox.querySelector("[data-outbox-list]");
    items.textContent = "";
    list.forEach(function (entry) {
      var li = document.createElement("li");
      li.textContent = entry.label;
      items.appendChild(li);
    });
  }

  // --- the panel ------------------------------------------------------------------------
  // The hand being filled in and which sections are open survive the panel's replacement.
  function remember(old) {
    var kept = { open: {}, fields: null };
    old.querySelectorAll("details[id]").forEach(function (d) { kept.open[d.id] = d.open; });
    var form = old.querySelector("#hand-form");
    if (form) {
      kept.number = form.elements.number && form.elements.number.value;
      kept.fields = [];
      Array.prototype.forEach.call(form.elements, function (el) {
        if (!el.name || el.type === "hidden" || el.type === "submit") return;
        kept.fields.push({ name: el.name, type: el.type, value: el.value, checked: el.checked });
      });
    }
    return kept;
  }
  function restore(fresh, kept) {
    Object.keys(kept.open).forEach(function (id) {
      var d = fresh.querySelector("#" + id);
      if (d) d.open = kept.open[id];
    });
    var form = fresh.querySelector("#hand-form");
    if (!form || !kept.fields || !form.elements.number ||
        form.elements.number.value !== kept.number) return;
    kept.restored = kept.fields.some(function (f) { return f.value !== "" && (f.checked || (f.type !== "radio" && f.type !== "checkbox")); });
    kept.fields.forEach(function (f) {
      var els = form.querySelectorAll('[name="' + f.name + '"]');
      els.forEach(function (el) {
        if (f.type === "radio" || f.type === "checkbox") {
          if (el.value === f.value) el.checked = f.checked;
        } else if (f.value !== "" && el.value === "") {
          el.value = f.value;
        }
      });
    });
  }
  // The server's answer: the part this page shows, and what it says of the action.
  function parse(html) {
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var said = holder.querySelector("[data-notice], [data-error]");
    return {
      holder: holder,
      notice: (said && said.dataset.notice) || "",
      error: (said && said.dataset.error) || ""
    };
  }
  // A keyboard user's place survives the panel's replacement too: the control that had
  // the focus has it again (found by its id, its label, its form, or else its place among
  // the panel's controls), so that the next Tab goes on from there, not from the top.
  var CONTROLS = "a[href], button, input:not([type=hidden]), select, textarea, summary";
  function focusedIn(old) {
    var active = document.activeElement;
    if (!active || active === old || !old.contains(active)) return null;
    return {
      id: active.id,
      label: active.getAttribute("aria-label") || "",
      form: active.form && active.form.id ? active.form.id : "",
      tag: active.tagName,
      name: active.name || "",
      value: active.tagName === "BUTTON" ? active.value : "",
      index: Array.prototype.indexOf.call(old.querySelectorAll(CONTROLS), active)
    };
  }
  function refocus(fresh, at) {
    if (!at) return;
    var controls = Array.prototype.slice.call(fresh.querySelectorAll(CONTROLS));
    function first(test) { return controls.filter(test)[0]; }
    var el = (at.id && first(function (c) { return c.id === at.id; })) ||
      (at.label && first(function (c) { return c.getAttribute("aria-label") === at.label; })) ||
      (at.form && first(function (c) {
        return c.form && c.form.id === at.form && c.tagName === at.tag && (c.name || "") === at.name &&
          (c.tagName !== "BUTTON" || c.value === at.value);
      })) || controls[at.index];
    if (el) el.focus({ preventScroll: true });
  }
  function swap(answer) {
    var old = panel();
    var fresh = answer.holder.querySelector("#" + PANEL);
    if (!old || !fresh) return null;
    var kept = remember(old);
    var focused = focusedIn(old);
    var x = window.scrollX, y = window.scrollY;
    // A shorter panel (an event undone) must not pull the page up under the thumb:
    // the panel keeps at least the height it had.
    fresh.style.minHeight = old.getBoundingClientRect().height + "px";
    old.replaceWith(fresh);
    advanceForPending();  // first, so that the hand being filled in is matched by number
    restore(fresh, kept);
    refocus(fresh, focused);
    window.scrollTo(x, y);  // never let a longer or shorter panel move the page
    if (window.htmx) window.htmx.process(fresh);
    var handForm = fresh.querySelector("#hand-form");
    // A hand half filled in keeps its award preview (the leader answer may change it).
    if (kept.restored && handForm) handForm.dispatchEvent(new Event("change", { bubbles: true }));
    setUpEnds();
    if (fresh.dataset.status === "finished") ended();
    // The play clock (officiating.js) follows the hand and its leader.
    root.dispatchEvent(new CustomEvent("capicu:panel", { bubbles: true, detail: { panel: fresh } }));
    return fresh;
  }
  // A game that ended (its last hand, or an organizer's forfeit) takes the play clock and
  // the tools for a game in play with it, as a reload would.
  function ended() {
    ["clock", "redeal", "sanctions"].forEach(function (id) {
      var part = document.getElementById(id);
      if (part) part.remove();
    });
    // Nothing is left to tap: the parts take their own height again (no gap below).
    ["panel", "officiating"].forEach(function (id) {
      var part = document.getElementById(id);
      if (part) part.style.minHeight = "";
    });
  }

  // While hands wait in the outbox, the page goes on to the next hand by itself.
  function handNumber() {
    var p = panel();
    return p ? parseInt(p.dataset.hand, 10) : 0;
  }
  function advanceForPending() {
    var p = panel();
    if (!p || !p.dataset.hand) return;
    var waiting = load().filter(function (e) { return e.kind === "hand"; });
    var serverHand = parseInt(p.dataset.hand, 10);
    var shown = serverHand;
    waiting.forEach(function (e) { if (e.hand >= shown) shown = e.hand + 1; });
    // The totals are the server's: they say which hands waiting to be sent they lack.
    var lacking = p.querySelector("[data-waiting-totals]");
    if (lacking) {
      var first = serverHand, last = shown - 1;
      lacking.hidden = last < first;
      lacking.textContent = last < first ? "" : last === first
        ? fill(lacking.dataset.one, { n: first })
        : fill(lacking.dataset.many, { first: first, last: last });
    }
    if (shown === parseInt(p.dataset.shownHand || serverHand, 10)) return;
    p.dataset.shownHand = shown;
    p.querySelectorAll("[data-hand-text]").forEach(function (el) {
      el.textContent = fill(el.getAttribute("data-hand-text"), { n: shown });
    });
    var form = p.querySelector("#hand-form");
    if (form) {
      form.reset();
      form.dataset.saves = fill(form.dataset.handTemplate, { n: shown });
      form.elements.number.value = shown;
      form.elements.idempotency_key.value = freshKey();
      if (form.elements.leader) form.elements.leader.value = "";
      var preview = form.querySelector("#preview");
      if (preview) preview.textContent = "";
    }
    p.querySelectorAll('input[name="hand"]').forEach(function (el) { el.value = shown; });
    var events = p.querySelector(".events");
    if (events) events.textContent = "";
  }

  // --- sending --------------------------------------------------------------------------
  function csrf() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }
  function later() {
    clearTimeout(retryTimer);
    retryIn = Math.min(retryIn ? retryIn * 2 : 2000, 15000);
    retryTimer = setTimeout(flush, retryIn);
  }
  function flush() {
    if (sending) return;
    var list = load();
    showOutbox();
    if (!list.length) return;
    var entry = list[0];
    sending = true;
    if (!entry.tried) say(fill(words.saving, { what: entry.label }), "saving");
    var body = new URLSearchParams();
    entry.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    fetch(entry.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrf() }
    }).then(function (response) {
      var outcome = response.headers.get("X-Capicu-Outcome");
      if (response.status >= 500) {
        throw { status: response.status };
      }
      if (!outcome) {
        throw { signedOut: true };
      }
      return response.text().then(function (html) { done(entry, outcome, html); });
    }).catch(function (problem) {
      sending = false;
      entry.tried = true;
      var now = load();
      if (now.length && now[0].id === entry.id) { now[0].tried = true; store(now); }
      // Speak of the action just taken: the older ones are listed in the outbox.
      if (now.length) entry = now[now.length - 1];
      if (problem && problem.signedOut) {
        say(words.signed_out, "waiting");
      } else if (problem && problem.status) {
        say(fill(words.server_error, { status: problem.status }), "waiting");
      } else if (entry.kind === "hand") {
        // The answer to "Confirm hand N" was lost, or the phone is offline: the hand waits
        // in the outbox with its key, and the page goes on to the next hand.
        say(fill(words.hand_kept, { number: entry.hand, next: entry.hand + 1 }), "waiting");
      } else {
        say(fill(words.kept, { what: entry.label }), "waiting");
      }
      advanceForPending();
      showOutbox();
      later();
    });
  }
  function done(entry, outcome, html) {
    var list = load().filter(function (e) { return e.id !== entry.id; });
    var dropped = 0;
    if (outcome !== "saved" && entry.kind === "hand") {
      // What came after a refused hand was meant for the hand after it: do not guess.
      dropped = list.filter(function (e) { return e.hand > entry.hand; }).length;
      list = list.filter(function (e) { return e.hand <= entry.hand; });
    }
    store(list);
    sending = false;
    retryIn = 0;
    var answer = parse(html);
    var notice = answer.notice, error = answer.error;
    if (outcome === "saved" && root.dataset.after && !list.length) {
      // A correction saved from its own page: back to scoring, which tells the outcome.
      try { sessionStorage.setItem(FLASH, "✓ " + (notice || entry.label)); } catch (e) { /* */ }
      window.location.assign(root.dataset.after);
      return;
    }
    swap(answer);
    if (outcome !== "saved") {
      // "invalid": a field of the form needs fixing, and the page shows which one.
      var text = fill(outcome === "invalid" ? words.not_saved : words.refused,
        { what: entry.label, reason: error || "" });
      if (dropped) text += " " + (dropped === 1 ? words.dropped_one : fill(words.dropped_many, { count: dropped }));
      say(text, "refused");
    } else {
      say("✓ " + (notice || entry.label), "saved");
    }
    showOutbox();
    if (list.length) flush();
  }

  function enqueue(form, submitter) {
    var data = new FormData(form, submitter);
    var kind = form.dataset.kind || (form.id === "hand-form" ? "hand" : "event");
    var id = freshKey();
    if (form.dataset.keyField) {
      // One key per form shown: a second tap on "Confirm hand N" is the same hand again.
      id = data.get(form.dataset.keyField) || id;
      data.set(form.dataset.keyField, id);
      if (load().some(function (e) { return e.id === id; })) { flush(); return; }
    } else {
      data.set("key", id);  // every tap on a points button is a play of its own
    }
    data.delete("csrfmiddlewaretoken");
    var hand = parseInt(data.get(kind === "event" ? "hand" : "number") || handNumber(), 10);
    var label = (submitter && submitter.dataset.label) || form.dataset.label ||
      (kind === "hand" ? fill(words.hand, { number: hand }) : "");
    if (form.hasAttribute("data-ends-record") && submitter) {
      label = submitter.dataset.name + " +" + data.get("points");
    }
    label = fill(label, { victim: chosen(form, "from_seat", "victim") });
    // An officiating button acts on the seat chosen beside it: the label names it.
    var seat = chosen(form, "seat");
    if (seat) label += ": " + seat;
    // A button may send its form elsewhere (forced pass, penalty beside the clock).
    var url = submitter && submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
    var fields = [];
    data.forEach(function (value, name) { fields.push([name, String(value)]); });
    var list = load();
    list.push({ id: id, url: url, fields: fields, label: label, kind: kind, hand: hand });
    store(list);
    showOutbox();
    if (!sending) {
      clearTimeout(retryTimer);
      retryIn = 0;
    }
    flush();
  }

  // The text (or a data attribute) of the option chosen in a form's <select name=…>.
  function chosen(form, name, attribute) {
    var select = form.querySelector('select[name="' + name + '"]');
    if (!select || select.selectedIndex < 0) return "";
    var option = select.options[select.selectedIndex];
    return attribute ? option.dataset[attribute] || "" : option.text;
  }

  // How the hand ended, and every player's pips but the one who dominoed (as the form).
  function handIncomplete(form) {
    var ending = form.querySelector('input[name="ending"]:checked');
    if (!ending) return true;
    return Array.prototype.some.call(form.querySelectorAll("input.pips"), function (el) {
      return el.value.trim() === "" && el.name !== "pips_" + ending.value;
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-outbox") || !root.contains(form)) return;
    event.preventDefault();
    if (!form.noValidate && !form.checkValidity()) { form.reportValidity(); return; }
    if (form.id === "hand-form" && !navigator.onLine && handIncomplete(form)) {
      // Offline the server cannot point at the missing field: refuse it here instead.
      say(words.hand_incomplete, "refused");
      return;
    }
    enqueue(form, event.submitter);
    if (form.hasAttribute("data-ends-record")) clearEnds();
    var handForm = document.getElementById("hand-form");
    if (form.id === "leader-question" && event.submitter && handForm && handForm.elements.leader) {
      // The answer is the hand's "Led by" too, at once (the answer may wait offline).
      handForm.elements.leader.value = event.submitter.value;
      form.querySelectorAll("button").forEach(function (b) {
        var mine = b === event.submitter;
        b.classList.toggle("chosen", mine);
        b.setAttribute("aria-pressed", mine ? "true" : "false");
      });
    }
    // A penalty's reason and a re-deal's are for that act alone.
    form.querySelectorAll('input[name="reason"]').forEach(function (el) {
      el.value = "";
    });
  });

  // An act answered by another part of the page (a forfeit, a dispute) may change the
  // game: the panel is read again and replaced in place, like after any action.
  function reread() {
    fetch(window.location.pathname, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) { if (html) swap(parse(html)); })
      .catch(function () { /* offline: the next answer shows it */ });
  }
  document.body.addEventListener("capicu:officiated", reread);
  var anchor = null;
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || target.id !== "officiating") return;
    // The open section (the dispute's form, the sanctions) is what the referee looks at.
    var open = target.querySelector("details[open][id]") || target.querySelector("details[id]");
    anchor = {
      id: open ? open.id : "",
      top: open ? open.getBoundingClientRect().top : 0,
      height: target.getBoundingClientRect().height
    };
    // htmx copies the old part's style attributes (and those of each element in it with an
    // id) onto the new while it settles: an inline style, which the site's CSP refuses,
    // even an empty one.
    target.removeAttribute("style");
    target.querySelectorAll("[style]").forEach(function (el) { el.removeAttribute("style"); });
  });
  // Once the answer has settled (htmx resets the new part's attributes then), the bar says
  // what the act became, and the section acted in is put back where it was on screen.
  document.body.addEventListener("htmx:afterSettle", function () {
    var part = document.getElementById("officiating");
    if (!anchor || !part) return;
    var same = anchor.id && document.getElementById(anchor.id);
    if (same) {
      // Its form closed, the part must not get shorter and pull the page up under the thumb.
      part.style.minHeight = anchor.height + "px";
      window.scrollBy(0, same.getBoundingClientRect().top - anchor.top);
    }
    anchor = null;
    if (part.dataset.error) say(part.dataset.error, "refused");
    else if (part.dataset.notice) say("✓ " + part.dataset.notice, "saved");
  });

  // --- the ends counter -----------------------------------------------------------------
  var ends = [];
  function endsBox() { return document.querySelector("[data-ends]"); }
  function clearEnds() { ends = []; showEnds(); }
  function showEnds() {
    var box = endsBox();
    if (!box) return;
    var most = parseInt(box.dataset.most, 10);
    var total = ends.reduce(function (a, b) { return a + b; }, 0);
    box.querySelector("[data-ends-list]").textContent = ends.length ? ends.join(" + ") + " =" : "";
    box.querySelector("[data-ends-total]").textContent = total;
    var scores = total > 0 && total % 5 === 0 && total <= most;
    var verdict = !ends.length ? "" : scores ? fill(words.ends_scores, { points: total })
      : total > most ? fill(words.ends_too_many, { most: most }) : words.ends_not_five;
    var verdictEl = box.querySelector("[data-ends-verdict]");
    verdictEl.textContent = verdict;
    verdictEl.className = scores ? "ok" : "muted";
    box.querySelector("[data-ends-points]").value = scores ? total : "";
    box.querySelectorAll("[data-ends-record] button").forEach(function (b) {
      b.disabled = !scores;
      b.textContent = scores ? b.dataset.name + " +" + total : b.dataset.name;
    });
  }
  function setUpEnds() { showEnds(); }
  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-end], [data-ends-back], [data-ends-clear]");
    if (!target || !endsBox() || !endsBox().contains(target)) return;
    if (target.hasAttribute("data-end")) ends.push(parseInt(target.dataset.end, 10));
    else if (target.hasAttribute("data-ends-back")) ends.pop();
    else ends = [];
    showEnds();
  });

  window.addEventListener("online", function () { clearTimeout(retryTimer); retryIn = 0; flush(); });
  try {
    var flash = sessionStorage.getItem(FLASH);
    if (flash) { sessionStorage.removeItem(FLASH); say(flash, "saved"); }
  } catch (e) { /* private mode: nothing to tell */ }
  // A reload without a connection opens the page from the service worker's copy.
  if ("serviceWorker" in navigator && root.dataset.worker) {
    navigator.serviceWorker.register(root.dataset.worker, { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      var keep = [window.location.href];
      document.querySelectorAll("script[src], link[rel=stylesheet]").forEach(function (el) {
        keep.push(el.src || el.href);
      });
      if (registration.active) registration.active.postMessage({ keep: keep });
    }).catch(function () { /* no worker: the outbox still works while the page is open */ });
  }
  // The bar is fixed by the thumb: the page's foot (the language menu) ends above it, so
  // that scrolling to the end shows everything the bar would cover.
  var foot = document.querySelector(".site-foot");
  function clearFoot() {
    var height = Math.ceil(bar.getBoundingClientRect().height);
    if (foot) foot.style.marginBottom = height ? height + 8 + "px" : "";  // and a little air
  }
  if (foot && window.ResizeObserver) new ResizeObserver(clearFoot).observe(bar);
  setUpEnds();
  advanceForPending();
  showOutbox();
  clearFoot();
  if (load().length) flush();
})();

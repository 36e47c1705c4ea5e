"""Every page type passes axe-core with no critical and no serious violation, on a phone
(390 by 844) and on a desktop (1280 by 900), in English and in Spanish.

axe-core is vendored for the tests only (``tests/e2e/vendor/``, see its README). It is
given to each page as an init script, which the browser runs outside the page's Content
Security Policy, so every page is checked as a visitor gets it: with its CSP in force.

The API docs (``/api/docs/``) are left out: they are Swagger UI's own page, drawn by its
script from the schema, not a template of the site.
"""

import random
import time
from pathlib import Path

import pytest

from circuit.services.ladders import check_in as ladder_check_in
from circuit.services.ladders import create_session
from circuit.services.series import create_series
from scoring.services import record_hand
from tests.e2e.conftest import log_in
from tests.factories import PlayerFactory, UserFactory, event_referee
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
BLOCKING = ("critical", "serious")
# Pages that say "not found" with a page of their own.
ANSWERED_NOT_FOUND = {"unsubscribe, unknown link", "page not found"}
REFUSED = {"permission denied"}

# axe runs every rule it has (WCAG 2.x A and AA, and its best practices); only the
# critical and serious findings fail the test. The colour of text over a picture or a
# gradient axe cannot judge: it reports those as "incomplete", never as violations.
RUN_AXE = """
async () => {
  // What a tap on a summary shows is checked too: every <details> is opened first.
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + '  ' + n.failureSummary.replace(/\\s+/g, ' ')),
  }));
}
"""

# How each live part of a page speaks (see ``live_parts``). The nearest aria-live (or live
# role) of an element decides whether a screen reader says a change in it.
POLITENESS = """
el => {
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const live = e.getAttribute('aria-live');
    if (live) return live;
    const role = e.getAttribute('role');
    if (role === 'status' || role === 'log') return 'polite';
    if (role === 'alert') return 'assertive';
    if (role === 'timer' || role === 'marquee') return 'off';
  }
  return 'none';
}
"""
LIVE_PARTS = f"""
() => {{
  const politeness = {POLITENESS};
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className.trim()
       ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const problems = [];
  const said = (what, el, how) => problems.push(what + ' ' + name(el) + ': ' + how);
  // Parts a poll swaps without the visitor's doing: the region the new content lands in
  // (the part itself for an inner swap, its parent for a whole one) was there before and
  // speaks politely; a region that is itself replaced is not heard by screen readers.
  document.querySelectorAll('[hx-trigger]').forEach(el => {{
    if (!/\\bevery\\b|\\bload\\b/.test(el.getAttribute('hx-trigger'))) return;
    const aim = el.getAttribute('hx-target');
    const target = !aim || aim === 'this' ? el : document.querySelector(aim);
    const whole = (el.getAttribute('hx-swap') || 'innerHTML').startsWith('outerHTML');
    const region = whole ? target.parentElement : target;
    if (el.id === 'live' && el.hidden) return;  // the page's poller: empty, swaps the parts below
    if (politeness(region) !== 'polite') said('polled', target, politeness(region));
  }});
  // What the tournament page's poll (or stream) swaps in by id.
  document.querySelectorAll('#standings, #tables, #tables .table-card').forEach(el => {{
    if (politeness(el.parentElement) !== 'polite')
      problems.push('swapped by the live poll ' + name(el) + ': ' + politeness(el.parentElement));
  }});
  // Figures that tick every second are timers, silent: the state they lead to is said.
  document.querySelectorAll('[data-left], time[data-ago]').forEach(el => {{
    if (politeness(el) !== 'off') problems.push('ticking ' + name(el) + ': ' + politeness(el));
  }});
  document.querySelectorAll('[data-deadline]').forEach(el => {{
    if (politeness(el) !== 'polite') said('round clock', el, politeness(el));
  }});
  document.querySelectorAll('#connection-paused, #referee-said').forEach(el => {{
    if (politeness(el) !== 'polite') said('status line', el, politeness(el));
  }});
  // Assertive only for real errors.
  document.querySelectorAll('[aria-live="assertive"], [role="alert"]').forEach(el => {{
    if (!/\\b(error|error-box|errorlist|banner)\\b/.test(el.className)) said('assertive', el, '');
  }});
  return problems;
}}
"""


def world():
    """One event in play (a hand recorded), one open for entries, a series and a ladder
    session, all run by one organizer who also plays."""
    organizer = UserFactory(username="organizer", password=PASSWORD)
    PlayerFactory(display_name="Olga Ortiz", user=organizer)
    tournament, round_ = make_event(organizer, slug="copa")
    event_referee(tournament)
    matches = list(round_.matches.order_by("table_number"))
    game = matches[0].game
    record_hand(
        game,
        by=organizer,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 10, "C": 20, "D": 30},
    )
    entrant = tournament.entrants.order_by("pk").first()
    open_event = services.create_tournament(
        by=organizer, name="Abierto de Ponce", slug="abierto", ruleset_key="cutthroat",
        table_size=4, public=True,
    )  # fmt: skip
    services.update_tournament(open_event, by=organizer, status="registration")
    # A short event whose only round is played: its stage can be finished.
    _, played_round = make_event(organizer, players=4, name="Final", slug="final")
    finished_game = played_round.matches.get().game
    play(finished_game, organizer, random.Random(3))
    # Someone else's event: its manage page refuses the organizer (the 403 page).
    services.create_tournament(
        by=UserFactory(username="someone-else"), name="Copa Ajena", slug="ajena",
        ruleset_key="cutthroat", table_size=4, public=True,
    )  # fmt: skip
    series = create_series(by=organizer, name="Friday Cut-Throat", ruleset_key="cutthroat")
    session = create_session(by=organizer, name="Martes", ruleset_key="cutthroat")
    for name in ("Ana", "Beto", "Cira", "Dora", "Eloy"):
        ladder_check_in(session, by=organizer, name=name)
    return {
        "game": game,
        "other_game": matches[1].game,
        "finished_game": finished_game,
        "entrant": entrant,
        "series": series,
        "session": session,
        "player": entrant.player,
    }


def pages(w) -> list[tuple[str, str]]:
    """Each page type once: (its name, its path), after signing in as the organizer."""
    game, entrant = w["game"], w["entrant"]
    return [
        ("public home", "/"),
        ("tournament page", "/t/copa/"),
        ("entrant page", f"/t/copa/entrants/{entrant.pk}/"),
        ("hall screen", "/t/copa/screen/"),
        ("game page", f"/games/{game.pk}/"),
        ("game page, no hand yet", f"/games/{w['other_game'].pk}/"),
        ("scoring page", f"/games/{game.pk}/score/"),
        ("scoring page, game over", f"/games/{w['finished_game'].pk}/score/"),
        ("game page, game over", f"/games/{w['finished_game'].pk}/"),
        ("hand correction", f"/games/{game.pk}/score/hands/1/"),
        ("referee's tables", "/referee/"),
        ("score sheet (print)", f"/games/{game.pk}/sheet/"),
        ("table cards (print)", "/t/copa/rounds/1/cards/"),
        ("blank sheets (print)", "/t/copa/rounds/1/sheets/"),
        ("organizer's events", "/organize/"),
        ("new event: preset", "/organize/new/"),
        ("new event: form", "/organize/new/?preset=cutthroat"),
        ("manage, round in play", "/t/copa/manage/"),
        ("manage, registration", "/t/abierto/manage/"),
        ("event settings", "/t/copa/manage/settings/"),
        ("new stage", "/t/copa/manage/stages/new/"),
        ("finish stage", "/t/final/manage/stages/1/finish/"),
        ("audit", "/t/copa/manage/audit/"),
        ("registration desk", "/t/copa/manage/registration/"),
        ("suspension", f"/t/copa/manage/entrants/{entrant.pk}/suspension/"),
        ("check-in", "/t/copa/check-in/"),
        ("player search", "/players/?q=Player"),
        ("player page", f"/players/{w['player'].pk}/"),
        ("registration", "/t/abierto/register/"),
        ("account", "/accounts/"),
        ("series list", "/series/"),
        ("new series", "/series/new/"),
        ("series", f"/series/{w['series'].slug}/"),
        ("leaderboard", "/ratings/"),
        ("ladders", "/ladders/"),
        ("new ladder", "/ladders/new/"),
        ("ladder", f"/ladders/{w['session'].slug}/"),
        ("hall screen, event over", "/t/final/screen/"),
        ("unsubscribe, unknown link", "/accounts/unsubscribe/not-a-token/"),
        ("page not found", "/t/no-such-event/"),
        ("permission denied", "/t/ajena/manage/"),
    ]


def violations_on(page, url: str, status: int = 200) -> list[str]:
    response = page.goto(url)
    assert (response.status, page.url) == (status, url), f"{url} answered {response.status}"
    # Every part is in the page as served: the polls only replace parts later.
    return page_violations(page)


def page_violations(page) -> list[str]:
    lines = [f"  live part: {problem}" for problem in page.evaluate(LIVE_PARTS)]
    found = page.evaluate(RUN_AXE)
    for v in found:
        if v["impact"] in BLOCKING:
            lines.append(f"  {v['id']} ({v['impact']}): {v['help']}")
            lines.extend(f"      {node}" for node in v["nodes"][:8])
    return lines


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_every_page_type_passes_axe(live_server, browser, size, language):
    began = time.monotonic()
    w = world()
    built = time.monotonic()
    base = live_server.url
    context = browser.new_context(viewport=SIZES[size], locale=language)
    context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    page.set_default_timeout(20_000)
    report: list[str] = []
    try:
        for name, path in (("login", "/accounts/login/"), ("public home, signed out", "/")):
            if found := violations_on(page, f"{base}{path}"):
                report += [f"{name} {path}:", *found]
        # The login form refusing a wrong password: its error said above the form.
        page.goto(f"{base}/accounts/login/")
        page.locator("#id_username").fill("organizer")
        page.locator("#id_password").fill("not-the-password")
        page.locator("main form button[type=submit]").click()
        page.locator("main [role=alert]").first.wait_for()
        if found := page_violations(page):
            report += ["login, refused:", *found]
        log_in(page, base, "organizer", PASSWORD, "/organize/")
        assert page.locator("html").get_attribute("lang") == language
        for name, path in pages(w):
            status = 404 if name in ANSWERED_NOT_FOUND else 403 if name in REFUSED else 200
            if found := violations_on(page, f"{base}{path}", status):
                report += [f"{name} {path}:", *found]
    finally:
        context.close()
    ended = time.monotonic()
    print(f"axe, {size} {language}: {ended - began:.1f} s ({built - began:.1f} s to set up)")
    assert not report, "\n".join(["axe found critical or serious violations:", *report])


# Every change a screen reader could hear (content added, text changed), with how the
# region it lands in speaks; the page's hidden poller and blank text are not heard.
LISTEN = f"""
() => {{
  const politeness = {POLITENESS};
  window.heard = [];
  new MutationObserver(records => records.forEach(r => {{
    const added = Array.from(r.addedNodes).filter(n =>
      n.nodeType === 1 ? !n.hidden && n.tagName !== 'SCRIPT' : (n.textContent || '').trim());
    if (r.type === 'childList' && !added.length) return;
    const where = r.type === 'characterData' ? r.target.parentElement : r.target;
    if (!where || !where.isConnected) return;
    const timer = !!where.closest('[role="timer"]');
    window.heard.push({{
      where: where.tagName.toLowerCase() + (where.id ? '#' + where.id : ''),
      inside: where.closest('[id]') ? where.closest('[id]').id : '',
      how: politeness(where), timer: timer,
      what: (r.type === 'characterData' ? r.target.textContent
             : added.map(n => n.textContent).join(' ')).trim().slice(0, 60),
    }});
  }})).observe(document.body, {{childList: true, subtree: true, characterData: true}});
}}
"""


def test_live_updates_are_announced_politely(live_server, browser):
    """A hand recorded elsewhere reaches the tournament page and the game page by their
    polls; every change it makes there lands in a region that says it politely."""
    organizer = UserFactory(username="organizer", password=PASSWORD)
    _, round_ = make_event(organizer, slug="copa")
    game = round_.matches.order_by("table_number")[1].game
    context = browser.new_context(viewport=SIZES["phone"])
    try:
        pages = {}
        for name, path in (("tournament", "/t/copa/"), ("game", f"/games/{game.pk}/")):
            pages[name] = context.new_page()
            pages[name].set_default_timeout(30_000)
            pages[name].goto(f"{live_server.url}{path}")
            pages[name].wait_for_load_state("load")
            pages[name].evaluate(LISTEN)
        record_hand(
            game,
            by=organizer,
            number=1,
            ended="domino",
            domino_by="A",
            pips={"A": 0, "B": 10, "C": 20, "D": 30},
        )
        pages["game"].locator("#game-live .total-box .score", has_text="60").wait_for()
        pages["tournament"].wait_for_function(
            "() => window.heard.some(h => h.inside.startsWith('table-') || h.inside === 'tables')"
        )
        # The connection lost: the game page's next poll fails, and the pause is said
        # politely (no alert: nothing the viewer did failed).
        pages["game"].route("**/games/*/?since=*", lambda route: route.abort())
        pages["game"].locator("#connection-paused").wait_for()
        assert pages["game"].locator("#connection").is_hidden()
        heard = {name: page.evaluate("window.heard") for name, page in pages.items()}
        assert any("paused" in h["what"] and h["how"] == "polite" for h in heard["game"])
    finally:
        context.close()
    for name, changes in heard.items():
        assert any(h["how"] == "polite" for h in changes), (name, changes)
        unheard = [h for h in changes if h["how"] != "polite" and not h["timer"]]
        assert unheard == [], (name, unheard)
        # A timer ticks silently; nothing else is silenced.
        assert all(h["how"] == "off" for h in changes if h["timer"]), (name, changes)

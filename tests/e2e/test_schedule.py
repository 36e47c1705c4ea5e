"""The manage page says where a stage's schedule stands, on a phone and wide, in English
and Spanish, and the round it pairs reads the stored schedule."""

import os
from pathlib import Path

import pytest

from tests.e2e.conftest import check_accessibility, log_in
from tests.factories import UserFactory
from tournaments.services import add_stage, create_tournament, register_entrants

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"
SHOTS = Path(os.environ.get("SHOTS", "test-output/e2e"))


def schedule_line(browser, live_server, tournament, *, width, height, locale, says):
    """The organizer's manage page at this size and language, once its schedule line
    says ``says`` (and the page fits): the context, the page and the line."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, live_server.url, "organizer", PASSWORD, f"/t/{tournament.slug}/manage/")
    line = page.locator(".schedule-state")
    line.wait_for()
    assert says in line.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    return context, page, line


@pytest.mark.parametrize(
    ("width", "height", "locale", "ready", "button"),
    [
        (390, 844, "en-US", "Schedule ready: 4 rounds for 16 entrants", "Generate the next round"),
        (1280, 900, "es-ES", "Calendario listo: 4 rondas para 16 inscritos", None),
    ],
)
def test_the_manage_page_shows_the_stored_schedule(
    live_server, browser, width, height, locale, ready, button
):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat", table_size=4)
    register_entrants(tournament, by=organizer, text="\n".join(f"P{i:02d}" for i in range(16)))
    add_stage(tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 4})
    context, page, line = schedule_line(
        browser, live_server, tournament, width=width, height=height, locale=locale, says=ready
    )
    check_accessibility(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    line.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"schedule-{width}-{locale}.png"))
    if button:
        page.get_by_role("button", name=button).click()
        page.locator(".notice").first.wait_for()
        assert "Round 1 generated" in page.locator(".notice").first.inner_text()
    context.close()


@pytest.mark.parametrize(
    ("width", "height", "locale", "improving", "ready"),
    [
        (390, 844, "en-US", "Schedule ready to use: 4 rounds for 16 entrants", "Schedule ready:"),
        (1280, 900, "es-ES", "Calendario listo para usar: 4 rondas para 16", "Calendario listo:"),
    ],
)
def test_the_manage_page_follows_the_full_search_after_the_quick_one(
    live_server, browser, width, height, locale, improving, ready
):
    from tournaments.models import StageSchedule

    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat", table_size=4)
    register_entrants(tournament, by=organizer, text="\n".join(f"P{i:02d}" for i in range(16)))
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 4}
    )
    # As the task leaves it while its full search runs: the quick schedule stored. (Sixteen
    # at tables of four meet without a repeat at once; the search itself is tested in
    # tests/tournaments, and a field that needs seconds of it would only slow this page's.)
    state = StageSchedule.objects.filter(stage=stage)
    state.update(status=StageSchedule.Status.IMPROVING, quick=True, repeats=9, unavoidable=False)
    context, page, line = schedule_line(
        browser, live_server, tournament, width=width, height=height, locale=locale, says=improving
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    line.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"schedule-improving-{width}-{locale}.png"))
    state.update(status=StageSchedule.Status.READY, quick=False, repeats=7)
    page.wait_for_function(
        "text => document.querySelector('.schedule-state').innerText.includes(text)", arg=ready
    )  # the page polls while the full search runs, and stops once it is ready
    context.close()


@pytest.mark.parametrize(
    ("width", "height", "locale", "deferred", "ready"),
    [
        (
            390,
            844,
            "en-US",
            "Generating the round searches for fewer.",
            "Schedule ready: 5 rounds for 13 entrants",
        ),
        (
            1280,
            900,
            "es-ES",
            "Al generar la ronda se busca uno con menos.",
            "Calendario listo: 5 rondas para 13 inscritos",
        ),
    ],
)
def test_without_a_worker_a_late_entry_waits_for_the_quick_search_and_generate_for_the_full(
    live_server, browser, width, height, locale, deferred, ready
):
    """Where tasks run in the request (no broker), registering a thirteenth player at
    tables of four stores the quick schedule at once and says the round's generation
    searches further; generating the round does, and the line then says it is ready."""
    from jobs import runner

    if not runner.in_process():
        pytest.skip("a worker searches in full after each change of the field")
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat", table_size=4)
    register_entrants(tournament, by=organizer, text="\n".join(f"P{i:02d}" for i in range(12)))
    add_stage(tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 5})
    context, page, _line = schedule_line(
        browser,
        live_server,
        tournament,
        width=width,
        height=height,
        locale=locale,
        says="12",
    )
    page.locator("#add-name").fill("Late Comer")  # "Player name" / "Nombre del jugador"
    page.locator("#add-name").press("Enter")
    page.locator(".schedule-state", has_text=deferred).wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    check_accessibility(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".schedule-state").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"schedule-deferred-{width}-{locale}.png"))
    assert "hx-trigger" not in page.locator(".schedule-state").evaluate("e => e.outerHTML")
    generate = "Generate the next round" if locale == "en-US" else "Generar la siguiente ronda"
    page.get_by_role("button", name=generate).click()
    page.locator(".schedule-state", has_text=ready).wait_for()
    context.close()

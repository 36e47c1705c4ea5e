"""The Content-Security-Policy allows only the site's own scripts and styles, and no page
of the site breaks it: Chromium reports every refused inline script, handler or style."""

import pytest

from tests.e2e.conftest import log_in
from tests.factories import SuperuserFactory, UserFactory
from tests.test_pages import make_event

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"


def watched_page(browser):
    """A desktop page that lists every refusal Chromium reports for the policy."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return context, page, violations


def test_no_page_breaks_the_content_security_policy(live_server, browser):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    tournament, round_ = make_event(organizer, slug="copa")
    game = round_.matches.order_by("table_number").first().game
    context, page, violations = watched_page(browser)
    page.on("pageerror", lambda error: violations.append(f"{page.url}: {error}"))

    base = live_server.url
    response = page.goto(f"{base}/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy

    log_in(page, base, "organizer", PASSWORD, "/organize/")
    for path in (
        "/",
        f"/t/{tournament.slug}/",
        f"/games/{game.pk}/",
        f"/games/{game.pk}/score/",
        f"/t/{tournament.slug}/manage/",
        f"/t/{tournament.slug}/screen/",
        f"/t/{tournament.slug}/rounds/1/cards/",
    ):
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
    # The API docs run their own scripts, served as files: the page must still work.
    page.goto(f"{base}/api/docs/")
    page.locator(".swagger-ui .info .title").wait_for()
    page.wait_for_load_state("networkidle")
    context.close()
    assert violations == []


def test_the_admin_keeps_to_the_policy_too(live_server, browser):
    SuperuserFactory(username="root", password=PASSWORD)
    game = make_event(UserFactory(username="organizer"), slug="copa")[1].matches.first().game
    context, page, violations = watched_page(browser)
    base = live_server.url
    page.goto(f"{base}/admin/login/")
    page.locator("#id_username").fill("root")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("input[type=submit]").click()
    page.wait_for_url(f"{base}/admin/")
    for path in ("/admin/", "/admin/scoring/game/", f"/admin/scoring/game/{game.pk}/change/"):
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
    context.close()
    assert violations == []

"""Browser tests: Playwright driving Debian's Chromium (never a downloaded browser)."""

import os
import threading
import time
from pathlib import Path

import pytest

# Debian's headless shell (package chromium-headless-shell: the same Chromium build
# without the full browser around it, as Playwright itself runs headless) where it is
# installed, else Debian's chromium; CHROMIUM names another. The browser tests take
# about 30 % less of the machine with the shell (docs/benchmarks.md, "The CI run").
CHROMIUM = os.environ.get("CHROMIUM") or next(
    (
        path
        for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
        if Path(path).exists()
    ),
    "/usr/bin/chromium",
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "e2e"
PHONE = {"width": 360, "height": 740}
# The phone every page is checked at for a crowded table.
TABLE_PHONE = {"width": 390, "height": 844}


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.e2e)
            if not Path(CHROMIUM).exists():
                item.add_marker(
                    pytest.mark.skip(
                        reason="needs Debian's Chromium: apt-get install chromium-headless-shell"
                    )
                )


@pytest.fixture(autouse=True)
def _server_quiet_before_the_flush(request):
    """Let the live server's last requests end before the tables are emptied.

    A browser closed by a test can leave a request running in a server thread (the page's
    refresh after a save, say). On PostgreSQL, emptying the tables takes their locks one
    by one while that request takes them in its own order, and PostgreSQL may then end
    the flush as a deadlock, leaving the test's rows for the next test. This fixture is
    set up after the test database (so torn down before it is flushed, and after the
    browser's fixtures are gone) and waits, up to 20 s, until the server has answered
    every request it began (Django's request signals) and, on PostgreSQL, no other
    session on the database is inside a statement or a transaction.
    """
    if "live_server" not in request.fixturenames:
        yield
        return
    from django.core.signals import request_finished, request_started
    from django.db import connection

    request.getfixturevalue("transactional_db")
    lock, open_requests = threading.Lock(), [0]

    def began(**kwargs):
        with lock:
            open_requests[0] += 1

    def ended(**kwargs):
        with lock:
            open_requests[0] -= 1

    request_started.connect(began, weak=False, dispatch_uid="e2e-quiet-began")
    request_finished.connect(ended, weak=False, dispatch_uid="e2e-quiet-ended")
    try:
        yield
        deadline = time.monotonic() + 20
        quiet_since = None
        while time.monotonic() < deadline:
            if open_requests[0] > 0:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= 0.1:
                break  # none open for 0.1 s: a request in the socket has begun by now
            time.sleep(0.02)
    finally:
        request_started.disconnect(dispatch_uid="e2e-quiet-began")
        request_finished.disconnect(dispatch_uid="e2e-quiet-ended")
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                " AND state IN ('active', 'idle in transaction')"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.05)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the tests still use the
    # ORM between browser steps, which Django allows once told so (while a browser runs).
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def context(browser):
    """A phone's browser context, for tests that take it offline and back."""
    context = browser.new_context(viewport=TABLE_PHONE, device_scale_factor=2, has_touch=True)
    yield context
    context.close()


@pytest.fixture
def page(context):
    """A page in ``context``, patient enough for a round trip through the outbox."""
    page = context.new_page()
    page.set_default_timeout(30_000)
    return page


@pytest.fixture
def shot():
    OUTPUT.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> Path:
        path = OUTPUT / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


def log_in(page, base: str, username: str, password: str, then: str) -> None:
    page.goto(f"{base}/accounts/login/?next={then}")
    page.locator("#id_username").fill(username)  # by id: the labels change with the language
    page.locator("#id_password").fill(password)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"**{then}")


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: tuple[int, int, int], two: tuple[int, int, int]) -> float:
    a, b = sorted((relative_luminance(one), relative_luminance(two)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def parse_rgb(css: str) -> tuple[int, int, int]:
    numbers = css[css.index("(") + 1 : css.index(")")].split(",")
    return tuple(int(float(n)) for n in numbers[:3])


UNLABELLED_INPUTS = """
() => Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(el => el.type !== 'hidden')
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
  .map(el => el.name || el.id)
"""

UNNAMED_BUTTONS = """
() => Array.from(document.querySelectorAll('button'))
  .filter(el => !(el.textContent.trim() || el.getAttribute('aria-label')))
  .map(el => el.outerHTML)
"""


def check_accessibility(page) -> None:
    """Labels on every input, names on every button, visible focus, readable colours."""
    assert page.evaluate(UNLABELLED_INPUTS) == []
    assert page.evaluate(UNNAMED_BUTTONS) == []
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    outline = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, s.outlineWidth]; }"
    )
    assert outline[0] != "none" and outline[1] != "0px", outline
    body = page.evaluate(
        "() => { const s = getComputedStyle(document.body); return [s.color, s.backgroundColor]; }"
    )
    assert contrast(parse_rgb(body[0]), parse_rgb(body[1])) >= 7
    buttons = page.evaluate(
        "() => Array.from(document.querySelectorAll('button')).slice(0, 40).map(b => {"
        " const s = getComputedStyle(b); return [s.color, s.backgroundColor]; })"
    )
    for colour, background in buttons:
        if parse_rgb(background) == (0, 0, 0) and "0)" in background:
            continue  # a transparent button over the page
        assert contrast(parse_rgb(colour), parse_rgb(background)) >= 4.5, (colour, background)


def said(page, text: str) -> None:
    """Wait for a notice saying ``text``; if none comes, fail with what the page says."""
    try:
        page.locator(".notice", has_text=text).first.wait_for()
    except Exception:
        notes = page.locator(".notice, .error-box, .errorlist, [role=alert]").all_inner_texts()
        raise AssertionError(f"{text!r} not said; the page says {notes}") from None


def check_in(page, name: str) -> None:
    """Tap a row's "Check in" and wait until the list itself shows it.

    The notice is swapped in before the list: the next tap waits for the row to say
    "Mark absent", as a person's eye does (a tap on a list being replaced is lost).
    """
    page.locator("tr", has_text=name).get_by_role("button", name="Check in").click()
    said(page, f"{name} checked in.")
    page.locator("tr", has_text=name).get_by_role("button", name="Mark absent").wait_for()


def fits(page) -> None:
    """The page itself fits the phone: only a table's own box may scroll sideways."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= TABLE_PHONE["width"], width

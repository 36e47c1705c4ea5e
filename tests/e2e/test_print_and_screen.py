"""Printed table cards and score sheets, and the hall screen, as a browser renders them."""

import io
import random
import re

import pypdfium2 as pdfium
import pytest
import zxingcpp
from PIL import Image

from tests.e2e.conftest import OUTPUT, log_in
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments.demo import play

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"


def pdf_pages(data: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", data))


def codes_in_pdf(data: bytes) -> list[str]:
    """Every QR code a phone's reader finds on the printed pages, read from the PDF
    rasterised at 150 dpi (a modest printer)."""
    document = pdfium.PdfDocument(data)
    found = []
    for page in document:
        image = page.render(scale=150 / 72).to_pil()
        found += [code.text for code in zxingcpp.read_barcodes(image)]
    return found


def codes_in_screenshot(png: bytes) -> list[str]:
    return [code.text for code in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


def test_table_cards_print_on_a4_and_letter(live_server, browser, shot):
    organizer = UserFactory(username="organizer", password=PASSWORD)
    _, round_ = make_event(organizer, players=18, slug="copa")
    context = browser.new_context(viewport={"width": 794, "height": 1123})
    page = context.new_page()
    log_in(page, live_server.url, "organizer", PASSWORD, "/")
    page.goto(f"{live_server.url}/t/copa/rounds/1/cards/")
    page.emulate_media(media="print")
    cards = page.locator(".table-card-print")
    assert cards.count() == 5  # 18 players: three tables of four, two of three
    boxes = [cards.nth(i).bounding_box() for i in range(cards.count())]
    assert all(box["width"] > 300 and box["height"] > 250 for box in boxes)
    assert page.locator(".no-print").is_hidden()
    shot(page, "print-table-cards")
    # Each card's code leads to its own table's scoring page, on screen and on paper.
    tables = round_.matches.order_by("table_number")
    wanted = sorted(f"{live_server.url}/games/{match.game_id}/score/" for match in tables)
    assert sorted(codes_in_screenshot(page.screenshot(full_page=True))) == wanted
    for number, match in enumerate(tables):
        card = cards.nth(number)
        assert card.locator(".big-number").inner_text() == str(match.table_number)
        assert codes_in_screenshot(card.screenshot()) == [
            f"{live_server.url}/games/{match.game_id}/score/"
        ]
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, path=str(OUTPUT / f"table-cards-{paper}.pdf"))
        assert pdf_pages(pdf) == 1  # five cards, six to a page on either paper
        assert sorted(codes_in_pdf(pdf)) == wanted, paper
    game = round_.matches.order_by("table_number").first().game
    play(game, organizer, random.Random(4))
    page.goto(f"{live_server.url}/games/{game.pk}/sheet/")
    game.refresh_from_db()
    assert page.locator(".sheet-table tbody tr").count() == game.hand_count
    shot(page, "print-filled-sheet")
    context.close()


def test_hall_screen_at_1920_by_1080(live_server, browser, shot):
    organizer = UserFactory(username="organizer")
    _, round_ = make_event(organizer, players=8, slug="copa")
    play(round_.matches.order_by("table_number").first().game, organizer, random.Random(6))
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(f"{live_server.url}/t/copa/screen/")
    heading = page.locator(".screen-head h1")
    assert float(heading.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 48
    row = page.locator(".screen-standings tbody tr").first
    assert float(row.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 36
    assert page.evaluate("document.documentElement.scrollHeight") <= 1080
    shot(page, "hall-screen-standings")
    page.locator(".screen-tables").wait_for(timeout=20_000)  # it turns the page itself
    assert page.locator(".screen-tables > li").count() == 2
    shot(page, "hall-screen-tables")
    context.close()

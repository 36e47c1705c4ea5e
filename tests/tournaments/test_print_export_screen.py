"""Exports, the hall screen and printing: who may see them and what they hold."""

import csv
import io
import random

import pytest

from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play
from tournaments.exports import RESULTS_COLUMNS, STANDINGS_COLUMNS
from tournaments.standings import METRICS
from tournaments.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def played(organizer):
    tournament, round_ = make_event(organizer, players=8, slug="copa")
    first, second = round_.matches.order_by("table_number")
    play(first.game, organizer, random.Random(1))
    play(second.game, organizer, random.Random(2), hands=2)
    rebuild_standings(tournament.pk)
    return tournament, first.game, second.game


def read_csv(response) -> list[dict]:
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("prefix", ["/t/copa/export/", "/api/v1/tournaments/copa/export/"])
def test_standings_export_has_every_metric_for_every_entrant(client, played, prefix):
    rows = read_csv(client.get(f"{prefix}standings.csv"))
    assert len(rows) == 8
    assert list(rows[0]) == STANDINGS_COLUMNS
    assert set(METRICS) <= set(rows[0])
    assert [int(r["rank"]) for r in rows] == sorted(int(r["rank"]) for r in rows)


@pytest.mark.parametrize("prefix", ["/t/copa/export/", "/api/v1/tournaments/copa/export/"])
def test_results_export_runs_every_side_total_up_to_the_stored_total(client, played, prefix):
    _, finished, live = played
    rows = read_csv(client.get(f"{prefix}results.csv"))
    assert list(rows[0]) == RESULTS_COLUMNS
    for game in (finished, live):
        game.refresh_from_db()
        mine = [r for r in rows if r["game"] == str(game.pk)]
        assert len(mine) == game.hand_count * len(game.totals)
        for side, total in game.totals.items():
            last = [r for r in mine if r["side"] == side][-1]
            assert int(last["total"]) == total
            summed = sum(
                int(r["award"]) + int(r["in_play"]) + int(r["penalties"])
                for r in mine
                if r["side"] == side
            )
            assert summed == total


def test_exports_follow_the_tournament_visibility(client, organizer):
    make_event(organizer, public=False, slug="hidden", name="Hidden")
    assert client.get("/t/hidden/export/standings.csv").status_code == 404
    assert client.get("/api/v1/tournaments/hidden/export/results.csv").status_code == 404
    assert client.get("/t/hidden/export/other.csv").status_code == 404
    client.force_login(organizer)
    assert client.get("/t/hidden/export/results.csv").status_code == 200


def test_the_hall_screen_turns_its_pages_by_itself(client, played):
    first = client.get("/t/copa/screen/").content.decode()
    assert "Standings" in first and "1 / 2" in first
    assert 'hx-trigger="load delay:12s"' in first and "screen/?page=1" in first
    second = client.get("/t/copa/screen/?page=1", HTTP_HX_REQUEST="true").content.decode()
    assert "Table 1" in second and "2 / 2" in second and "screen/?page=0" in second
    assert "<html" not in second  # htmx gets the page alone
    assert "<button" not in first + second and "<form" not in first + second


def test_table_cards_and_blank_sheets_are_for_organizers(client, played, organizer):
    for url in ("/t/copa/rounds/1/cards/", "/t/copa/rounds/1/sheets/"):
        assert client.get(url).status_code == 302
        client.force_login(UserFactory(username="someone"))
        assert client.get(url).status_code == 403
        client.force_login(organizer)
        assert client.get(url).status_code == 200
        client.logout()
    client.force_login(organizer)
    cards = client.get("/t/copa/rounds/1/cards/").content.decode()
    assert cards.count('class="table-card-print"') == 2
    assert cards.count("<svg") == 2  # one QR code per table
    assert "/score/" in cards
    sheets = client.get("/t/copa/rounds/1/sheets/").content.decode()
    assert sheets.count('class="sheet"') == 2
    assert client.get("/t/copa/rounds/7/cards/").status_code == 404


def test_a_filled_sheet_shows_every_hand_and_the_winner(client, played):
    _, finished, _ = played
    finished.refresh_from_db()
    page = client.get(f"/games/{finished.pk}/sheet/").content.decode()
    assert page.count("<tr><td>") == finished.hand_count
    assert "Winner: <strong>" in page


def test_partners_cards_number_teams_not_seats(client, organizer):
    league = services.create_tournament(
        by=organizer, name="Liga", ruleset_key="partners", slug="liga"
    )
    services.register_entrants(
        league, by=organizer, text="\n".join(f"A{i} & B{i}" for i in range(4))
    )
    stage = services.add_stage(league, by=organizer, name="RR", format="round_robin")
    services.generate_round(stage, by=organizer)
    client.force_login(organizer)
    cards = client.get("/t/liga/rounds/1/cards/").content.decode()
    assert '<span class="seat-letter">1</span>' in cards
    assert '<span class="seat-letter">2</span>' in cards

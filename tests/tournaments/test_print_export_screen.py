"""Exports, the hall screen and printing: who may see them and what they hold."""

import csv
import io
import random

import pytest

from scoring.services import add_score_event, record_hand
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play
from tournaments.exports import RESULTS_COLUMNS, STANDINGS_COLUMNS, text
from tournaments.models import Round
from tournaments.read.standings import METRICS
from tournaments.read.standings_store import rebuild_standings

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


def test_a_round_back_in_draft_leaves_the_results_export(client, played):
    """A draft round's games take no hands now; one started before that stays out too."""
    _, finished, live = played
    Round.objects.filter(matches__game=live).update(status=Round.Status.DRAFT)
    for prefix in ("/t/copa/export/", "/api/v1/tournaments/copa/export/"):
        games = {r["game"] for r in read_csv(client.get(f"{prefix}results.csv"))}
        assert games == set()  # both tables sit in round 1
    Round.objects.filter(matches__game=live).update(status=Round.Status.PUBLISHED)
    games = {r["game"] for r in read_csv(client.get("/t/copa/export/results.csv"))}
    assert games == {str(finished.pk), str(live.pk)}


FORMULAS = [
    '=HYPERLINK("http://evil.example/x","click")',
    "+Ana",
    "-Beto",
    "@Carla",
]


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        (
            '=HYPERLINK("http://evil.example/x","click")',
            '\'=HYPERLINK("http://evil.example/x","click")',
        ),
        ("+1", "'+1"),
        ("-Beto", "'-Beto"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTab", "'\tTab"),
        ("\rCR", "'\rCR"),
        ("Ana-María", "Ana-María"),
        ("Luis = Lucho", "Luis = Lucho"),
        ("", ""),
    ],
)
def test_a_text_cell_that_a_spreadsheet_would_run_starts_with_a_quote(cell, shown):
    assert text(cell) == shown


@pytest.fixture
def formulas(organizer):
    """A head-to-head event whose players are named like formulas, one game played to the
    end and one with a penalty."""
    tournament = services.create_tournament(
        by=organizer, name="=Copa", slug="formulas", ruleset_key="cutthroat", table_size=2
    )
    for name in FORMULAS:
        services.register_entrant(tournament, by=organizer, name=name)
    stage = services.add_stage(tournament, by=organizer, name="-Liga", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    first, second = (match.game for match in round_.matches.order_by("table_number"))
    play(first, organizer, random.Random(3))
    add_score_event(second, by=organizer, hand=1, seat="A", kind="penalty", points=-10)
    record_hand(
        second, by=organizer, number=1, ended="domino", domino_by="B", pips={"A": 12, "B": 0}
    )
    rebuild_standings(tournament.pk)
    return tournament


EXPORTS = ["/t/formulas/export/", "/api/v1/tournaments/formulas/export/"]


@pytest.mark.parametrize("prefix", EXPORTS)
def test_the_standings_export_quotes_formula_names_and_keeps_numbers(client, formulas, prefix):
    rows = read_csv(client.get(f"{prefix}standings.csv"))
    assert sorted(r["entrant"] for r in rows) == sorted(f"'{name}" for name in FORMULAS)
    assert {r["tournament"] for r in rows} == {"'=Copa"}
    assert {r["stage"] for r in rows} == {"'-Liga"}
    differentials = [float(r["point_differential"]) for r in rows]
    assert min(differentials) < 0  # a negative number stays a number: no quote
    assert any(r["point_differential"].startswith("-") for r in rows)
    for row in rows:
        for column in ("rank", "games_played", *METRICS):
            if row[column]:
                float(row[column])  # a number a spreadsheet reads as one, never quoted


@pytest.mark.parametrize("prefix", EXPORTS)
def test_the_results_export_quotes_formula_names_and_keeps_numbers(client, formulas, prefix):
    rows = read_csv(client.get(f"{prefix}results.csv"))
    assert rows
    assert {r["players"] for r in rows} == {f"'{name}" for name in FORMULAS}
    assert {r["domino_by"] for r in rows} <= {"", *(f"'{name}" for name in FORMULAS)}
    assert {r["tournament"] for r in rows} == {"'=Copa"} and {r["stage"] for r in rows} == {
        "'-Liga"
    }
    assert "-10" in {r["penalties"] for r in rows}
    for row in rows:
        for column in ("pips", "award", "in_play", "penalties", "total"):
            int(row[column])


def test_pages_and_the_api_show_formula_names_as_they_are(client, formulas):
    listed = client.get("/api/v1/tournaments/formulas/entrants/").json()["results"]
    names = [e["name"] for e in listed]
    assert sorted(names) == sorted(FORMULAS)
    entrant = formulas.entrants.get(name=FORMULAS[0])
    page = client.get(f"/t/formulas/entrants/{entrant.pk}/").content.decode()
    assert "=HYPERLINK(&quot;http://evil.example/x&quot;,&quot;click&quot;)" in page
    assert "'=HYPERLINK" not in page


@pytest.mark.parametrize("prefix", ["/t/pares/export/", "/api/v1/tournaments/pares/export/"])
def test_team_names_like_formulas_are_quoted_in_both_exports(client, organizer, prefix):
    league = services.create_tournament(
        by=organizer, name="Pares", ruleset_key="partners", slug="pares"
    )
    services.register_entrant(league, by=organizer, name="=Ana", partner_name="Beto")
    services.register_entrant(league, by=organizer, name="Carla", partner_name="@Dora")
    stage = services.add_stage(league, by=organizer, name="RR", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    game = round_.matches.get().game
    play(game, organizer, random.Random(5))
    rebuild_standings(league.pk)
    teams = {e.name for e in league.entrants.all()}
    standings = read_csv(client.get(f"{prefix}standings.csv"))
    assert {r["entrant"] for r in standings} == {text(name) for name in teams}
    assert any(r["entrant"].startswith("'=Ana") for r in standings)
    results = read_csv(client.get(f"{prefix}results.csv"))
    assert {r["players"] for r in results} == {"'=Ana & Beto", "Carla & @Dora"}


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


def test_a_three_player_table_card_and_blank_sheet_say_three_players_to_200(client, organizer):
    make_event(organizer, players=7, slug="siete")
    client.force_login(organizer)
    cards = client.get("/t/siete/rounds/1/cards/").content.decode()
    assert "4 players, each for themselves to 250" in cards
    assert "3 players, each for themselves to 200" in cards
    sheets = client.get("/t/siete/rounds/1/sheets/").content.decode()
    assert "Target 250" in sheets and "Target 200" in sheets
    assert "3 players, each for themselves to 200" in sheets
    assert "Round robin · round 1, table 2" in sheets


def test_blank_sheets_name_their_tables_in_spanish(client, organizer):
    make_event(organizer, players=8, slug="ocho")
    client.force_login(organizer)
    sheets = client.get("/t/ocho/rounds/1/sheets/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Round robin · ronda 1, mesa 1" in sheets

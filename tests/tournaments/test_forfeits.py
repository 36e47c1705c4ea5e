"""A seat that did not play: the game ends as its forfeit, and every page, the standings,
the API and the exports say so."""

import csv
import io
import random
from html import escape

import pytest
from django.core.exceptions import PermissionDenied

from scoring.models import Game
from scoring.officiating import forfeit_seat
from scoring.services import reopen_game
from tests.factories import UserFactory, client_for, event_referee, partners_round
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play
from tournaments.exports import csv_lines, results_rows, standings_rows
from tournaments.models import MatchSeat
from tournaments.read.selectors import standing_lines
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def event(organizer):
    tournament, round_ = make_event(organizer, players=8)
    return tournament, round_, list(round_.matches.order_by("table_number"))


def seat_at(match, position: int) -> MatchSeat:
    return match.seats.get(position=position)


def test_a_no_show_ends_the_game_as_a_forfeit_placed_last(event, organizer):
    _, _, (match, _) = event
    absent = seat_at(match, 0)
    services.record_did_not_play(absent, by=organizer, reason="no_show", note="never came")
    match.game.refresh_from_db()
    assert match.game.status == Game.Status.FINISHED
    assert match.game.forfeits == "A"
    seats = {s.position: s for s in match.seats.all()}
    assert seats[0].did_not_play == "no_show" and seats[0].forfeit
    assert seats[0].placement == 4 and not seats[0].won
    # Nobody had scored: the others share first place, and no single leader wins.
    assert sorted(s.placement for s in seats.values()) == [1, 1, 1, 4]
    assert not seats[1].forfeit and seats[1].did_not_play == ""
    act = match.game.official_acts.get(kind="forfeit")
    assert act.reason == "No-show: never came"


def test_a_forfeit_is_refused_twice_off_a_draft_and_for_an_unknown_reason(event, organizer):
    _, _, (match, other) = event
    seat = seat_at(match, 1)
    with pytest.raises(services.TournamentError) as error:
        services.record_did_not_play(seat, by=organizer, reason="late")
    assert error.value.field == "reason"
    services.record_did_not_play(seat, by=organizer, reason="withdrawn")
    with pytest.raises(services.TournamentConflict):
        services.record_did_not_play(seat, by=organizer, reason="no_show")
    stranger = UserFactory(username="stranger")
    with pytest.raises(PermissionDenied):
        services.record_did_not_play(seat_at(other, 0), by=stranger, reason="no_show")


def test_a_reopened_game_takes_the_mark_back(event, organizer):
    _, _, (match, _) = event
    services.record_did_not_play(seat_at(match, 2), by=organizer, reason="other")
    reopen_game(match.game, by=organizer, reason="the player was in the hall")
    seat = seat_at(match, 2)
    assert seat.did_not_play == "" and seat.forfeit is None


def test_the_standings_tables_api_and_exports_mark_the_forfeit(event, organizer, client):
    tournament, _, (match, other) = event
    absent = seat_at(match, 3)
    services.record_did_not_play(absent, by=organizer, reason="disqualified")
    referee = event_referee(tournament)
    services.assign_referee(other, referee, by=organizer)
    play(other.game, organizer, random.Random(3))
    rebuild_standings(tournament.pk)
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    assert 'title="Forfeited a game: placed last at that table.">forfeit</span>' in page
    assert "forfeit (disqualified)" in page
    data = client_for(None).get(f"/api/v1/tournaments/{tournament.slug}/rounds/1/").json()
    seated = {e["id"]: e["did_not_play"] for m in data["matches"] for e in m["entrants"]}
    assert seated[absent.entrant_id] == "disqualified"
    standings = list(csv.DictReader(io.StringIO("".join(csv_lines(standings_rows(tournament))))))
    forfeits = {row["entrant"]: row["forfeit"] for row in standings}
    assert forfeits[absent.entrant.name] == "yes"
    assert list(forfeits.values()).count("yes") == 1
    results = list(results_rows(tournament))
    columns = results[0]
    marked = [dict(zip(columns, row, strict=True)) for row in results[1:]]
    ended = [row for row in marked if row["ended"] == "forfeit"]
    assert len(ended) == 4  # a row per side of the forfeited game
    assert [row["did_not_play"] for row in ended] == ["", "", "", "disqualified"]
    assert [row["forfeit"] for row in ended] == ["no", "no", "no", "yes"]


def test_the_api_records_a_seat_that_did_not_play(event, organizer):
    _, _, (match, _) = event
    seat = seat_at(match, 0)
    url = f"/api/v1/matches/{match.pk}/did-not-play/"
    assert client_for(None).post(
        url, {"entrant": seat.entrant_id, "reason": "no_show"}, format="json"
    ).status_code in (401, 403)
    api = client_for(organizer)
    wrong = api.post(url, {"entrant": 999999, "reason": "no_show"}, format="json")
    assert wrong.status_code == 400 and "entrant" in wrong.json()["errors"]
    bad = api.post(url, {"entrant": seat.entrant_id, "reason": "late"}, format="json")
    assert bad.status_code == 400
    unconfirmed = api.post(url, {"entrant": seat.entrant_id, "reason": "no_show"}, format="json")
    assert unconfirmed.status_code == 400 and "forfeit" in unconfirmed.json()["detail"]
    assert not MatchSeat.objects.get(pk=seat.pk).did_not_play
    sure = {"entrant": seat.entrant_id, "reason": "no_show", "confirm": True}
    done = api.post(url, sure, format="json")
    assert done.status_code == 200, done.content
    body = done.json()
    assert body["status"] == "finished"
    assert body["entrants"][0]["did_not_play"] == "no_show"
    again = api.post(url, sure, format="json")
    assert again.status_code == 409


def test_a_withdrawal_forfeits_the_unfinished_games_and_keeps_the_played_ones(event, organizer):
    _, _, (match, other) = event
    played = seat_at(other, 0)
    play(other.game, organizer, random.Random(9))
    leaving = seat_at(match, 1)
    services.withdraw(leaving.entrant, by=organizer)
    leaving.refresh_from_db()
    assert leaving.did_not_play == "withdrawn" and leaving.forfeit
    match.game.refresh_from_db()
    assert match.game.status == Game.Status.FINISHED and match.game.forfeits == "B"
    services.withdraw(played.entrant, by=organizer)
    played.refresh_from_db()
    assert played.did_not_play == "" and not played.forfeit


def _table_lines(tournament, match):
    lines, _ = standing_lines(tournament)
    at_table = set(match.seats.values_list("entrant_id", flat=True))
    return [line for line in lines if line.entrant_id in at_table]


@pytest.mark.parametrize("points", [None, {"4": {"1": 3, "2": 2, "3": 1}}])
def test_a_no_show_before_any_hand_leaves_the_others_sharing_first_place(
    event, organizer, points, client
):
    """RULES.md, Officiating: the others keep their order by total, so the three level at
    0 share first place (a drawn game among them) and the no-show is last."""
    tournament, _, (match, _) = event
    if points:
        services.update_tournament(tournament, by=organizer, placement_points=points)
    absent = seat_at(match, 3)
    services.record_did_not_play(absent, by=organizer, reason="no_show")
    game = match.game
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == ""
    seats = {s.position: s for s in match.seats.select_related("entrant")}
    assert [seats[p].placement for p in range(4)] == [1, 1, 1, 4]
    assert not any(seat.won for seat in seats.values())

    rebuild_standings(tournament.pk)
    lines = _table_lines(tournament, match)
    by_entrant = {line.entrant_id: line for line in lines}
    others = [by_entrant[seats[p].entrant_id] for p in range(3)]
    no_show = by_entrant[absent.entrant_id]
    # The three share the placing and its points: a placement table's first place each,
    # or under a win 1 no win for anyone, as in any drawn game.
    shared = 3 if points else 0
    assert [line.metrics["match_points"] for line in others] == [shared] * 3
    assert no_show.metrics["match_points"] == 0
    assert max(line.position for line in others) < no_show.position
    assert no_show.marks == "f" and not any(line.marks for line in others)

    # Every page says how the game ended, in words, in English and in Spanish.
    names = [seats[p].entrant.name for p in range(4)]
    said = f"Forfeit by {names[3]}; {names[0]}, {names[1]} and {names[2]} share first place."
    dicho = (
        f"Abandono de {names[3]}; {names[0]}, {names[1]} y {names[2]} comparten el primer puesto."
    )
    viewer = client_for(None)
    assert said in viewer.get(f"/t/{tournament.slug}/").content.decode()  # the table's card
    spanish = viewer.get(f"/t/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert dicho in spanish
    assert said in viewer.get(f"/games/{game.pk}/").content.decode()
    client.force_login(organizer)
    scoring = client.get(f"/games/{game.pk}/score/")
    assert scoring.status_code == 200
    scoring = scoring.content.decode()
    assert said in scoring and "Game over: a draw." not in scoring


def test_a_partners_forfeit_still_gives_the_other_team_the_win():
    tournament, organizer, _, games = partners_round(teams=2)
    game = games[0]
    match = game.match
    forfeit_seat(game, "B", "left the hall", organizer)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == "A+C"
    seats = {s.position: s for s in match.seats.select_related("entrant")}
    assert (seats[0].placement, seats[0].won) == (1, True)
    assert (seats[1].placement, seats[1].won, seats[1].forfeit) == (2, False, True)
    rebuild_standings(tournament.pk)
    lines, _ = standing_lines(tournament)
    assert [line.entrant_id for line in lines] == [seats[0].entrant_id, seats[1].entrant_id]
    assert [line.metrics["match_points"] for line in lines] == [1, 0]
    page = client_for(None).get(f"/t/{tournament.slug}/").content.decode()
    names = [seats[0].entrant.name, seats[1].entrant.name]
    assert escape(f"Forfeit by {names[1]}; {names[0]} wins.") in page

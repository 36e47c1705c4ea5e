"""A bracket's standings read as the bracket: the champion, the final's other seats, the
third-place table's, then by the round each went out in; the tiebreak order only ranks
those who went out in the same round. The pure computation and the recompute agree, and
every reader of the stored standings (pages, API, CSV, a player's placing, a series'
points) sees that order."""

import pytest

from circuit.services.series import (
    create_next_event,
    create_series,
    read_standings,
    recompute_series,
    series_results,
)
from players.selectors import event_lines
from scoring.models import Game
from scoring.services import record_hand
from tests.factories import PlayerFactory, UserFactory, client_for, event_referee
from tests.tournaments.reference import load_rows
from tournaments import services
from tournaments.models import Entrant, Match, Round
from tournaments.pairing.elimination import build_bracket, build_double_bracket, finishes
from tournaments.read.selectors import standing_lines
from tournaments.read.standings import (
    EntrantInfo,
    EntrantResult,
    GameRow,
    StandingsSettings,
    compute_standings,
    reason_text,
)
from tournaments.read.standings_store import (
    bracket_finishes,
    rank_stages,
    rebuild_standings,
)
from tournaments.stage_facts import bracket_results, settings_for

NAMES = [f"Player {letter}" for letter in "ABCDEFGH"]


def finish_game(game: Game, referee, winner: str, *, loser_points: int = 0) -> None:
    """Play a two-seat game out: the loser first scores ``loser_points`` (in hands of at
    most 30), then the winner goes out every hand with 30 pips left against it."""
    game.refresh_from_db()
    names = [seat.name for seat in game.seats.order_by("position")]
    loser = next(name for name in names if name != winner)
    number = game.hand_count
    while loser_points > 0:
        number += 1
        pips = min(30, loser_points)
        record_hand(
            game,
            by=referee,
            number=number,
            ended="domino",
            domino_by=loser,
            pips={winner: pips, loser: 0},
        )
        loser_points -= pips
    game.refresh_from_db()
    while game.status != Game.Status.FINISHED:
        number += 1
        record_hand(
            game,
            by=referee,
            number=number,
            ended="domino",
            domino_by=winner,
            pips={winner: 0, loser: 30},
        )
        game.refresh_from_db()


def play_round(stage, number: int, referee, plan) -> None:
    """Play every unplayed table of bracket round ``number``: ``plan`` maps the table's
    entrant names (a frozenset) to (the winner's name, the loser's points)."""
    round_ = Round.objects.get(stage=stage, number=number)
    if round_.status == Round.Status.DRAFT:
        services.publish_round(round_, by=stage.tournament.created_by)
    matches = Match.objects.filter(round=round_, bye=False).select_related("game")
    for match in matches:
        if match.game.status == Game.Status.FINISHED:
            continue
        seats = list(match.seats.select_related("entrant").order_by("position"))
        names = frozenset(seat.entrant.name for seat in seats)
        winner_name, loser_points = plan[names]
        side = next(n for n, s in enumerate(seats) if s.entrant.name == winner_name)
        services.assign_referee(match, referee, by=stage.tournament.created_by)
        winner = match.game.seats.order_by("position")[side].name
        finish_game(match.game, referee, winner, loser_points=loser_points)
    for match in matches:
        services.advance_bracket(match)


def bracket_event(*, third_place: bool, tournament=None):
    organizer = UserFactory(username="organizer")
    if tournament is None:
        tournament = services.create_tournament(
            by=organizer, name="Copa", ruleset_key="cutthroat", table_size=2
        )
        services.register_entrants(tournament, by=organizer, text="\n".join(NAMES))
    stage = services.add_stage(
        tournament,
        by=organizer,
        name="Llave",
        format="single_elimination",
        settings={"third_place": True} if third_place else {},
    )
    return tournament, stage


def pair(*names: str) -> frozenset:
    return frozenset(f"Player {name}" for name in names)


# Seeds 1-8 are A-H: the quarter-finals are A v H, D v E, B v G, C v F.
QUARTERS = {
    pair("A", "H"): ("Player A", 0),
    pair("D", "E"): ("Player D", 0),
    pair("B", "G"): ("Player B", 0),
    pair("C", "F"): ("Player C", 0),
}
# A beats D, B beats C but C comes close; in the final B beats A by far. A and C then
# both win two games, and C's point differential is the better one.
SEMIS = {pair("A", "D"): ("Player A", 0), pair("B", "C"): ("Player B", 120)}


def run_bracket(stage, *, third_place: bool):
    referee = event_referee(stage.tournament)
    organizer = stage.tournament.created_by
    services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    play_round(stage, 1, referee, QUARTERS)
    play_round(stage, 2, referee, SEMIS)
    final = {pair("A", "B"): ("Player B", 0)}
    if third_place:
        final[pair("C", "D")] = ("Player C", 0)
    play_round(stage, 3, referee, final)
    rebuild_standings(stage.tournament.pk)


def names_in_order(tournament, stage) -> list[str]:
    lines, _ = standing_lines(tournament, stage=stage)
    return [line.entrant.name for line in lines]


@pytest.mark.django_db
def test_the_third_place_match_decides_third_and_the_runner_up_stays_second():
    tournament, stage = bracket_event(third_place=True)
    run_bracket(stage, third_place=True)
    lines, _ = standing_lines(tournament, stage=stage)
    by_name = {line.entrant.name: line for line in lines}
    runner_up, third = by_name["Player A"], by_name["Player C"]
    # Without the bracket's finish, the third-place winner would rank above the runner-up.
    assert runner_up.metrics["match_points"] == third.metrics["match_points"] == 2
    assert third.metrics["point_differential"] > runner_up.metrics["point_differential"]
    order = [line.entrant.name for line in lines]
    assert order[:4] == ["Player B", "Player A", "Player C", "Player D"]
    assert sorted(order[4:]) == ["Player E", "Player F", "Player G", "Player H"]
    assert [line.metrics["bracket_finish"] for line in lines] == [1, 2, 3, 4, 5, 5, 5, 5]
    assert [line.rank for line in lines][:5] == [1, 2, 3, 4, 5]
    # The quarter-final losers went out in the same round: the tiebreak order ranks them.
    assert [line.reason for line in lines][:2] == [
        "ahead on bracket finish 1 to 2",
        "ahead on bracket finish 2 to 3",
    ]
    assert lines[4].reason_data.get("tied", [None])[0] in (None, "bracket_finish")

    # The pure computation, from the games themselves, gives the same standings.
    entrants, games, byes = load_rows(tournament)[stage.pk]
    finish = bracket_finishes(stage, [e.entrant_id for e in entrants])
    pure = compute_standings(entrants, games, settings_for(tournament), byes=byes, finishes=finish)
    stored = rank_stages(tournament)[0][stage.pk]
    assert [(r.entrant_id, r.rank, r.metrics) for r in pure] == [
        (r.entrant_id, r.rank, r.metrics) for r in stored
    ]

    # The page shows the column and says what it means, in English and in Spanish.
    client = client_for(None)
    page = client.get(f"/t/{tournament.slug}/?stage={stage.order}").content.decode()
    assert "Bracket finish" in page and "the third-place table" in page
    spanish = client.get(
        f"/t/{tournament.slug}/?stage={stage.order}", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Puesto en el cuadro" in spanish and "mesa por el tercer puesto" in spanish
    api = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/?stage={stage.order}")
    body = api.json()
    assert body["order"][0] == "bracket_finish"
    assert [row["entrant"]["name"] for row in body["rows"]][:4] == order[:4]
    assert body["rows"][1]["metrics"]["bracket_finish"] == 2
    csv = client.get(f"/t/{tournament.slug}/export/standings.csv")
    text = b"".join(csv.streaming_content).decode().splitlines()
    assert text[0].endswith(",disqualified,bracket_finish")
    assert [row.split(",")[4] for row in text[1:5]] == order[:4]
    assert [row.split(",")[-1] for row in text[1:5]] == ["1", "2", "3", "4"]


@pytest.mark.django_db
def test_without_a_third_place_match_the_semi_final_losers_share_third_by_tiebreak():
    tournament, stage = bracket_event(third_place=False)
    run_bracket(stage, third_place=False)
    lines, _ = standing_lines(tournament, stage=stage)
    order = [line.entrant.name for line in lines]
    assert order[:2] == ["Player B", "Player A"]
    assert set(order[2:4]) == {"Player C", "Player D"}
    assert [line.metrics["bracket_finish"] for line in lines] == [1, 2, 3, 3, 5, 5, 5, 5]
    # The two semi-final losers are ranked by the tiebreak order below the runner-up:
    # C came close to B, D lost to A by far.
    assert order[2] == "Player C"
    assert lines[2].reason_data["tied"] == ["bracket_finish", "match_points"]
    assert lines[2].reason_data["metric"] == "point_differential"


@pytest.mark.django_db
def test_a_players_placing_and_a_series_points_follow_the_bracket():
    organizer = UserFactory(username="organizer")
    series = create_series(
        by=organizer,
        name="Copa semanal",
        ruleset_key="cutthroat",
        table_size=2,
        stage_format="single_elimination",
        stage_settings={"third_place": True},
        series_points={"1": 10, "2": 6, "3": 4, "4": 2},
    )
    tournament = create_next_event(series, by=organizer)
    services.update_tournament(tournament, by=organizer, status="registration")
    players = {}
    for name in NAMES:
        players[name] = PlayerFactory(display_name=name)
        services.register_entrant(tournament, by=organizer, player=players[name])
    services.update_tournament(tournament, by=organizer, status="running")
    for entrant in Entrant.objects.filter(tournament=tournament):
        Entrant.objects.filter(pk=entrant.pk).update(name=entrant.player.display_name)
    stage = tournament.stages.get()
    run_bracket(stage, third_place=True)

    runner_up = Entrant.objects.get(tournament=tournament, name="Player A")
    third = Entrant.objects.get(tournament=tournament, name="Player C")
    placings = {line.entrant.pk: line.placing for line in event_lines([runner_up, third])}
    assert placings == {runner_up.pk: 2, third.pk: 3}
    page = client_for(None).get(f"/players/{runner_up.player_id}/").content.decode()
    assert "Copa semanal" in page

    results, _ = series_results(series)
    place = {result.player_id: result.place for result in results}
    assert [place[players[f"Player {name}"].pk] for name in "BACD"] == [1, 2, 3, 4]
    recompute_series(series.pk)
    points = {line["name"]: line["points"] for line in read_standings(series)["lines"]}
    assert [points[f"Player {name}"] for name in "BACD"] == [10, 6, 4, 2]


def test_a_bracket_of_four_a_table_ranks_the_final_by_its_placings():
    """Sixteen entrants at tables of four, two through from each: the final's four seats
    take places 1 to 4 in their order there, whatever their totals over the event."""
    slots = build_bracket(16, table_size=4, advance=2)
    seeds = list(range(1, 17))
    results = {
        "R1-1": [1, 8, 9, 16],
        "R1-2": [4, 5, 12, 13],
        "R1-3": [2, 7, 10, 15],
        "R1-4": [3, 6, 11, 14],
        "R2-1": [1, 4, 8, 5],
        "R2-2": [2, 3, 7, 6],
        "R3-1": [3, 1, 2, 4],
    }
    finish = finishes(slots, seeds, results, advance=2)
    assert [finish[e] for e in (3, 1, 2, 4)] == [1, 2, 3, 4]
    assert {finish[e] for e in (8, 5, 7, 6)} == {5}
    assert {finish[e] for e in range(9, 17)} == {9}
    # Totals that would rank 4 (fourth at the final) first without the bracket: it won
    # its earlier tables by far, the champion by little.
    games = []
    for number, (key, ranking) in enumerate(results.items(), start=1):
        totals = {e: 100 - 10 * place for place, e in enumerate(ranking)}
        if key != "R3-1" and 4 in totals:
            totals[4] += 500
        results_ = tuple(
            EntrantResult(e, position, totals[e], position + 1, position == 0)
            for position, e in enumerate(ranking)
        )
        games.append(GameRow(number, int(key[1]), results_))
    entrants = [EntrantInfo(e, e) for e in seeds]
    rows = compute_standings(entrants, games, StandingsSettings(), finishes=finish)
    assert [row.entrant_id for row in rows][:4] == [3, 1, 2, 4]
    plain = compute_standings(entrants, games, StandingsSettings())
    assert [row.entrant_id for row in plain][:4] != [3, 1, 2, 4]
    # Two seats level on total at the final share second place; the tiebreak order then
    # ranks them, as it ranks any entrants with the same finish.
    level = finishes(slots, seeds, results, advance=2, levels={"R3-1": [1, 2, 2, 4]})
    assert [level[e] for e in (3, 1, 2, 4)] == [1, 2, 2, 4]
    # Before the final is played, its four seats are still in: above everyone out.
    partial = {k: v for k, v in results.items() if k != "R3-1"}
    early = finishes(slots, seeds, partial, advance=2)
    assert {early[e] for e in (1, 2, 3, 4)} == {1}
    assert min(early[e] for e in (5, 6, 7, 8)) == 5
    assert reason_text({"metric": "bracket_finish", "one": "1", "two": "2", "tied": []}, str) == (
        "ahead on bracket finish 1 to 2"
    )


def test_a_double_elimination_ranks_by_the_round_each_went_out_in():
    slots = build_double_bracket(8)
    seeds = list(range(1, 9))
    results = {
        "W1-1": [1, 8],
        "W1-2": [4, 5],
        "W1-3": [2, 7],
        "W1-4": [3, 6],
        "W2-1": [1, 4],
        "W2-2": [2, 3],
        "L1-1": [8, 5],
        "L1-2": [7, 6],
    }
    early = finishes(slots, seeds, results)
    # Those still in (in either bracket) can still win; the first losers' round is out.
    assert {early[e] for e in (1, 2, 3, 4, 7, 8)} == {1} and early[5] == early[6] == 7
    results |= {
        "L2-1": [8, 3],
        "L2-2": [4, 7],
        "W3-1": [1, 2],
        "L3-1": [4, 8],
        "L4-1": [2, 4],
        "GF": [2, 1],
    }
    # The losers' bracket champion won the first grand final: the reset decides.
    pending = finishes(slots, seeds, results)
    assert pending[1] == pending[2] == 1 and pending[4] == 3
    done = finishes(slots, seeds, results | {"GF2": [1, 2]})
    assert [done[e] for e in (1, 2, 4, 8)] == [1, 2, 3, 4]
    assert done[3] == done[7] == 5 and done[5] == done[6] == 7
    # Without a reset (or when the winners' champion wins the first), the first decides.
    once = finishes(build_double_bracket(8, grand_final_reset=False), seeds, results)
    assert (once[2], once[1]) == (1, 2)


@pytest.mark.django_db
def test_a_forfeiting_seat_is_placed_last_at_its_bracket_table():
    """At tables of four with two through, a no-show before any hand leaves the three
    others level at 0: the no-show is last at the table whatever the seat order, so it
    neither goes through nor finishes above them."""
    organizer = UserFactory(username="organizer")
    tournament = services.create_tournament(
        by=organizer, name="Copa de cuatro", ruleset_key="cutthroat", table_size=4
    )
    services.register_entrants(tournament, by=organizer, text="\n".join(NAMES))
    stage = services.add_stage(
        tournament, by=organizer, name="Llave", format="single_elimination", settings={"advance": 2}
    )
    first = services.generate_round(stage, by=organizer)
    services.publish_round(first, by=organizer)
    match = first.matches.order_by("table_number").first()
    absent = match.seats.get(position=0)
    services.record_did_not_play(absent, by=organizer, reason="no_show")
    ranking = bracket_results(stage)[match.slot]
    assert ranking[-1] == absent.entrant_id and len(ranking) == 4
    rebuild_standings(tournament.pk)
    lines, _ = standing_lines(tournament, stage=stage)
    finish = {line.entrant_id: line.metrics["bracket_finish"] for line in lines}
    others = [e for e in ranking if e != absent.entrant_id]
    assert finish[absent.entrant_id] == 5 and all(finish[e] == 1 for e in others[:2])

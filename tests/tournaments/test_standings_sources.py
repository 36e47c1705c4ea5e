"""The standings a recompute stores (from the results kept on match seats, summed in the
database) are the standings the pure module gives from every game read as rows."""

import itertools
import random

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.models import Player
from scoring.models import Game, Hand
from scoring.rulesets import get_ruleset
from scoring.services import correct_hand, reopen_game
from tests.factories import UserFactory, partners_round
from tests.tournaments.reference import load_rows
from tournaments.demo import play
from tournaments.models import Entrant, Match, MatchSeat, Round, Stage, Tournament
from tournaments.read.standings import TIEBREAKERS, compute_standings, explain, side_results
from tournaments.read.standings_store import rank_stages
from tournaments.services import (
    record_seat_results,
)
from tournaments.stage_facts import settings_for

pytestmark = pytest.mark.django_db

_slugs = itertools.count()


def _reference(tournament: Tournament) -> dict:
    stages = {stage.pk: stage for stage in tournament.stages.all()}
    return {
        stage_id: compute_standings(
            entrants, games, settings_for(tournament, stages[stage_id]), byes=byes
        )
        for stage_id, (entrants, games, byes) in load_rows(tournament).items()
    }


def _stored(tournament: Tournament) -> dict:
    """What a recompute would store, each row with its reason as a page tells it."""
    order = settings_for(tournament).order
    return {stage: explain(rows, order) for stage, rows in rank_stages(tournament)[0].items()}


def _seat_results(match: Match) -> list[tuple]:
    return list(
        match.seats.order_by("position").values_list(
            "total", "placement", "won", "hands_won", "dominoes", "penalties"
        )
    )


def _expected_results(game: Game) -> list[tuple]:
    if game.status != Game.Status.FINISHED:
        return [(None,) * 6] * game.sides.count()
    return [
        tuple(result)[:6]
        for result in side_results(game.totals, game.tallies, game.winner, game.forfeited_sides)
    ]


def _random_event(rng: random.Random, *, entrants: int, order: list[str], **options) -> Tournament:
    """An event built row by row: random tables of two to four, close totals (so that
    ties are common), finished, live and unplayed games, byes, a second stage of some;
    the tournament's own table size three or four, each stage comparing points as shares
    of the tables' targets (200 at three, 250 at four, 150 at two) or as raw totals."""
    user = get_user_model().objects.first() or UserFactory()
    tournament = Tournament.objects.create(
        name="Random",
        slug=f"random-{next(_slugs)}",
        ruleset_key="cutthroat",
        table_size=options.pop("table_size", 4),
        created_by=user,
        tiebreak_order=order,
        **options,
    )
    players = Player.objects.bulk_create(Player(display_name=f"P{i}") for i in range(entrants))
    people = Entrant.objects.bulk_create(
        Entrant(tournament=tournament, name=f"E{i}", player=player, seed=i + 1)
        for i, player in enumerate(players)
    )
    stages = [
        Stage.objects.create(
            tournament=tournament,
            order=1,
            name="S1",
            settings={"points_basis": options_basis(rng), **options_byes(rng)},
        )
    ]
    if rng.random() < 0.5:
        second = Stage.objects.create(
            tournament=tournament,
            order=2,
            name="S2",
            settings={"points_basis": "raw", **options_byes(rng)},
        )
        second.entrants.set(rng.sample(people, max(2, entrants // 2)))
        stages.append(second)
    for stage in stages:
        field = list(stage.entrants.all()) or people
        for number in range(1, rng.randint(1, 4) + 1):
            round_ = Round.objects.create(stage=stage, number=number, status="published")
            order_ = field[:]
            rng.shuffle(order_)
            tables = []
            if len(order_) > 2 and rng.random() < 0.4:  # one more sits out with a bye
                tables.append(order_[:1])
                order_ = order_[1:]
            while len(order_) >= 2:
                size = min(rng.choice((2, 3, 4)), len(order_))
                tables.append(order_[:size])
                order_ = order_[size:]
            for table_number, table in enumerate(tables + [order_] * bool(order_), start=1):
                _seat(round_, table_number, table, rng)
    return tournament


def _seat(round_: Round, number: int, table: list[Entrant], rng: random.Random) -> None:
    if len(table) == 1:
        match = Match.objects.create(round=round_, table_number=number, bye=True)
        MatchSeat.objects.create(match=match, round=round_, entrant=table[0], position=0)
        return
    names = "ABCD"[: len(table)]
    totals = {name: rng.choice((0, 5, 10, 15, 150, 155)) for name in names}
    status = rng.choice(("finished", "finished", "finished", "in_progress", "scheduled"))
    top = max(totals.values())
    leaders = [name for name in names if totals[name] == top]
    winner = rng.choice([*leaders, ""]) if status == "finished" else ""
    game = Game.objects.create(
        ruleset_key="cutthroat",
        ruleset=get_ruleset("cutthroat", players=len(table)).to_dict(),
        status=status,
        winner=winner,
        followed=True,
        totals=totals if status != "scheduled" else {},
        tallies={
            name: {
                "hands_won": rng.randint(0, 3),
                "dominoes": rng.randint(0, 2),
                "penalties": rng.choice((0, 0, 10)),
            }
            for name in names
        },
    )
    for position, name in enumerate(names):
        game.sides.create(position=position, name=name)
    match = Match.objects.create(round=round_, table_number=number, game=game)
    MatchSeat.objects.bulk_create(
        MatchSeat(match=match, round=round_, entrant=entrant, position=position)
        for position, entrant in enumerate(table)
    )
    record_seat_results(game)


def options_basis(rng: random.Random) -> str:
    return rng.choice(("target_share", "target_share", "raw"))


def options_byes(rng: random.Random) -> dict:
    """A stage's bye settings: what a bye scores (or the tournament's policy) and, in
    some, its own match points."""
    chosen = {}
    scores = rng.choice((None, "round_winners_average", "stage_average", "nothing"))
    if scores:
        chosen["bye_scores"] = scores
    if rng.random() < 0.3:
        chosen["bye_match_points"] = rng.choice((0, 0.5, 2))
    return chosen


ORDERS = st.permutations(list(TIEBREAKERS)).map(lambda keys: [*keys[: len(keys) // 2], "seed"])


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32),
    entrants=st.integers(2, 14),
    order=st.one_of(
        st.just(["match_points", "point_differential", "head_to_head", "seed"]), ORDERS
    ),
    placement_points=st.sampled_from(
        [{}, {"4": {"1": 3, "2": 1, "3": 0.5}}, {"3": {"1": 0.1, "2": 0.2}, "2": {"1": 0.3}}]
    ),
    bye_policy=st.sampled_from(["win_average", "nothing"]),
    include_live=st.booleans(),
    table_size=st.sampled_from([3, 4]),
)
def test_seat_results_rank_like_the_games_themselves(
    seed, entrants, order, placement_points, bye_policy, include_live, table_size
):
    """Over random events with tables of two, three and four (targets 150, 200 and 250)
    in one stage, on either points basis, with byes scoring each stage's choice."""
    tournament = _random_event(
        random.Random(seed),
        entrants=entrants,
        order=list(order),
        placement_points=placement_points,
        bye_policy=bye_policy,
        include_live=include_live,
        table_size=table_size,
    )
    assert _stored(tournament) == _reference(tournament)


@pytest.fixture
def league():
    """Six Partners teams with a round played out through the services."""
    tournament, organizer, _, games = partners_round()
    rng = random.Random(3)
    for game in games:
        play(game, organizer, rng, hands=2)
    play(games[0], organizer, rng)
    return tournament, organizer, games


def test_the_scoring_services_keep_each_seat_result(league):
    """Finishing, correcting and reopening a game each leave its seats' results in step
    with the game, in the same transaction."""
    tournament, organizer, games = league
    finished, playing = games[0], games[1]
    finished.refresh_from_db()
    assert finished.status == Game.Status.FINISHED
    assert _seat_results(finished.match) == _expected_results(finished)
    assert _seat_results(playing.match) == [(None,) * 6] * 2

    hand = Hand.objects.get(game=finished, number=1, is_current=True)
    correct_hand(
        finished,
        1,
        by=organizer,
        reason="misread",
        expected_version=hand.version,
        ended="block",
        pips={"A": 30, "B": 1, "C": 20, "D": 2},
    )
    finished.refresh_from_db()
    assert _seat_results(finished.match) == _expected_results(finished)
    assert _stored(tournament) == _reference(tournament)

    if finished.status == Game.Status.FINISHED:
        reopen_game(finished, by=organizer, reason="a hand was missed")
    finished.refresh_from_db()
    assert finished.status != Game.Status.FINISHED
    assert _seat_results(finished.match) == [(None,) * 6] * 2
    assert _stored(tournament) == _reference(tournament)


def test_only_a_followed_game_is_announced_inside_its_transaction(league):
    """``game_saved`` reaches receivers for a tournament's game, never for a lone game."""
    from scoring.services import SeatSpec, create_game
    from scoring.signals import game_saved

    _, organizer, games = league
    heard = []

    def listen(sender, game, change, **kwargs):
        heard.append((game.pk, change))

    game_saved.connect(listen)
    try:
        lone = create_game(
            ruleset_key="cutthroat",
            seats=[SeatSpec(display_name="Ana"), SeatSpec(display_name="Bea")],
            referees=[organizer],
            by=organizer,
        )
        play(lone, organizer, random.Random(5))
        play(games[1], organizer, random.Random(5), hands=1)
    finally:
        game_saved.disconnect(listen)
    assert heard == [(games[1].pk, "hand_recorded")]


def test_the_operators_recompute_repairs_seat_results_changed_outside_the_services(league):
    from io import StringIO

    from django.core.management import call_command

    tournament, _, games = league
    finished, playing = games[0], games[1]
    finished.refresh_from_db()
    MatchSeat.objects.filter(match__game=finished).update(total=F("total") + 5)
    MatchSeat.objects.filter(match__game=playing, position=0).update(
        total=1,
        placement=1,
        won=True,
        sides=2,
        opponents_total=0,
        hands_won=0,
        dominoes=0,
        penalties=0,
    )
    out = StringIO()
    call_command("recompute_standings", tournament.slug, stdout=out)
    assert "2 game result(s) rewritten on their seats" in out.getvalue()
    assert _seat_results(finished.match) == _expected_results(finished)
    assert _seat_results(playing.match) == [(None,) * 6] * 2
    out = StringIO()
    call_command("recompute_standings", tournament.slug, stdout=out)
    assert "rewritten" not in out.getvalue()

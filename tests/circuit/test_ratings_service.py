"""Ratings follow finished games, re-derive after a change to an older game, and always
equal a full rebuild from every finished game in order."""

import io
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from circuit.models import Rating, RatingChange, RatingsDirty
from circuit.services.ratings import note_change, rebuild_all, take_in_changes
from jobs import runner
from jobs.models import Job
from scoring import services as scoring
from scoring.models import Game
from tests.circuit.helpers import played_game
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def state():
    ratings = sorted(
        Rating.objects.values_list("pool", "player_id", "mu", "sigma", "ordinal", "games")
    )
    history = sorted(
        RatingChange.objects.values_list("pool", "player_id", "game_id", "mu", "sigma", "games")
    )
    return ratings, history


def test_a_finished_game_rates_its_four_players_through_the_task(committed):
    game = played_game(committed=committed)
    ratings = Rating.objects.filter(pool="individual")
    assert ratings.count() == 4 and all(r.games == 1 for r in ratings)
    winner = game.seats.get(side__name=game.winner).player_id
    assert ratings.order_by("-mu").first().player_id == winner
    assert Job.objects.get(kind="ratings").queued is False
    assert not RatingsDirty.objects.exists()


def test_a_game_nobody_holds_is_not_rated(committed):
    by = UserFactory()
    players = [PlayerFactory() for _ in range(2)]
    game = scoring.create_game(
        ruleset_key="cutthroat", seats=players, by=by, referees=[by], start=True
    )
    from random import Random

    from tournaments.demo import play

    with committed():
        play(game, by, Random(4))
    assert not Rating.objects.exists()


def test_partners_games_go_to_their_own_pool(committed):
    played_game(ruleset_key="partners", committed=committed)
    assert Rating.objects.filter(pool="partners").count() == 4
    assert not Rating.objects.filter(pool="individual").exists()


def test_reopening_an_old_game_rederives_every_later_rating(committed):
    players = [PlayerFactory() for _ in range(5)]
    by = UserFactory()
    first = played_game(players[:4], by=by, seed=1, committed=committed)
    played_game(players[1:5], by=by, seed=2, committed=committed)
    with committed():
        scoring.reopen_game(first, by=by, reason="wrong seat")
    assert not RatingChange.objects.filter(game=first).exists()
    assert not Rating.objects.filter(player=players[0]).exists()  # their only game
    incremental = state()
    rebuild_all()
    assert state() == incremental


def test_rebuild_ratings_command_gives_the_incremental_numbers(committed):
    players = [PlayerFactory() for _ in range(6)]
    by = UserFactory()
    for seed in range(3):
        played_game(players[seed : seed + 4], by=by, seed=seed, committed=committed)
    incremental = state()
    out = io.StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert "individual: 3 games" in out.getvalue()
    assert state() == incremental


def test_a_broker_that_is_down_keeps_the_request_for_the_sweep(committed, monkeypatch):
    def refuse(*args, **kwargs):
        raise ConnectionError("broker away")

    monkeypatch.setattr(runner.run_job, "apply_async", refuse)
    game = played_game(committed=committed)  # the referee's hands are all stored
    assert game.status == "finished" and not Rating.objects.exists()
    job = Job.objects.get(kind="ratings")
    assert job.dirty and not job.queued
    monkeypatch.undo()
    assert runner.sweep() == 1
    assert Rating.objects.count() == 4


# --- the property: incremental updates equal a full rebuild --------------------------

SIZES = {"cutthroat": 4, "partners": 4}


def make_games(count: int, kinds: list[str]):
    by = UserFactory()
    players = [PlayerFactory() for _ in range(7)]
    games = []
    for n in range(count):
        kind = kinds[n % len(kinds)]
        seated = [players[(n + k) % len(players)] for k in range(SIZES[kind])]
        games.append(
            scoring.create_game(ruleset_key=kind, seats=seated, by=by, start=True, followed=True)
        )
    return games


def finish(game: Game, totals: list[int], at) -> None:
    names = list(game.sides.order_by("position").values_list("name", flat=True))
    points = dict(zip(names, totals, strict=False))
    best = max(points.values())
    winners = [name for name, value in points.items() if value == best]
    Game.objects.filter(pk=game.pk).update(
        status="finished",
        totals=points,
        winner=winners[0] if len(winners) == 1 else "",
        finished_at=Game.objects.get(pk=game.pk).finished_at or at,
    )


def reopen(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(status="in_progress", winner="", finished_at=None)


operation = st.tuples(
    st.sampled_from(["finish", "correct", "reopen"]),
    st.integers(0, 5),
    st.lists(st.integers(0, 250), min_size=4, max_size=4),
    st.booleans(),  # take the changes in now, or let them pile up (coalesced)
)


@pytest.mark.parametrize("few", [0, 24], ids=["restored-in-one-query", "restored-one-by-one"])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    kinds=st.lists(st.sampled_from(["cutthroat", "partners"]), min_size=1, max_size=2),
    operations=st.lists(operation, min_size=1, max_size=14),
)
def test_incremental_ratings_equal_a_full_rebuild(few, kinds, operations, monkeypatch):
    from circuit.services import ratings

    monkeypatch.setattr(ratings, "FEW", few)
    Game.objects.all().delete()  # each example starts from no games (and no ratings)
    Rating.objects.all().delete()
    games = make_games(6, kinds)
    start = timezone.now()
    for step, (action, index, totals, now) in enumerate(operations):
        game = Game.objects.get(pk=games[index].pk)
        if action == "finish" or (action == "correct" and game.status == "finished"):
            # A correction keeps the finish time, so the game keeps its place in order.
            finish(game, totals, start + timedelta(minutes=step))
        elif action == "reopen" and game.status == "finished":
            reopen(game)
        note_change(game.pk)
        if now:
            take_in_changes()
    take_in_changes()
    incremental = state()
    rebuild_all()
    assert state() == incremental
    rated = Game.objects.filter(pk__in=[g.pk for g in games], status="finished").count()
    assert RatingChange.objects.values("game_id").distinct().count() == rated


def test_a_merge_of_two_players_is_rerated_from_their_first_game(committed):
    from circuit.services.ratings import rerate_games_of
    from scoring.models import Seat

    players = [PlayerFactory() for _ in range(6)]
    by = UserFactory()
    played_game(players[:4], by=by, seed=1, committed=committed)
    played_game(players[2:], by=by, seed=2, committed=committed)
    # Player 5 turns out to be player 0 (a merge made outside the scoring services).
    twin, kept = players[5], players[0]
    Seat.objects.filter(player=twin).update(player=kept)
    with committed():
        assert rerate_games_of([twin.pk, kept.pk]) == 2
    assert Rating.objects.get(player=kept, pool="individual").games == 2
    assert not Rating.objects.filter(player=twin).exists()
    incremental = state()
    rebuild_all()
    assert state() == incremental


def test_merging_two_rated_players_rates_the_kept_one_from_their_first_game(committed):
    """Both players hold a rating in the same pool: the merge drops both (they are worked
    out from games) and rates the pool again, as a full rebuild would."""
    from players.identity import merge_players
    from tests.factories import SuperuserFactory

    players = [PlayerFactory() for _ in range(6)]
    by = UserFactory()
    played_game(players[:4], by=by, seed=1, committed=committed)
    played_game(players[2:], by=by, seed=2, committed=committed)
    kept, twin = players[0], players[5]
    assert Rating.objects.filter(player__in=[kept, twin], pool="individual").count() == 2
    with committed():
        merge_players(kept, twin, by=SuperuserFactory())
    assert Rating.objects.get(player=kept, pool="individual").games == 2
    assert not Rating.objects.filter(player_id=twin.pk).exists()
    incremental = state()
    rebuild_all()
    assert state() == incremental


def test_a_private_events_games_count_only_while_it_is_public(committed):
    """Ratings are public: a private event's games are not rated, join the pools when it
    turns public and leave them when it turns private again."""
    from random import Random

    from tests.factories import client_for, cutthroat_round
    from tournaments.demo import play
    from tournaments.services import update_tournament

    organizer = UserFactory()
    tournament, _stage, round_ = cutthroat_round(organizer, players=4)
    with committed():
        update_tournament(tournament, by=organizer, public=False)
    game = round_.matches.get().game
    with committed():
        play(game, organizer, Random(3))
    player = game.seats.first().player
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert client_for(None).get("/api/v1/ratings/individual/?min_games=0").json()["count"] == 0

    with committed():
        update_tournament(tournament, by=organizer, public=True)
    assert Rating.objects.filter(games=1).count() == 4
    public = state()
    rebuild_all()
    assert state() == public  # the same numbers as a rebuild from the first game
    (entry,) = client_for(None).get(f"/api/v1/players/{player.pk}/ratings/").json()
    assert [point["game"] for point in entry["history"]] == [game.pk]

    with committed():
        update_tournament(tournament, by=organizer, public=False)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert client_for(None).get(f"/api/v1/players/{player.pk}/ratings/").json() == []
    board = client_for(None).get("/ratings/?min_games=0").content.decode()
    # The name as a cell's text: a bare substring test also met it in a random nonce.
    assert re.search(rf">\s*{re.escape(player.display_name)}\s*<", board) is None


def test_the_history_leaves_out_a_game_turned_private_before_it_is_rated_again(committed):
    from circuit.selectors import player_ratings

    game = played_game(committed=committed)
    player = game.seats.first().player_id
    Game.objects.filter(pk=game.pk).update(public=False)  # its event turned private just now
    (entry,) = player_ratings(player)
    assert entry["history"] == []


def test_which_games_count_is_one_query_whatever_the_consent_records(committed):
    """The rated games are read in one query: the ladder seats' and the events' entry
    requests' conditions are subqueries of it, not look-ups per game."""
    from random import Random

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from circuit.services.ratings import RATED
    from players.models import EntryRequest
    from tests.factories import cutthroat_round
    from tournaments.demo import play

    organizer = UserFactory()
    tournament, _stage, round_ = cutthroat_round(organizer, players=8)
    games = [match.game for match in round_.matches.all()]
    with committed():
        for seed, game in enumerate(games):
            play(game, organizer, Random(seed))
    seat = games[0].seats.first()
    entrant = tournament.entrants.get(player=seat.player)
    with CaptureQueriesContext(connection) as queries:
        rated = set(Game.objects.filter(RATED).values_list("pk", flat=True))
    assert len(queries) == 1 and rated == {game.pk for game in games}
    # A pending request of a seat's player in that event takes that game (only) out.
    EntryRequest.objects.create(
        tournament=tournament, entrant=entrant, player=seat.player, asked_at=timezone.now()
    )
    with CaptureQueriesContext(connection) as queries:
        rated = set(Game.objects.filter(RATED).values_list("pk", flat=True))
    assert len(queries) == 1 and rated == {game.pk for game in games[1:]}

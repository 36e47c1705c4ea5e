"""Ratings kept current from finished games, and the full rebuild that must agree with them.

A game's change (finished, corrected, voided, reopened) leaves a ``RatingsDirty`` row in
the request's transaction's wake; the ``ratings`` job takes the rows in and rebuilds each
pool from the earliest game they touch: every history row from that game's place in the
finish order onward is dropped, its players go back to their rating just before it, and
the games from there on are rated again in order. A game that just finished is the
latest, so the usual rebuild is that one game; a correction of an old one re-derives
every later rating, exactly as a full rebuild from the first game would.
"""

from collections.abc import Iterator
from datetime import datetime
from itertools import groupby

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q

from circuit import rating
from circuit.models import LadderSeat, Pool, Rating, RatingChange, RatingsDirty
from jobs import runner
from players.models import EntryRequest
from scoring.models import Game, Seat
from tournaments.read.standings import placements
from tournaments.read.standings_store import collector_paused

Cut = tuple[datetime, int]  # (finished_at, game id): the order games are rated in
BATCH = 2000
FEW = 24  # players restored one look-up each; more are read in one query


def _consented(game: str, ladder: str) -> Q:
    """A game every seat of which its player consented to (``game``: the path to the
    game's id, ``ladder``: to its ladder table): in a ladder, a ladder seat record says
    so; in an event, no entry request of the seat's player waits for their word there
    (``players.entries``: an entry made for a person by someone else holds their player
    only once they accept it, or if it predates the requests and they have yet to
    answer). One condition, so the rated games stay one query."""
    seats = Seat.objects.filter(game_id=OuterRef(game))
    unladdered = seats.exclude(
        Exists(
            LadderSeat.objects.filter(
                table__game_id=OuterRef("game_id"), player_id=OuterRef("player_id")
            )
        )
    )
    unasked = seats.filter(
        Exists(
            EntryRequest.objects.filter(
                answer=EntryRequest.Answer.PENDING,
                player_id=OuterRef("player_id"),
                tournament_id=OuterRef("game__match__round__stage__tournament_id"),
            )
        )
    )
    return (Q(**{f"{ladder}__isnull": True}) | ~Exists(unladdered)) & ~Exists(unasked)


# What makes a game count: finished, held by an event's table or a ladder (a game
# anyone opens on their own is not rated), official (not in a draft round), public (the
# ratings are: a private event's games stay out of them) and, in a ladder, every seat
# consented to (circuit.consent), in an event, no seat waiting for its player's word
# (players.entries).
RATED = Q(
    status=Game.Status.FINISHED, followed=True, held=False, public=True, finished_at__isnull=False
) & _consented("pk", "ladder")


def pool_of(ruleset: dict | None) -> str:
    """The pool a game is rated in: Partners teams, or every player for themself."""
    return Pool.PARTNERS if (ruleset or {}).get("teams") == "partners" else Pool.INDIVIDUAL


def _in_pool(pool: str) -> Q:
    partners = Q(ruleset__teams="partners")
    return partners if pool == Pool.PARTNERS else ~partners


def _from(cut: Cut | None, *, at: str = "finished_at", game: str = "game_id") -> Q:
    if cut is None:
        return Q()
    # Written as a range on the finish time, less the games of the same instant that
    # come before the cut, so that an index on the finish time serves it.
    return Q(**{f"{at}__gte": cut[0]}) & ~Q(**{at: cut[0], f"{game}__lt": cut[1]})


def rated_games(pool: str, since: Cut | None = None) -> Iterator[tuple[rating.RatedGame, datetime]]:
    """The pool's rated games from ``since`` on, in finish order, with their finish times.

    Two streamed queries in the same order (the games, then their seats); a game with an
    empty seat or a player in two seats is not rated.
    """
    games = (
        Game.objects.filter(RATED, _in_pool(pool), _from(since, game="pk"))
        .order_by("finished_at", "pk")
        .values_list("pk", "finished_at", "totals")
    )
    seats = (
        Seat.objects.filter(RATED_SEATS, _in_pool_seats(pool), _from(since, at="game__finished_at"))
        .order_by("game__finished_at", "game_id", "position")
        .values_list("game_id", "side__name", "player_id")
    )
    seat_groups = groupby(seats.iterator(chunk_size=BATCH), key=lambda row: row[0])
    for game_id, finished_at, totals in games.iterator(chunk_size=BATCH):
        seat_game, rows = next(seat_groups)
        assert seat_game == game_id, "games and seats streamed out of step"
        names = sorted(totals)
        placing = dict(zip(names, placements([totals[n] for n in names]), strict=True))
        sides: dict[str, list[int]] = {name: [] for name in names}
        players = []
        for _game, side, player in rows:
            sides.setdefault(side, []).append(player)
            players.append(player)
        if None in players or len(set(players)) != len(players) or len(sides) != len(names):
            continue
        yield (
            rating.RatedGame(
                game_id,
                tuple(tuple(sides[n]) for n in names),
                tuple(placing[n] for n in names),
            ),
            finished_at,
        )


RATED_SEATS = Q(
    game__status=Game.Status.FINISHED,
    game__followed=True,
    game__held=False,
    game__public=True,
    game__finished_at__isnull=False,
) & _consented("game_id", "game__ladder")


def _in_pool_seats(pool: str) -> Q:
    partners = Q(game__ruleset__teams="partners")
    return partners if pool == Pool.PARTNERS else ~partners


def _restored(pool: str, players: set[int], cut: Cut) -> dict[int, rating.Skill]:
    """Each player's skill just before ``cut`` (players with no game before it: none)."""
    skills: dict[int, rating.Skill] = {}
    earlier = RatingChange.objects.filter(pool=pool).exclude(_from(cut))
    columns = ("player_id", "mu", "sigma", "games")
    if len(players) <= FEW:
        # The players of one game: each one's last row, one indexed look-up each, however
        # long their history.
        rows = [
            row
            for player in players
            for row in earlier.filter(player_id=player)
            .order_by("-finished_at", "-game_id")
            .values_list(*columns)[:1]
        ]
    else:
        rows = (
            earlier.filter(player_id__in=players)
            .order_by("player_id", "-finished_at", "-game_id")
            .values_list(*columns)
        )
    for player, mu, sigma, games in rows:
        skills.setdefault(player, rating.Skill(mu, sigma, games))
    return skills


def rebuild_pool(pool: str, since: Cut | None = None) -> int:
    """Rate the pool's games again from ``since`` (every game when None); returns games rated."""
    with transaction.atomic():
        later = RatingChange.objects.filter(pool=pool).filter(_from(since))
        if since is None:
            affected: set[int] = set()
            later.delete()
            Rating.objects.filter(pool=pool).delete()
            skills: dict[int, rating.Skill] = {}
        else:
            affected = set(later.values_list("player_id", flat=True).distinct())
            later.delete()
            skills = _restored(pool, affected, since)
        with collector_paused():  # many small objects, no cycles: see standings_store
            games = list(rated_games(pool, since))
            history, last_game = _rate(pool, skills, games, affected, since)
            _insert_history(history)
        _write_ratings(pool, skills, changed=set(last_game) | affected, last_game=last_game)
    return len(games)


def _rate(pool: str, skills, games, affected: set[int], since: Cut | None):
    """Rate ``games`` in order from ``skills``; returns the history rows (their time
    adapted for the database) and each player's last game."""
    if since is not None:
        # Players of these games who are not affected stand where their rating row says.
        newcomers = {p for g, _at in games for side in g.sides for p in side} - affected
        for player, mu, sigma, played in Rating.objects.filter(
            pool=pool, player_id__in=newcomers
        ).values_list("player_id", "mu", "sigma", "games"):
            skills[player] = rating.Skill(mu, sigma, played)
    finished = {g.game_id: at for g, at in games}
    last_game: dict[int, datetime] = {}
    history = []
    adapt = connection.ops.adapt_datetimefield_value
    for game, after in rating.replay(skills, (g for g, _at in games)):
        at = finished[game.game_id]
        stored_at = adapt(at)  # once per game, for its four rows
        for player, skill in after.items():
            last_game[player] = at
            history.append(
                (pool, player, game.game_id, stored_at, skill.mu, skill.sigma,
                 skill.ordinal, skill.games)
            )  # fmt: skip
    return history, last_game


def _insert_history(rows: list[tuple]) -> None:
    """Write history rows (their time already adapted for the database) in batches of
    plain inserts: a full rebuild writes one per player per game, and building a model
    instance for each costs more than rating it."""
    table = RatingChange._meta.db_table
    columns = ["pool", "player_id", "game_id", "finished_at", "mu", "sigma", "ordinal", "games"]
    sql = (
        f"INSERT INTO {connection.ops.quote_name(table)} "
        f"({', '.join(connection.ops.quote_name(c) for c in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            cursor.executemany(sql, rows[start : start + BATCH])


def _write_ratings(pool: str, skills, *, changed: set[int], last_game: dict) -> None:
    """Replace the rating rows of the players whose rating moved (a player left with no
    rated game loses the row)."""
    ids = sorted(changed)
    for start in range(0, len(ids), BATCH):
        Rating.objects.filter(pool=pool, player_id__in=ids[start : start + BATCH]).delete()
    restored_at = _last_game_before(pool, [p for p in ids if p in skills and p not in last_game])
    Rating.objects.bulk_create(
        (
            Rating(
                pool=pool,
                player_id=player,
                mu=skills[player].mu,
                sigma=skills[player].sigma,
                ordinal=skills[player].ordinal,
                games=skills[player].games,
                last_game_at=last_game.get(player) or restored_at.get(player),
            )
            for player in ids
            if player in skills
        ),
        batch_size=BATCH,
    )


def _last_game_before(pool: str, players: list[int]) -> dict[int, datetime]:
    if not players:
        return {}
    latest = {}
    rows = (
        RatingChange.objects.filter(pool=pool, player_id__in=players)
        .order_by("player_id", "-finished_at")
        .values_list("player_id", "finished_at")
    )
    for player, at in rows:
        latest.setdefault(player, at)
    return latest


def rebuild_all() -> dict[str, int]:
    """Every pool from its first game: what ``manage.py rebuild_ratings`` runs."""
    with transaction.atomic():
        RatingsDirty.objects.all().delete()
        return {pool: rebuild_pool(pool) for pool in Pool.values}


def note_change(game_id: int) -> None:
    """Remember that a game changed in a way that may move ratings (after its commit)."""
    RatingsDirty.objects.get_or_create(game_id=game_id)


def take_in_changes() -> int:
    """Rebuild each pool from the earliest game changed since the last run; returns games
    rated."""
    with transaction.atomic():
        dirty = list(RatingsDirty.objects.select_for_update().values_list("pk", "game_id"))
        if not dirty:
            return 0
        RatingsDirty.objects.filter(pk__in=[pk for pk, _ in dirty]).delete()
        game_ids = [game_id for _, game_id in dirty]
        cuts: dict[str, Cut] = {}

        def lower(pool: str, cut: Cut) -> None:
            cuts[pool] = min(cuts.get(pool, cut), cut)

        applied = RatingChange.objects.filter(game_id__in=game_ids).values_list(
            "pool", "finished_at", "game_id"
        )
        for pool, at, game_id in applied.distinct():
            lower(pool, (at, game_id))
        for game_id, at, ruleset in Game.objects.filter(RATED, pk__in=game_ids).values_list(
            "pk", "finished_at", "ruleset"
        ):
            lower(pool_of(ruleset), (at, game_id))
        return sum(rebuild_pool(pool, since=cut) for pool, cut in cuts.items())


def rerate_games_of(player_ids) -> int:
    """Queue a re-rating of every finished game the players sat in: for a change made
    to seats outside the scoring services (two players merged into one, say); returns
    the games noted. The rebuild starts from the earliest of them."""
    game_ids = set(
        Seat.objects.filter(player_id__in=list(player_ids), game__status=Game.Status.FINISHED)
        .values_list("game_id", flat=True)
        .distinct()
    )
    # Their old history rows may name a player who no longer sits there: the cut starts
    # at the earliest game any of them was rated in.
    game_ids |= set(
        RatingChange.objects.filter(player_id__in=list(player_ids)).values_list(
            "game_id", flat=True
        )
    )
    RatingsDirty.objects.bulk_create(
        [RatingsDirty(game_id=game_id) for game_id in game_ids], ignore_conflicts=True
    )
    if game_ids:
        runner.request_on_commit("ratings")
    return len(game_ids)


def rerate_games_of_event(tournament_id: int) -> int:
    """Queue a re-rating of an event's finished games: it turned public (they join the
    pools) or private (they leave them); returns the games noted."""
    game_ids = list(
        Game.objects.filter(
            match__round__stage__tournament_id=tournament_id,
            status=Game.Status.FINISHED,
            followed=True,
        ).values_list("pk", flat=True)
    )
    RatingsDirty.objects.bulk_create(
        [RatingsDirty(game_id=game_id) for game_id in game_ids], ignore_conflicts=True
    )
    if game_ids:
        runner.request_on_commit("ratings")
    return len(game_ids)

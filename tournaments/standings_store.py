"""Loading a tournament's results into plain rows and storing the standings snapshot.

``rebuild_standings`` reads everything with a fixed number of queries (whatever the
number of entrants, games or hands), ranks each stage with the pure
``tournaments.standings`` module and replaces the stage snapshots in one transaction.
"""

import json
from collections import defaultdict

from django.db import connection, transaction
from django.db.models import Count, F, Max, Sum
from django.utils import timezone

from scoring.models import Game, Hand, ScoreEvent
from tournaments.models import MatchSeat, Stage, Standing, StandingsState, Tournament
from tournaments.standings import (
    ByeRow,
    EntrantInfo,
    EntrantResult,
    GameRow,
    StandingsSettings,
    compute_standings,
)


def settings_for(tournament: Tournament) -> StandingsSettings:
    """The tournament's ranking choices as the pure module takes them."""
    points = {
        int(size): {int(place): value for place, value in table.items()}
        for size, table in (tournament.placement_points or {}).items()
    }
    return StandingsSettings(
        order=tuple(tournament.tiebreak_order),
        placement_points=points,
        bye_policy=tournament.bye_policy,
        include_live=tournament.include_live,
    )


def _placements(totals: dict[int, int]) -> dict[int, int]:
    """Placement per side position, best total first; equal totals share a placement."""
    ordered = sorted(totals.values(), reverse=True)
    return {position: ordered.index(total) + 1 for position, total in totals.items()}


def load_rows(tournament: Tournament) -> dict[int, tuple[list, list, list]]:
    """Per stage id: (entrant infos, game rows, bye rows), in a fixed number of queries."""
    stages = list(Stage.objects.filter(tournament=tournament).prefetch_related("entrants"))
    all_entrants = list(tournament.entrants.all())
    seats = list(
        MatchSeat.objects.filter(match__round__stage__tournament=tournament).values(
            "entrant_id",
            "position",
            "match_id",
            "match__bye",
            "match__game_id",
            "round__number",
            "round__stage_id",
        )
    )
    # Every filter joins on the tournament rather than listing thousands of game ids.
    in_event = {"match__round__stage__tournament": tournament}
    games = {
        game["id"]: game
        for game in Game.objects.filter(**in_event).values("id", "status", "winner", "totals")
    }
    # Side i of a game is the i-th of its side names in order ("A" … or "A+C", "B+D"),
    # and a seat scores for the side whose name holds it: no side or seat rows needed.
    sides = {}  # game -> side position -> side name
    seat_side = {}  # (game, seat name) -> side position
    for game_id, game in games.items():
        names = sorted(game["totals"])
        sides[game_id] = dict(enumerate(names))
        for position, name in enumerate(names):
            for seat in name.split("+"):
                seat_side[(game_id, seat)] = position
    hands_won = defaultdict(int)
    dominoes = defaultdict(int)
    counted_hands = (
        Hand.objects.filter(game__in=Game.objects.filter(**in_event), is_current=True, voided=False)
        .values("game_id", "winners", "domino_by")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in counted_hands:
        game_id = row["game_id"]
        for name in row["winners"]:
            hands_won[(game_id, seat_side[(game_id, name.split("+")[0])])] += row["count"]
        if row["domino_by"]:
            dominoes[(game_id, seat_side[(game_id, row["domino_by"])])] += row["count"]
    penalties = defaultdict(int)
    for row in (
        ScoreEvent.objects.filter(
            game__in=Game.objects.filter(**in_event), active=True, kind="penalty"
        )
        .values("game_id", "side__position")
        .annotate(points=Sum("points"))
        .order_by()
    ):
        penalties[(row["game_id"], row["side__position"])] = -row["points"]

    by_match = defaultdict(list)
    for row in seats:
        by_match[row["match_id"]].append(row)
    per_stage: dict[int, tuple[list, list, list]] = {stage.pk: ([], [], []) for stage in stages}
    for rows in by_match.values():
        first = rows[0]
        stage_rows = per_stage[first["round__stage_id"]]
        if first["match__bye"]:
            stage_rows[2].extend(ByeRow(row["entrant_id"], row["round__number"]) for row in rows)
            continue
        game_id = first["match__game_id"]
        game = games.get(game_id)
        if game is None or game["status"] == Game.Status.SCHEDULED:
            continue
        game_sides = sides[game_id]
        totals = game["totals"]
        places = _placements({pos: totals[name] for pos, name in game_sides.items()})
        results = []
        for row in sorted(rows, key=lambda r: r["position"]):
            side = game_sides[row["position"]]
            results.append(
                EntrantResult(
                    entrant_id=row["entrant_id"],
                    seat_position=row["position"],
                    total=totals[side],
                    placement=places[row["position"]],
                    won=game["winner"] == side,
                    hands_won=hands_won[(game_id, row["position"])],
                    dominoes=dominoes[(game_id, row["position"])],
                    penalty_points=penalties[(game_id, row["position"])],
                )
            )
        stage_rows[1].append(
            GameRow(
                game_id=game_id,
                round_number=first["round__number"],
                entrants=tuple(results),
                finished=game["status"] == Game.Status.FINISHED,
            )
        )
    for stage in stages:
        members = list(stage.entrants.all()) or all_entrants
        per_stage[stage.pk][0].extend(
            EntrantInfo(entrant_id=e.pk, seed=e.seed, withdrawn=e.withdrawn) for e in members
        )
    return per_stage


_COLUMNS = (
    "tournament_id",
    "stage_id",
    "entrant_id",
    "rank",
    "position",
    "tied",
    "games_played",
    "metrics",
    "reason",
    "reason_data",
    "withdrawn",
    "computed_at",
)


def _insert(snapshot: list[Standing]) -> None:
    """Write a snapshot's rows: PostgreSQL's COPY where available (a thousand rows of
    JSON in one stream instead of eleven bound arrays), else one bulk insert."""
    if connection.vendor != "postgresql" or not snapshot:
        Standing.objects.bulk_create(snapshot)
        return
    table = Standing._meta.db_table
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor
        with raw.copy(f"COPY {table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            for row in snapshot:
                copy.write_row(
                    (
                        row.tournament_id,
                        row.stage_id,
                        row.entrant_id,
                        row.rank,
                        row.position,
                        row.tied,
                        row.games_played,
                        json.dumps(row.metrics),
                        row.reason,
                        json.dumps(row.reason_data),
                        row.withdrawn,
                        row.computed_at,
                    )
                )


def rebuild_standings(tournament_id: int) -> int:
    """Recompute and replace every stage's snapshot of one tournament; returns rows written."""
    tournament = Tournament.objects.get(pk=tournament_id)
    started = timezone.now()
    per_stage = load_rows(tournament)
    settings = settings_for(tournament)
    snapshot = []
    for stage_id, (entrants, games, byes) in per_stage.items():
        rows = compute_standings(entrants, games, settings, byes=byes)
        snapshot.extend(
            Standing(
                tournament=tournament,
                stage_id=stage_id,
                entrant_id=row.entrant_id,
                rank=row.rank,
                position=index,
                tied=row.tied,
                games_played=row.games_played,
                metrics=row.metrics,
                reason=row.reason[:300],
                reason_data=row.reason_data,
                withdrawn=row.withdrawn,
                computed_at=started,
            )
            for index, row in enumerate(rows, start=1)
        )
    last_hand = Hand.objects.filter(game__match__round__stage__tournament=tournament).aggregate(
        at=Max("recorded_at")
    )["at"]
    with transaction.atomic():
        Standing.objects.filter(tournament=tournament).delete()
        _insert(snapshot)
        state, _ = StandingsState.objects.get_or_create(tournament=tournament)
        StandingsState.objects.filter(pk=state.pk).update(
            computed_at=started, last_hand_at=last_hand, runs=F("runs") + 1
        )
    return len(snapshot)


def stage_ranking(stage: Stage, *, per_pool: int | None = None) -> list[int]:
    """Entrant ids of a stage in finishing order (computed now, from its games).

    With ``per_pool``, the top ``per_pool`` of each pool: first places first.
    """
    from tournaments.pairing.pools import advancers

    tournament = stage.tournament
    entrants, games, byes = load_rows(tournament)[stage.pk]
    rows = compute_standings(entrants, games, settings_for(tournament), byes=byes)
    order = [row.entrant_id for row in rows]
    if not per_pool:
        return order
    pool_of: dict[int, str] = dict(
        MatchSeat.objects.filter(round__stage=stage, match__slot__startswith="P")
        .values_list("entrant_id", "match__slot")
        .distinct()
    )
    pools: dict[str, list[int]] = defaultdict(list)
    for entrant_id in order:
        pools[pool_of.get(entrant_id, "P?")].append(entrant_id)
    return advancers([pools[key] for key in sorted(pools)], per_pool)

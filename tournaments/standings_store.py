"""Loading a tournament's results into plain rows and storing the standings snapshot.

``rebuild_standings`` reads everything with a fixed number of queries (whatever the
number of entrants, games or hands), ranks each stage with the pure
``tournaments.standings`` module and replaces the stage snapshots in one transaction.
"""

from collections import defaultdict

import orjson
from django.db import connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from scoring.engine import TALLY_ZERO
from scoring.models import Game
from tournaments.models import MatchSeat, Stage, Standing, StandingsState, Tournament
from tournaments.standings import (
    ByeRow,
    EntrantInfo,
    EntrantResult,
    GameRow,
    StandingRow,
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


def _placements(totals: list[int]) -> list[int]:
    """Placement of each total, best first; equal totals share a placement."""
    ordered = sorted(totals, reverse=True)
    return [ordered.index(total) + 1 for total in totals]


# Every match of the tournament with its game's totals and tallies (the hands won,
# dominoes and penalty points the scoring services keep beside the totals), and every
# seat: two plain reads, no hand rows.
MATCHES_SQL = """
SELECT m.id, r.stage_id, r.number, m.bye, g.id, g.status, g.winner, g.totals, g.tallies
FROM tournaments_match m
JOIN tournaments_round r ON r.id = m.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
LEFT JOIN scoring_game g ON g.id = m.game_id
WHERE s.tournament_id = %s
ORDER BY m.id
"""
SEATS_SQL = """
SELECT ms.match_id, ms.position, ms.entrant_id
FROM tournaments_matchseat ms
JOIN tournaments_round r ON r.id = ms.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
WHERE s.tournament_id = %s
"""


def _json(value):
    """A JSON column read through a plain cursor comes as text; orjson parses the four
    thousand small objects of a large event several times faster than ``json``."""
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


def load_rows(tournament: Tournament) -> dict[int, tuple[list, list, list]]:
    """Per stage id: (entrant infos, game rows, bye rows), in a fixed number of queries."""
    stage_ids = list(
        Stage.objects.filter(tournament=tournament).order_by("order").values_list("pk", flat=True)
    )
    infos = {
        pk: EntrantInfo(pk, seed, withdrawn)
        for pk, seed, withdrawn in tournament.entrants.values_list("pk", "seed", "withdrawn")
    }
    members: dict[int, list[EntrantInfo]] = defaultdict(list)
    for stage_id, entrant_id in Stage.entrants.through.objects.filter(
        stage__tournament=tournament
    ).values_list("stage_id", "entrant_id"):
        members[stage_id].append(infos[entrant_id])
    per_stage: dict[int, tuple[list, list, list]] = {
        pk: (members.get(pk) or list(infos.values()), [], []) for pk in stage_ids
    }
    with connection.cursor() as cursor:
        cursor.execute(MATCHES_SQL, [tournament.pk])
        matches = cursor.fetchall()
        cursor.execute(SEATS_SQL, [tournament.pk])
        seats = cursor.fetchall()
    seats_of: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for match_id, position, entrant_id in seats:
        seats_of[match_id].append((position, entrant_id))
    live = (Game.Status.IN_PROGRESS, Game.Status.FINISHED)
    finished = Game.Status.FINISHED
    for match_id, stage_id, round_number, bye, game_id, status, winner, totals, tallies in matches:
        table = sorted(seats_of[match_id])
        stage_rows = per_stage[stage_id]
        if bye:
            stage_rows[2].extend(ByeRow(entrant_id, round_number) for _, entrant_id in table)
            continue
        if game_id is None or status not in live:
            continue
        totals, tallies = _json(totals), _json(tallies)
        # Side i of a game is the i-th of its side names in order ("A" … or "A+C", "B+D"),
        # and the entrant in match position i holds side i.
        names = sorted(totals)
        scores = [totals[names[position]] for position, _ in table]
        places = _placements(scores)
        results = []
        for (position, entrant_id), total, place in zip(table, scores, places, strict=True):
            name = names[position]
            tally = tallies.get(name) or TALLY_ZERO
            results.append(
                EntrantResult(
                    entrant_id,
                    position,
                    total,
                    place,
                    winner == name,
                    tally["hands_won"],
                    tally["dominoes"],
                    tally["penalties"],
                )
            )
        stage_rows[1].append(GameRow(game_id, round_number, tuple(results), status == finished))
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


def _copy_text(value) -> str:
    """One value in PostgreSQL's COPY text format."""
    if value is None:
        return "\\N"
    if value is True or value is False:
        return "t" if value else "f"
    text = str(value)
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        text = (
            text.replace("\\", "\\\\")
            .replace("\t", "\\t")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
        )
    return text


def _insert(tournament_id: int, computed_at, rows: list[tuple[int, int, StandingRow]]) -> None:
    """Write a snapshot's rows: on PostgreSQL one COPY stream, written as text here (a
    thousand rows with two JSON columns each), else one bulk insert."""
    if connection.vendor != "postgresql":
        Standing.objects.bulk_create(
            Standing(
                tournament_id=tournament_id,
                stage_id=stage_id,
                entrant_id=row.entrant_id,
                rank=row.rank,
                position=position,
                tied=row.tied,
                games_played=row.games_played,
                metrics=row.metrics,
                reason=row.reason[:300],
                reason_data=row.reason_data,
                withdrawn=row.withdrawn,
                computed_at=computed_at,
            )
            for stage_id, position, row in rows
        )
        return
    stamp = computed_at.isoformat()
    lines = [
        "\t".join(
            (
                str(tournament_id),
                str(stage_id),
                str(row.entrant_id),
                str(row.rank),
                str(position),
                _copy_text(row.tied),
                str(row.games_played),
                _copy_text(orjson.dumps(row.metrics).decode()),
                _copy_text(row.reason[:300]),
                _copy_text(orjson.dumps(row.reason_data).decode()),
                _copy_text(row.withdrawn),
                stamp,
            )
        )
        for stage_id, position, row in rows
    ]
    table = Standing._meta.db_table
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor
        with raw.copy(f"COPY {table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            copy.write("\n".join(lines) + "\n")


def rebuild_standings(tournament_id: int) -> int:
    """Recompute and replace every stage's snapshot of one tournament; returns rows written."""
    tournament = Tournament.objects.get(pk=tournament_id)
    started = timezone.now()
    per_stage = load_rows(tournament)
    settings = settings_for(tournament)
    snapshot = []
    for stage_id, (entrants, games, byes) in per_stage.items():
        rows = compute_standings(entrants, games, settings, byes=byes)
        snapshot.extend((stage_id, position, row) for position, row in enumerate(rows, start=1))
    last_hand = Game.objects.filter(match__round__stage__tournament=tournament).aggregate(
        at=Max("last_hand_at")
    )["at"]
    with transaction.atomic():
        Standing.objects.filter(tournament=tournament).delete()
        _insert(tournament.pk, started, snapshot)
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

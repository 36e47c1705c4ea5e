"""Loading a tournament's results for the standings, and storing the snapshot.

A finished game's result is kept on its match seats (``services.record_seat_results``,
in the scoring transaction that finishes, corrects or reopens the game), so a recompute
sums
seat columns in the database instead of reading every game: one grouped query for the
whole tournament, whatever the number of entrants, games or hands. Live games (when the
tournament counts them) and the games of entrants still tied at head to head are read
as rows. Each stage's snapshot is written as one document.
"""

from collections import defaultdict
from operator import itemgetter

import orjson
from django.db import connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from scoring.models import Game
from tournaments.models import MatchSeat, Stage, StandingsSnapshot, StandingsState, Tournament
from tournaments.standings import (
    METRICS,
    SIXTHS,
    ByeRow,
    EntrantInfo,
    EntrantResult,
    GameRow,
    Record,
    StandingRow,
    StandingsSettings,
    add_game,
    check_order,
    new_records,
    rank,
    settle,
    side_results,
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


# --- loading ------------------------------------------------------------------------------

# Per stage and entrant, the finished games' seat results summed: games by table size
# and placement, wins by table size (what match points depend on), and the matches, to
# find each entrant's opponents.
PLACES = tuple((sides, placement) for sides in (2, 3, 4) for placement in range(1, sides + 1))
RESULTS_SQL = """
SELECT r.stage_id, ms.entrant_id, COUNT(*), SUM(ms.total),
       SUM(ms.opponents_total * {sixths} / (ms.sides - 1)), SUM(ms.hands_won),
       SUM(ms.dominoes), SUM(ms.penalties), {places}, {wins}, {matches}
FROM tournaments_matchseat ms
JOIN tournaments_round r ON r.id = ms.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
WHERE s.tournament_id = %s AND ms.total IS NOT NULL
GROUP BY r.stage_id, ms.entrant_id
"""
# Seats at the tables of bye matches and of live games (those only when counted).
OTHER_SEATS_SQL = """
SELECT m.id, r.stage_id, r.number, m.bye, ms.position, ms.entrant_id, g.winner,
       g.totals, g.tallies
FROM tournaments_matchseat ms
JOIN tournaments_match m ON m.id = ms.match_id
JOIN tournaments_round r ON r.id = ms.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
LEFT JOIN scoring_game g ON g.id = m.game_id
WHERE s.tournament_id = %s AND (m.bye OR (%s AND g.status = 'in_progress'))
ORDER BY m.id, ms.position
"""
# Every seat of some finished games, for head to head.
TABLES_SQL = """
SELECT ms.match_id, r.number, ms.position, ms.entrant_id, ms.total, ms.placement, ms.won,
       ms.hands_won, ms.dominoes, ms.penalties
FROM tournaments_matchseat ms
JOIN tournaments_round r ON r.id = ms.round_id
WHERE ms.match_id IN ({matches}) AND ms.total IS NOT NULL
ORDER BY ms.match_id, ms.position
"""


def _json(value):
    """A JSON column read through a plain cursor comes as text."""
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


def _results_sql() -> str:
    if connection.vendor == "postgresql":
        matches = "string_agg(ms.match_id::text, ',')"
    else:
        matches = "group_concat(ms.match_id, ',')"
    return RESULTS_SQL.format(
        sixths=SIXTHS,
        places=", ".join(
            f"COUNT(*) FILTER (WHERE ms.sides = {sides} AND ms.placement = {placement})"
            for sides, placement in PLACES
        ),
        wins=", ".join(
            f"COUNT(*) FILTER (WHERE ms.won AND ms.sides = {sides})" for sides in (2, 3, 4)
        ),
        matches=matches,
    )


class StageRows:
    """One stage's records as loaded, before the byes and derived metrics are settled."""

    def __init__(self, stage_id: int, entrants: list[EntrantInfo]):
        self.stage_id = stage_id
        self.records: dict[int, Record] = new_records(entrants)
        self.byes: list[ByeRow] = []
        self.live: list[GameRow] = []
        self.points = 0
        self.seats = 0

    @property
    def average(self) -> float:
        return self.points / self.seats if self.seats else 0


STAGES_SQL = """
SELECT s.id, m.entrant_id
FROM tournaments_stage s
LEFT JOIN {members} m ON m.stage_id = s.id
WHERE s.tournament_id = %s
ORDER BY s."order"
"""
ENTRANTS_SQL = "SELECT id, seed, withdrawn FROM tournaments_entrant WHERE tournament_id = %s"


def _stage_entrants(tournament: Tournament) -> dict[int, list[EntrantInfo]]:
    """Every stage's entrants, in stage order (a stage without its own list has all)."""
    members_table = Stage.entrants.through._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(ENTRANTS_SQL, [tournament.pk])
        infos = {pk: EntrantInfo(pk, seed, bool(withdrawn)) for pk, seed, withdrawn in cursor}
        cursor.execute(STAGES_SQL.format(members=members_table), [tournament.pk])
        members: dict[int, list[EntrantInfo]] = {}
        for stage_id, entrant_id in cursor.fetchall():
            listed = members.setdefault(stage_id, [])
            if entrant_id is not None:
                listed.append(infos[entrant_id])
    return {pk: listed or list(infos.values()) for pk, listed in members.items()}


def load_records(tournament: Tournament, settings: StandingsSettings) -> dict[int, StageRows]:
    """Per stage id, every entrant's summed results, the byes and the counted live games."""
    stages = {pk: StageRows(pk, infos) for pk, infos in _stage_entrants(tournament).items()}
    with connection.cursor() as cursor:
        cursor.execute(_results_sql(), [tournament.pk])
        grouped = cursor.fetchall()
        cursor.execute(OTHER_SEATS_SQL, [tournament.pk, settings.include_live])
        others = cursor.fetchall()
    places_at = len(PLACES)
    for (
        stage_id,
        entrant_id,
        games,
        total,
        against_sixths,
        hands_won,
        dominoes,
        penalties,
        *rest,
    ) in grouped:
        stage = stages[stage_id]
        stage.points += total
        stage.seats += games
        record = stage.records.get(entrant_id)
        if record is None:
            continue
        record.games += games
        record.total += total
        record.against_sixths += against_sixths
        record.hands_won += hands_won
        record.dominoes += dominoes
        record.penalties += penalties
        for index, count in enumerate(rest[:places_at]):
            if count:
                record.places[PLACES[index]] = count
        for sides, count in zip((2, 3, 4), rest[places_at:-1], strict=True):
            if count:
                record.wins_at[sides] = count
                record.wins += count
        record.matches += map(int, rest[-1].split(","))
    tables: dict[int, list] = defaultdict(list)
    for row in others:
        tables[row[0]].append(row)
    for seats in tables.values():
        match_id, stage_id, number, bye, _, _, winner, totals, tallies = seats[0]
        stage = stages[stage_id]
        if bye:
            stage.byes.extend(ByeRow(seat[5], number) for seat in seats)
            continue
        results = side_results(_json(totals), _json(tallies), winner)
        game = GameRow(
            match_id,
            number,
            tuple(
                EntrantResult(seat[5], seat[4], *result)
                for seat, result in zip(seats, results, strict=True)
            ),
            finished=False,
        )
        stage.live.append(game)
        add_game(stage.records, game)
        stage.points += sum(result.total for result in results)
        stage.seats += len(results)
    return stages


def _games_for(stage: StageRows):
    """Head to head's games for a set of entrants: the finished games in which two of them
    met (one query; a game with only one of them adds nothing), and the live games."""

    def games_for(entrant_ids: set[int]) -> dict[int, list[GameRow]]:
        seen: dict[int, int] = defaultdict(int)
        for entrant_id in entrant_ids:
            for match_id in stage.records[entrant_id].matches:
                seen[match_id] += 1
        shared = sorted(match_id for match_id, count in seen.items() if count > 1)
        seats = []
        if shared:
            with connection.cursor() as cursor:
                cursor.execute(TABLES_SQL.format(matches=", ".join(["%s"] * len(shared))), shared)
                seats = cursor.fetchall()
        tables: dict[int, list] = defaultdict(list)
        for seat in seats:
            tables[seat[0]].append(seat)
        games = [
            GameRow(
                match_id,
                rows[0][1],
                tuple(EntrantResult(row[3], row[2], *row[4:]) for row in rows),
            )
            for match_id, rows in tables.items()
        ]
        games_of: dict[int, list[GameRow]] = defaultdict(list)
        for game in games + stage.live:
            for result in game.entrants:
                if result.entrant_id in entrant_ids:
                    games_of[result.entrant_id].append(game)
        return games_of

    return games_for


def rank_stages(tournament: Tournament) -> dict[int, list[StandingRow]]:
    """Every stage's standings computed now, in stage order."""
    settings = settings_for(tournament)
    check_order(settings)
    ranked = {}
    for stage_id, stage in load_records(tournament, settings).items():
        settle(stage.records, settings, stage.byes, stage.average)
        ranked[stage_id] = rank(stage.records, settings, _games_for(stage))
    return ranked


# --- the snapshot -------------------------------------------------------------------------


def snapshot_document(rows: list[StandingRow]) -> str:
    """A stage's ranked rows as a snapshot document (see ``StandingsSnapshot``)."""
    keys = list(METRICS)
    metrics_of = itemgetter(*keys)
    lines = [
        (
            row.entrant_id,
            row.rank,
            row.tied,
            row.withdrawn,
            row.games_played,
            metrics_of(row.metrics),
            row.reason_data,
        )
        for row in rows
    ]
    return orjson.dumps({"metrics": keys, "lines": lines}).decode()


def snapshot_rows(document: str) -> list[StandingRow]:
    """The rows of a snapshot document, best first."""
    data = orjson.loads(document)
    keys = data["metrics"]
    return [
        StandingRow(
            rank, tied, entrant_id, withdrawn, games, dict(zip(keys, values, strict=True)), reason
        )
        for entrant_id, rank, tied, withdrawn, games, values, reason in data["lines"]
    ]


def _write_snapshots(tournament_id: int, computed_at, ranked: dict[int, list]) -> None:
    """Replace the tournament's snapshots: one row per stage, its lines as one document."""
    StandingsSnapshot.objects.filter(tournament_id=tournament_id).delete()
    StandingsSnapshot.objects.bulk_create(
        StandingsSnapshot(
            tournament_id=tournament_id,
            stage_id=stage_id,
            computed_at=computed_at,
            document=snapshot_document(rows),
        )
        for stage_id, rows in ranked.items()
    )


def rebuild_standings(tournament_id: int) -> int:
    """Recompute and replace every stage's snapshot of one tournament; returns lines written."""
    tournament = Tournament.objects.get(pk=tournament_id)
    started = timezone.now()
    ranked = rank_stages(tournament)
    last_hand = Game.objects.filter(match__round__stage__tournament=tournament).aggregate(
        at=Max("last_hand_at")
    )["at"]
    with transaction.atomic():
        _write_snapshots(tournament.pk, started, ranked)
        stamp = {"computed_at": started, "last_hand_at": last_hand, "runs": F("runs") + 1}
        if not StandingsState.objects.filter(tournament=tournament).update(**stamp):
            StandingsState.objects.create(tournament=tournament, **{**stamp, "runs": 1})
    return sum(len(rows) for rows in ranked.values())


# --- the reference path: every game read as rows -----------------------------------------

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


def load_rows(tournament: Tournament) -> dict[int, tuple[list, list, list]]:
    """Per stage id: (entrant infos, game rows, bye rows) read from the games themselves,
    for ``compute_standings``; the seat results must always rank the same way."""
    per_stage = {pk: (infos, [], []) for pk, infos in _stage_entrants(tournament).items()}
    with connection.cursor() as cursor:
        cursor.execute(MATCHES_SQL, [tournament.pk])
        matches = cursor.fetchall()
        cursor.execute(SEATS_SQL, [tournament.pk])
        seats = cursor.fetchall()
    seats_of: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for match_id, position, entrant_id in seats:
        seats_of[match_id].append((position, entrant_id))
    live = (Game.Status.IN_PROGRESS, Game.Status.FINISHED)
    for match_id, stage_id, number, bye, game_id, status, winner, totals, tallies in matches:
        table = sorted(seats_of[match_id])
        stage_rows = per_stage[stage_id]
        if bye:
            stage_rows[2].extend(ByeRow(entrant_id, number) for _, entrant_id in table)
            continue
        if game_id is None or status not in live:
            continue
        results = side_results(_json(totals), _json(tallies), winner)
        stage_rows[1].append(
            GameRow(
                game_id,
                number,
                tuple(
                    EntrantResult(entrant_id, position, *result)
                    for (position, entrant_id), result in zip(table, results, strict=True)
                ),
                status == Game.Status.FINISHED,
            )
        )
    return per_stage


def stage_ranking(stage: Stage, *, per_pool: int | None = None) -> list[int]:
    """Entrant ids of a stage in finishing order (computed now, from its games).

    With ``per_pool``, the top ``per_pool`` of each pool: first places first.
    """
    from tournaments.pairing.pools import advancers

    order = [row.entrant_id for row in rank_stages(stage.tournament)[stage.pk]]
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

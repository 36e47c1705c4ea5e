"""Loading a tournament's results for the standings, and storing the snapshot.

A finished game's result is kept on its match seats (``services.record_seat_results``,
in the scoring transaction that finishes, corrects or reopens the game), so a recompute
sums seat columns in the database instead of reading every game: one grouped query for
the whole tournament, whatever the number of entrants, games or hands; it also lists
each entrant's seats, from which head to head reads the games tied entrants met. Live
games (when the tournament counts them) are read as rows. Each stage's snapshot is
written as one document.
"""

import gc
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from operator import itemgetter

import orjson
from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from scoring.models import Dispute
from tournaments.models import (
    MatchSeat,
    Stage,
    StandingsSnapshot,
    StandingsState,
    Tournament,
)
from tournaments.pairing.base import PairingError
from tournaments.pairing.elimination import finishes
from tournaments.pairing.pools import advancers
from tournaments.read import live
from tournaments.read.standings import (
    METRICS,
    ROUND_WINNERS,
    SIXTIETHS,
    WIN_POINTS,
    ByeRow,
    EntrantInfo,
    EntrantResult,
    GameRow,
    Record,
    Scale,
    StandingRow,
    StandingsSettings,
    Tally,
    add_game,
    add_winners,
    bracket_order,
    by_finish,
    check_order,
    new_records,
    placement_table,
    rank,
    settle,
    side_results,
)
from tournaments.signals import standings_rewritten
from tournaments.stage_facts import (
    bracket_results,
    draw_order,
    engine_of,
    is_bracket,
    points_basis,
    settings_for,
    stage_byes,
)

RANKING_FIELDS = (
    "tiebreak_order",
    "placement_points",
    "bye_policy",
    "include_live",
    "ruleset_key",
    "overrides",
    "table_size",
)


# --- loading ------------------------------------------------------------------------------

# Per stage and entrant, the finished games' seat results summed: games won, the match
# points they earn, and the seats (``SEAT_BITS``), to find each entrant's opponents and
# head to head; on one row of each stage, its latest hand. Rounds in draft are left out
# here and below (a game scored there before drafts were held would otherwise count).
RESULTS_SQL = """
SELECT r.stage_id, ms.entrant_id, COUNT(*), SUM(ms.total),
       SUM(ms.opponents_total * {sixtieths} / (ms.sides - 1)), SUM(ms.hands_won),
       SUM(ms.dominoes), SUM(ms.penalties),
       CASE WHEN ROW_NUMBER() OVER stage = 1 THEN MAX(MAX(ms.last_hand_at)) OVER stage END,
       COUNT(*) FILTER (WHERE ms.won), {match_points}, {matches}, {scaled}
FROM tournaments_matchseat ms
JOIN tournaments_round r ON r.id = ms.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
WHERE s.tournament_id = %s AND ms.total IS NOT NULL AND r.status <> 'draft'
GROUP BY r.stage_id, ms.entrant_id
WINDOW stage AS (PARTITION BY r.stage_id)
"""
# Seats at the tables of bye matches and of live games (those only when counted).
OTHER_SEATS_SQL = """
SELECT m.id, r.stage_id, r.number, m.bye, ms.position, ms.entrant_id, g.winner,
       g.totals, g.tallies, g.last_hand_at
FROM tournaments_matchseat ms
JOIN tournaments_match m ON m.id = ms.match_id
JOIN tournaments_round r ON r.id = ms.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
LEFT JOIN scoring_game g ON g.id = m.game_id
WHERE s.tournament_id = %s AND r.status <> 'draft'
  AND (m.bye OR (%s AND g.status = 'in_progress'))
ORDER BY m.id, ms.position
"""
# Per stage and round, the winners' points in finished games (a bye scoring the average
# of its round's winners, ``standings.ROUND_WINNERS``).
WINNERS_SQL = """
SELECT r.stage_id, r.number, SUM(ms.total), {scaled}, COUNT(*)
FROM tournaments_matchseat ms
JOIN tournaments_round r ON r.id = ms.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
WHERE s.tournament_id = %s AND ms.total IS NOT NULL AND r.status <> 'draft' AND ms.won
GROUP BY r.stage_id, r.number
"""
# A finished seat as the grouped query lists it, one whole number: its match, then its
# table's size, its placement and whether it won, four bits, four and one. Head to head
# reads the tied entrants' seats from it, instead of asking for their games again.
SEAT_BITS = 9
SEAT_SQL = "ms.match_id * 512 + ms.sides * 32 + ms.placement * 2 + {won}"


def _json(value):
    """A JSON column read through a plain cursor comes as text."""
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


def _results_sql(settings: StandingsSettings) -> tuple[str, list]:
    """The grouped query for a tournament's settings, and its parameters but the last
    (the tournament): match points are a win 1, else 0, at a table size without the
    organizer's placement points, the points for the placement at one with them
    (``standings.points_for_place``, whose numbers it takes)."""
    if connection.vendor == "postgresql":
        matches = f"string_agg(({SEAT_SQL.format(won='ms.won::int')})::text, ',')"
    else:
        matches = f"group_concat({SEAT_SQL.format(won='ms.won')}, ',')"
    tables = {
        size: table
        for size in settings.placement_points
        if (table := placement_table(settings, size)) is not None
    }
    cases, params = [], []
    for size, table in tables.items():
        for placement, points in table.items():
            cases.append("WHEN ms.sides = %s AND ms.placement = %s THEN %s")
            params += [int(size), int(placement), float(points)]
    params.append(WIN_POINTS)
    wins = "ms.won"
    if tables:
        wins += f" AND ms.sides NOT IN ({', '.join(['%s'] * len(tables))})"
        params += [int(size) for size in tables]
    placed = f"SUM(CASE {' '.join(cases)} ELSE 0 END)" if cases else "0"
    match_points = f"{placed} + %s * COUNT(*) FILTER (WHERE {wins})"
    # Each seat's points weighed by its table size's target (``standings.Scale``), in
    # whole numbers: the sums are exact, as the pure module's are.
    # Where every table plays to one target (``SAME_SCALE``) the raw sums serve alone.
    scaled = "0, 0"
    scale = settings.scale
    if scale.weights:
        weight, steps = _weight_sql(scale)
        params += steps * 2
        scaled = (
            f"CAST(SUM(ms.total * {weight}) AS BIGINT), CAST(SUM(ms.opponents_total * "
            f"{SIXTIETHS} / (ms.sides - 1) * {weight}) AS BIGINT)"
        )
    sql = RESULTS_SQL.format(
        sixtieths=SIXTIETHS, match_points=match_points, matches=matches, scaled=scaled
    )
    return sql, params


def _weight_sql(scale: Scale) -> tuple[str, list]:
    """A seat's ``Scale`` weight by its table's size, as SQL, and its parameters."""
    whens = " ".join(["WHEN %s THEN CAST(%s AS BIGINT)"] * len(scale.weights))
    steps = [value for pair in scale.weights.items() for value in pair] + [scale.unit]
    return f"CASE ms.sides {whens} ELSE CAST(%s AS BIGINT) END", steps


def load_winners(tournament: Tournament, settings: StandingsSettings) -> dict[tuple, Tally]:
    """Per (stage id, round number), the finished games' winners' points (one query)."""
    scaled, params = "0", []
    if settings.scale.weights:
        weight, params = _weight_sql(settings.scale)
        scaled = f"CAST(SUM(ms.total * {weight}) AS BIGINT)"
    with connection.cursor() as cursor:
        cursor.execute(WINNERS_SQL.format(scaled=scaled), [*params, tournament.pk])
        return {
            (stage_id, number): Tally(points, scaled_points, seats)
            for stage_id, number, points, scaled_points, seats in cursor.fetchall()
        }


class StageRows:
    """One stage's records as loaded, before the byes and derived metrics are settled."""

    def __init__(self, stage_id: int, entrants: list[EntrantInfo]):
        self.stage_id = stage_id
        self.records: dict[int, Record] = new_records(entrants)
        self.byes: list[ByeRow] = []
        self.live: list[GameRow] = []
        # Each entrant's finished seats as the grouped query listed them (``SEAT_BITS``).
        self.entrant_seats: dict[int, str] = {}
        # The live games' winners, by round (the finished games' are read when needed).
        self.winners: dict[int, Tally] = {}
        self.points = 0
        self.scaled = 0
        self.seats = 0
        self.last_hand_at = None

    @property
    def totals(self) -> Tally:
        """Every counted seat's points, for the stage's average game total."""
        return Tally(self.points, self.scaled, self.seats)

    def saw_hand(self, at) -> None:
        """Keep the latest hand the stage's standings include."""
        if isinstance(at, str):  # SQLite keeps times as text, in UTC
            at = parse_datetime(at).replace(tzinfo=UTC)
        if at is not None and (self.last_hand_at is None or at > self.last_hand_at):
            self.last_hand_at = at


# Every entrant of the tournament (marked 0), then each stage's own list of entrants
# (marked 1, in stage order; a stage without a list has one row with no entrant): one query.
STAGES_SQL = """
SELECT 0, 0, id, seed, withdrawn FROM tournaments_entrant WHERE tournament_id = %s
UNION ALL
SELECT 1, s."order", s.id, m.entrant_id, NULL
FROM tournaments_stage s
LEFT JOIN {members} m ON m.stage_id = s.id
WHERE s.tournament_id = %s
ORDER BY 1, 2, 3
"""


def _stage_entrants(tournament: Tournament) -> dict[int, list[EntrantInfo]]:
    """Every stage's entrants, in stage order (a stage without its own list has all)."""
    return _stage_entrants_of(_fetch(_stage_entrants_sql(tournament.pk))[0])


def _stage_entrants_sql(tournament_id: int) -> tuple[str, list]:
    """``STAGES_SQL`` and its parameters (``_stage_entrants_of`` reads its rows)."""
    members_table = Stage.entrants.through._meta.db_table
    return STAGES_SQL.format(members=members_table), [tournament_id, tournament_id]


def _stage_entrants_of(rows) -> dict[int, list[EntrantInfo]]:
    """``STAGES_SQL``'s rows as every stage's entrants, in stage order."""
    infos: dict[int, EntrantInfo] = {}
    members: dict[int, list[EntrantInfo]] = {}
    for listed, _, pk, entrant_id, withdrawn in rows:
        if not listed:
            infos[pk] = EntrantInfo(pk, entrant_id, bool(withdrawn))
        elif entrant_id is None:
            members.setdefault(pk, [])
        else:
            members.setdefault(pk, []).append(infos[entrant_id])
    return {pk: listed or list(infos.values()) for pk, listed in members.items()}


def _fetch(*statements: tuple[str, Sequence]) -> list:
    """Run the statements in turn; each one's rows (or, for a write, the rows it changed).

    On PostgreSQL they go in one round trip: psycopg's pipeline sends them all before it
    reads an answer (a recompute's other reads are short beside its grouped query).
    """
    if connection.vendor != "postgresql":
        answers = []
        with connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
                answers.append(cursor.fetchall() if cursor.description else cursor.rowcount)
        return answers
    connection.ensure_connection()
    with ExitStack() as cursors:
        opened = [cursors.enter_context(connection.cursor()) for _ in statements]
        with connection.connection.pipeline() as pipeline:
            for cursor, (sql, params) in zip(opened, statements, strict=True):
                cursor.execute(sql, params)
            pipeline.sync()
            return [
                cursor.fetchall() if cursor.description else cursor.rowcount for cursor in opened
            ]


def load_records(
    tournament: Tournament, settings: StandingsSettings, marks: dict[int, str] | None = None
) -> dict[int, StageRows]:
    """Per stage id, every entrant's summed results, the byes and the counted live games
    (one round trip); given ``marks``, the entrants' officiating marks are read in the same
    trip and put there (``officiating_marks``)."""
    sql, params = _results_sql(settings)
    statements = [
        _stage_entrants_sql(tournament.pk),
        (sql, [*params, tournament.pk]),
        (OTHER_SEATS_SQL, [tournament.pk, settings.include_live]),
    ]
    if marks is not None:
        statements.append(_marks_sql(tournament.pk))
    entrants, grouped, others, *marked = _fetch(*statements)
    if marks is not None:
        marks.update(_marks_of(marked[0]))
    stages = {pk: StageRows(pk, infos) for pk, infos in _stage_entrants_of(entrants).items()}
    for (
        stage_id,
        entrant_id,
        games,
        total,
        against_sixtieths,
        hands_won,
        dominoes,
        penalties,
        last_hand_at,
        wins,
        match_points,
        seats,
        scaled_total,
        scaled_against,
    ) in grouped:
        stage = stages[stage_id]
        stage.points += total
        stage.scaled += scaled_total
        stage.seats += games
        if last_hand_at is not None:
            stage.saw_hand(last_hand_at)
        record = stage.records.get(entrant_id)
        if record is None:
            continue
        record.games += games
        record.total += total
        record.against_sixtieths += against_sixtieths
        record.scaled_total += scaled_total
        record.scaled_against += scaled_against
        record.hands_won += hands_won
        record.dominoes += dominoes
        record.penalties += penalties
        record.wins += wins
        record.game_points = match_points
        record.matches += [seat >> SEAT_BITS for seat in map(int, seats.split(","))]
        stage.entrant_seats[entrant_id] = seats
    tables: dict[int, list] = defaultdict(list)
    for row in others:
        tables[row[0]].append(row)
    for seats in tables.values():
        match_id, stage_id, number, bye, _, _, winner, totals, tallies, last_hand_at = seats[0]
        stage = stages[stage_id]
        stage.saw_hand(last_hand_at)
        if bye:
            stage.byes.extend(ByeRow(seat[5], number) for seat in seats)
            continue
        results = side_results(_json(totals), _json(tallies), winner)
        game = GameRow(
            match_id,
            number,
            tuple(
                # A game still being played has no forfeit: the first six fields count.
                EntrantResult(seat[5], seat[4], *result[:6])
                for seat, result in zip(seats, results, strict=True)
            ),
            finished=False,
        )
        stage.live.append(game)
        add_game(stage.records, game, settings.scale)
        add_winners(stage.winners, game, settings.scale)
        points = sum(result.total for result in results)
        stage.points += points
        stage.scaled += points * settings.scale.of(len(results))
        stage.seats += len(results)
    return stages


def _games_for(stage: StageRows):
    """Head to head's games for a set of entrants: the finished games in which two of them
    met, each with their seats only (read from the grouped query's seats: no query), and
    the live games."""

    def games_for(entrant_ids: set[int]) -> dict[int, list[GameRow]]:
        tables: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for entrant_id in entrant_ids:
            seats = stage.entrant_seats.get(entrant_id)
            if seats:
                for seat in map(int, seats.split(",")):
                    tables[seat >> SEAT_BITS].append((entrant_id, seat))
        games = [
            GameRow(
                match_id,
                0,
                tuple(
                    [
                        EntrantResult(entrant_id, 0, 0, seat >> 1 & 15, bool(seat & 1))
                        for entrant_id, seat in seats
                    ]
                ),
                sides=seats[0][1] >> 5 & 15,
            )
            for match_id, seats in tables.items()
            if len(seats) > 1  # a game with only one of them adds nothing
        ]
        games_of: dict[int, list[GameRow]] = defaultdict(list)
        for game in games + stage.live:
            for result in game.entrants:
                if result.entrant_id in entrant_ids:
                    games_of[result.entrant_id].append(game)
        return games_of

    return games_for


def bracket_stages(tournament: Tournament, stages: list[Stage] | None = None) -> dict[int, Stage]:
    """The tournament's bracket stages (their engine seats winners as games finish), by
    id: their standings rank by the bracket's finish first (one query, unless the caller
    read the ``stages`` already)."""
    if stages is None:
        stages = Stage.objects.filter(tournament=tournament).select_related("tournament")
    return {stage.pk: stage for stage in stages if is_bracket(stage)}


def stage_order(tournament: Tournament, stage: Stage | None) -> list[str]:
    """The order a stage's standings are ranked and shown by: a bracket's by its finish
    first, then the tournament's tiebreak order."""
    order = list(tournament.tiebreak_order)
    if is_bracket(stage):
        return list(bracket_order(order))
    return order


def bracket_finishes(stage: Stage, entrant_ids) -> dict[int, int] | None:
    """Per entrant of a bracket stage, the place its results give so far (see
    ``elimination.finishes``); None when there is no bracket to read (too few entrants)."""
    # The field and seeds the bracket was drawn from, as pairing takes them.
    seeds = draw_order(stage)
    try:
        slots = engine_of(stage).bracket(
            len(seeds), table_size=stage.tournament.sides_per_table, settings=stage.settings
        )
    except PairingError:
        return None
    levels: dict[str, list[int]] = {}
    results = bracket_results(stage, levels=levels)
    return finishes(
        slots,
        seeds,
        results,
        advance=stage.settings.get("advance", 1),
        field=entrant_ids,
        levels=levels,
    )


def rank_stages(
    tournament: Tournament,
    brackets: dict[int, Stage] | None = None,
    stages: list[Stage] | None = None,
    marks: dict[int, str] | None = None,
) -> tuple[dict[int, list[StandingRow]], datetime | None]:
    """Every stage's standings computed now, in stage order, and the latest hand they
    include. A bracket's are ranked by its finish first (``bracket_order``); ``brackets``
    are the tournament's bracket stages, and ``stages`` all its stages (each with its
    points basis and byes, ``settings_for``), where the caller has read them already.
    Given ``marks``, the entrants' officiating marks are put there (``load_records``)."""
    settings = settings_for(tournament)
    check_order(settings)
    if stages is None:
        stages = list(Stage.objects.filter(tournament=tournament).select_related("tournament"))
    if brackets is None:
        brackets = bracket_stages(tournament, stages)
    # Each stage's points basis and byes, from its settings.
    of_stage = {
        stage.pk: replace(
            settings, points_basis=points_basis(stage), **stage_byes(tournament, stage)
        )
        for stage in stages
    }
    loaded = load_records(tournament, settings, marks)
    # The finished games' winners, only where a bye scores their average (one query).
    winners = {}
    if any(
        stage.byes and of_stage.get(stage_id, settings).bye_scores == ROUND_WINNERS
        for stage_id, stage in loaded.items()
    ):
        winners = load_winners(tournament, settings)
    ranked = {}
    last_hand_at = None
    for stage_id, stage in loaded.items():
        counted = of_stage.get(stage_id, settings)
        for (winners_stage, number), tally in winners.items():
            if winners_stage == stage_id:
                stage.winners[number] = stage.winners.get(number, Tally()).plus(*tally)
        settle(stage.records, counted, stage.byes, stage.totals, stage.winners)
        ranking = counted
        if stage_id in brackets:
            finish = bracket_finishes(brackets[stage_id], list(stage.records))
            ranking = by_finish(stage.records, finish or {}, counted)
        ranked[stage_id] = rank(stage.records, ranking, _games_for(stage))
        if stage.last_hand_at and (last_hand_at is None or stage.last_hand_at > last_hand_at):
            last_hand_at = stage.last_hand_at
    return ranked, last_hand_at


# --- the snapshot -------------------------------------------------------------------------


def snapshot_document(
    rows: list[StandingRow], order: Sequence[str], marks: Mapping[int, str] | None = None
) -> str:
    """A stage's ranked rows as a snapshot document (see ``StandingsSnapshot``); a line
    with officiating marks (``standings.MARKS``) carries them as a seventh element."""
    keys = list(METRICS)
    metrics_of = itemgetter(*keys)
    marks = marks or {}
    lines = []
    append = lines.append
    for place, tied, entrant_id, withdrawn, games_played, metrics, _, _ in rows:
        line = (entrant_id, place, tied, withdrawn, games_played, metrics_of(metrics))
        mark = marks.get(entrant_id)
        append((*line, mark) if mark else line)
    # Reasons ``rank`` decided itself (between the parts, by head to head), by entrant:
    # the values alone cannot tell them again when the document is read.
    why = {str(row.entrant_id): row.reason_data for row in rows if row.reason_data}
    document = {"order": list(order), "metrics": keys, "lines": lines}
    if why:
        document["why"] = why
    return orjson.dumps(document).decode()


class SnapshotDocument:
    """A snapshot document as read: the tiebreak order its lines were ranked by (their
    reasons are told from it: ``standings.explain``), and its lines, made rows only when
    asked for (a page shows the first hundred of a thousand)."""

    def __init__(self, document: str):
        data = orjson.loads(document)
        self.order: list[str] = data["order"]
        self._metrics: list[str] = data["metrics"]
        self._lines: list = data["lines"]
        self._why: dict[str, dict] = data.get("why", {})

    def __len__(self) -> int:
        return len(self._lines)

    def index_of(self, entrant_id: int) -> int | None:
        return next((n for n, line in enumerate(self._lines) if line[0] == entrant_id), None)

    def rows(self, start: int = 0, stop: int | None = None) -> list[StandingRow]:
        keys = self._metrics
        return [
            StandingRow(
                rank,
                tied,
                entrant_id,
                withdrawn,
                games,
                dict(zip(keys, values, strict=True)),
                self._why.get(str(entrant_id)),
                marks[0] if marks else "",
            )
            for entrant_id, rank, tied, withdrawn, games, values, *marks in self._lines[start:stop]
        ]


def _write_snapshots(tournament_id: int, computed_at, documents: dict[int, str]) -> None:
    """Replace the given stages' snapshots (one row per stage, its lines as one document)."""
    StandingsSnapshot.objects.bulk_create(
        [
            StandingsSnapshot(
                tournament_id=tournament_id,
                stage_id=stage_id,
                computed_at=computed_at,
                document=document,
            )
            for stage_id, document in documents.items()
        ],
        update_conflicts=True,
        unique_fields=["stage"],
        update_fields=["computed_at", "document"],
    )


@contextmanager
def collector_paused():
    """Build and rank a large event's records without the cyclic garbage collector's
    passes: thousands of short-lived records, dicts and lists set off dozens of them
    (some 10 % of a recompute), yet form no cycles, so reference counting frees them."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# Who carries which officiating mark, a row a letter, the letters in order: "d" for each
# seat of a finished game under an open dispute, "f" for each seat that forfeited, "q"
# for a disqualified entrant (one query).
MARKS_SQL = """
SELECT ms.entrant_id, 'd'
FROM tournaments_matchseat ms
JOIN tournaments_match m ON m.id = ms.match_id
JOIN tournaments_round r ON r.id = m.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
WHERE s.tournament_id = %s AND ms.total IS NOT NULL AND EXISTS (
    SELECT 1 FROM scoring_dispute d WHERE d.game_id = m.game_id AND d.status = %s
)
UNION ALL
SELECT ms.entrant_id, 'f'
FROM tournaments_matchseat ms
JOIN tournaments_match m ON m.id = ms.match_id
JOIN tournaments_round r ON r.id = m.round_id
JOIN tournaments_stage s ON s.id = r.stage_id
WHERE s.tournament_id = %s AND ms.forfeit
UNION ALL
SELECT id, 'q' FROM tournaments_entrant
WHERE tournament_id = %s AND disqualified_at IS NOT NULL
ORDER BY 2
"""


def officiating_marks(tournament_id: int) -> dict[int, str]:
    """Per entrant, the officiating marks its standings line carries (one query): "d" a
    finished game of theirs under dispute, "f" a game forfeited, "q" disqualified."""
    return _marks_of(_fetch(_marks_sql(tournament_id))[0])


def _marks_sql(tournament_id: int) -> tuple[str, list]:
    """``MARKS_SQL`` and its parameters (``_marks_of`` reads its rows)."""
    return MARKS_SQL, [tournament_id, Dispute.Status.OPEN, tournament_id, tournament_id]


def _marks_of(rows) -> dict[int, str]:
    """``MARKS_SQL``'s rows as each entrant's marks."""
    marks: dict[int, str] = defaultdict(str)
    for entrant_id, mark in rows:
        marks[entrant_id] += mark
    return dict(marks)


HELD_SQL = "SELECT stage_id, document FROM tournaments_standingssnapshot WHERE tournament_id = %s"
STAMP_SQL = """
UPDATE tournaments_standingsstate SET computed_at = %s, last_hand_at = %s, runs = runs + 1
WHERE tournament_id = %s
"""


def rebuild_standings(tournament_id: int) -> int:
    """Recompute every stage's standings and replace the snapshots that changed; returns
    lines computed.

    A snapshot whose document comes out the same is left as it was, with the time it last
    changed, so pollers holding its tag are told nothing changed. Beside the grouped
    query, a recompute makes few round trips to the database (the stages, one for every
    other read, and two to compare and stamp); ``bench/standings.py`` times it against
    one bare aggregate over the same hands (the target: within 3x at 1,024 entrants and
    8 rounds).
    """
    started = timezone.now()
    with collector_paused():
        # The stages, with their tournament (read alone only when it has none), in order.
        stages = list(
            Stage.objects.filter(tournament_id=tournament_id)
            .select_related("tournament")
            .order_by("order")
        )
        if stages:
            tournament = stages[0].tournament
        else:
            tournament = Tournament.objects.only(*RANKING_FIELDS, "slug").get(pk=tournament_id)
        brackets = bracket_stages(tournament, stages)
        marks: dict[int, str] = {}
        ranked, last_hand = rank_stages(tournament, brackets, stages, marks)
        order = list(tournament.tiebreak_order)
        documents = {
            stage_id: snapshot_document(
                rows, bracket_order(order) if stage_id in brackets else order, marks
            )
            for stage_id, rows in ranked.items()
        }
    adapt = connection.ops.adapt_datetimefield_value
    slug, stage_orders = tournament.slug, [stage.order for stage in stages]
    with transaction.atomic():
        held, stamped = _fetch(
            (HELD_SQL, [tournament.pk]),
            (STAMP_SQL, [adapt(started), adapt(last_hand), tournament.pk]),
        )
        if not stamped:
            StandingsState.objects.create(
                tournament=tournament, computed_at=started, last_hand_at=last_hand, runs=1
            )
        held = dict(held)
        changed = {
            stage_id: document
            for stage_id, document in documents.items()
            if held.get(stage_id) != document
        }
        if changed:
            _write_snapshots(tournament.pk, started, changed)
            transaction.on_commit(
                lambda: standings_rewritten.send(Tournament, tournament_id=tournament.pk)
            )
        # Recounted: the notice of a pending recount goes, and changed standings show.
        if stage_orders:
            transaction.on_commit(lambda: live.forget_standings(slug, stage_orders))
    return sum(len(rows) for rows in ranked.values())


def stage_ranking(stage: Stage, *, per_pool: int | None = None) -> list[int]:
    """Entrant ids of a stage in finishing order (computed now, from its games).

    With ``per_pool``, the top ``per_pool`` of each pool: first places first.
    """
    order = [row.entrant_id for row in rank_stages(stage.tournament)[0][stage.pk]]
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
    # Pool 10 comes after pool 9, not after pool 1.
    return advancers(
        [pools[key] for key in sorted(pools, key=lambda slot: (len(slot), slot))], per_pool
    )

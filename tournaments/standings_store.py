"""Loading a tournament's results for the standings, and storing the snapshot.

A finished game's result is kept on its match seats (``services.record_seat_results``,
in the scoring transaction that finishes, corrects or reopens the game), so a recompute
sums seat columns in the database instead of reading every game: one grouped query for
the whole tournament, whatever the number of entrants, games or hands. Live games (when
the tournament counts them) and the games where entrants still tied at head to head met
are read as rows. Each stage's snapshot is written as one document.
"""

import gc
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from operator import itemgetter

import orjson
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from scoring.models import Dispute
from tournaments.models import (
    Entrant,
    MatchSeat,
    Stage,
    StandingsSnapshot,
    StandingsState,
    Tournament,
)
from tournaments.signals import standings_rewritten
from tournaments.standings import (
    BYE_SCORES,
    METRICS,
    NO_SCORE,
    POINTS_BASES,
    ROUND_WINNERS,
    SAME_SCALE,
    SIXTIETHS,
    TARGET_SHARE,
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
    rank,
    settle,
    side_results,
    target_scale,
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


def table_scale(tournament: Tournament) -> Scale:
    """What a point is worth at each table size the tournament's rule set allows, against
    a point at its own table size (``standings.Scale``): each size's target comes from the
    rule set at that size, with the organizer's overrides."""
    from scoring.rulesets import PRESETS, ScoringError, get_ruleset

    preset = PRESETS.get(tournament.ruleset_key)
    if preset is None:
        return SAME_SCALE
    try:
        rules = {
            size: get_ruleset(preset.key, players=size, overrides=tournament.overrides)
            for size in preset.players
        }
    except ScoringError:
        return SAME_SCALE
    if any(rule.teams != "none" for rule in rules.values()):
        return SAME_SCALE  # two teams a table, whatever its size
    own = rules.get(tournament.table_size)
    if own is None:
        return SAME_SCALE
    return target_scale({size: rule.target for size, rule in rules.items()}, own.target)


def points_basis(stage: Stage | None) -> str:
    """How the stage compares points across table sizes (``standings.POINTS_BASES``)."""
    basis = (stage.settings or {}).get("points_basis") if stage is not None else None
    return basis if basis in POINTS_BASES else TARGET_SHARE


def bye_scores(tournament: Tournament, stage: Stage | None) -> str:
    """What a bye scores in the stage (``standings.BYE_SCORES``): the stage's
    ``bye_scores`` setting; without one, nothing where the tournament's bye policy says
    so, else a win with the average points for of the round's winners."""
    chosen = (stage.settings or {}).get("bye_scores") if stage is not None else None
    if chosen in BYE_SCORES:
        return chosen
    return NO_SCORE if tournament.bye_policy == Tournament.ByePolicy.NOTHING else ROUND_WINNERS


def stage_byes(tournament: Tournament, stage: Stage | None) -> dict:
    """The stage's bye settings as ``StandingsSettings`` fields."""
    points = (stage.settings or {}).get("bye_match_points") if stage is not None else None
    return {
        "bye_scores": bye_scores(tournament, stage),
        "bye_match_points": points if isinstance(points, (int, float)) else None,
    }


def settings_for(tournament: Tournament, stage: Stage | None = None) -> StandingsSettings:
    """The tournament's ranking choices as the pure module takes them (with ``stage``,
    that stage's points basis and byes; without, the defaults)."""
    points = {
        int(size): {int(place): value for place, value in table.items()}
        for size, table in (tournament.placement_points or {}).items()
    }
    return StandingsSettings(
        order=tuple(tournament.tiebreak_order),
        placement_points=points,
        include_live=tournament.include_live,
        points_basis=points_basis(stage),
        scale=table_scale(tournament),
        **stage_byes(tournament, stage),
    )


# --- loading ------------------------------------------------------------------------------

# Per stage and entrant, the finished games' seat results summed: games won, the match
# points they earn, and the matches, to find each entrant's opponents; on one row of
# each stage, its latest hand. Rounds in draft are left out here and below (a game
# scored there before drafts were held would otherwise count).
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
# Every seat of some finished games, for head to head.
TABLES_SQL = """
SELECT ms.match_id, r.number, ms.position, ms.entrant_id, ms.total, ms.placement, ms.won,
       ms.hands_won, ms.dominoes, ms.penalties
FROM tournaments_matchseat ms
JOIN tournaments_round r ON r.id = ms.round_id
WHERE {matches} AND ms.total IS NOT NULL
ORDER BY ms.match_id, ms.position
"""


def _json(value):
    """A JSON column read through a plain cursor comes as text."""
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


def _results_sql(settings: StandingsSettings) -> tuple[str, list]:
    """The grouped query for a tournament's settings, and its parameters but the last
    (the tournament): match points are a win 1, else 0, at a table size without the
    organizer's placement points, the points for the placement at one with them."""
    if connection.vendor == "postgresql":
        matches = "string_agg(ms.match_id::text, ',')"
    else:
        matches = "group_concat(ms.match_id, ',')"
    tables = {size: table for size, table in settings.placement_points.items() if table}
    cases, params = [], []
    for size, table in tables.items():
        for placement, points in table.items():
            cases.append("WHEN ms.sides = %s AND ms.placement = %s THEN %s")
            params += [int(size), int(placement), float(points)]
    wins = "ms.won"
    if tables:
        wins += f" AND ms.sides NOT IN ({', '.join(['%s'] * len(tables))})"
        params += [int(size) for size in tables]
    placed = f"SUM(CASE {' '.join(cases)} ELSE 0 END)" if cases else "0"
    match_points = f"{placed} + COUNT(*) FILTER (WHERE {wins})"
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
        sql, params = _results_sql(settings)
        cursor.execute(sql, [*params, tournament.pk])
        grouped = cursor.fetchall()
        cursor.execute(OTHER_SEATS_SQL, [tournament.pk, settings.include_live])
        others = cursor.fetchall()
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
        matches,
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
        record.matches += map(int, matches.split(","))
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
    met (one query; a game with only one of them adds nothing), and the live games."""

    def games_for(entrant_ids: set[int]) -> dict[int, list[GameRow]]:
        seen: dict[int, int] = defaultdict(int)
        for entrant_id in entrant_ids:
            for match_id in stage.records[entrant_id].matches:
                seen[match_id] += 1
        shared = sorted(match_id for match_id, count in seen.items() if count > 1)
        seats = []
        if shared:
            if connection.vendor == "postgresql":
                sql, params = TABLES_SQL.format(matches="ms.match_id = ANY(%s)"), [shared]
            else:
                listed = ", ".join(["%s"] * len(shared))
                sql, params = TABLES_SQL.format(matches=f"ms.match_id IN ({listed})"), shared
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
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


def bracket_stages(tournament: Tournament, stages: list[Stage] | None = None) -> dict[int, Stage]:
    """The tournament's bracket stages (their engine seats winners as games finish), by
    id: their standings rank by the bracket's finish first (one query, unless the caller
    read the ``stages`` already)."""
    if stages is None:
        stages = Stage.objects.filter(tournament=tournament).select_related("tournament")
    return {stage.pk: stage for stage in stages if is_bracket(stage)}


def is_bracket(stage: Stage | None) -> bool:
    """Whether the stage is a bracket: its engine seats winners as games finish."""
    from tournaments.pairing import ENGINES

    engine = ENGINES.get(stage.format) if stage is not None else None
    return bool(engine and engine.advances)


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
    from tournaments.pairing import PairingError
    from tournaments.pairing.base import ordered
    from tournaments.pairing.elimination import finishes
    from tournaments.services import pairing as adapter
    from tournaments.services.rounds import _stage_entrants

    # The field and seeds the bracket was drawn from, as pairing takes them.
    request = adapter.request_for(stage, _stage_entrants(stage), 1, None)
    seeds = [stub.id for stub in ordered(request.stubs)]
    try:
        slots = request.engine.bracket(
            len(seeds), table_size=request.table_size, settings=stage.settings
        )
    except PairingError:
        return None
    levels: dict[str, list[int]] = {}
    results = adapter.bracket_results(stage, levels=levels)
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
) -> tuple[dict[int, list[StandingRow]], datetime | None]:
    """Every stage's standings computed now, in stage order, and the latest hand they
    include. A bracket's are ranked by its finish first (``bracket_order``); ``brackets``
    are the tournament's bracket stages, and ``stages`` all its stages (each with its
    points basis and byes, ``settings_for``), where the caller has read them already."""
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
    loaded = load_records(tournament, settings)
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
    lines = [
        (
            row.entrant_id,
            row.rank,
            row.tied,
            row.withdrawn,
            row.games_played,
            metrics_of(row.metrics),
        )
        + ((marks[row.entrant_id],) if marks.get(row.entrant_id) else ())
        for row in rows
    ]
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


def officiating_marks(tournament_id: int) -> dict[int, str]:
    """Per entrant, the officiating marks its standings line carries (three queries): "d"
    a finished game of theirs under dispute, "f" a game forfeited, "q" disqualified."""
    seats = MatchSeat.objects.filter(match__round__stage__tournament_id=tournament_id)
    marks: dict[int, str] = defaultdict(str)
    for entrant_id in (
        seats.filter(match__game__disputes__status=Dispute.Status.OPEN, total__isnull=False)
        .values_list("entrant_id", flat=True)
        .distinct()
    ):
        marks[entrant_id] += "d"
    for entrant_id in seats.filter(forfeit=True).values_list("entrant_id", flat=True).distinct():
        marks[entrant_id] += "f"
    for entrant_id in Entrant.objects.filter(
        tournament_id=tournament_id, disqualified_at__isnull=False
    ).values_list("pk", flat=True):
        marks[entrant_id] += "q"
    return dict(marks)


def rebuild_standings(tournament_id: int) -> int:
    """Recompute every stage's standings and replace the snapshots that changed; returns
    lines computed.

    A snapshot whose document comes out the same is left as it was, with the time it last
    changed, so pollers holding its tag are told nothing changed.
    """
    from tournaments import live

    tournament = Tournament.objects.only(*RANKING_FIELDS).get(pk=tournament_id)
    started = timezone.now()
    with collector_paused():
        stages = list(Stage.objects.filter(tournament=tournament).select_related("tournament"))
        brackets = bracket_stages(tournament, stages)
        ranked, last_hand = rank_stages(tournament, brackets, stages)
        marks = officiating_marks(tournament.pk)
        order = list(tournament.tiebreak_order)
        documents = {
            stage_id: snapshot_document(
                rows, bracket_order(order) if stage_id in brackets else order, marks
            )
            for stage_id, rows in ranked.items()
        }
    with transaction.atomic():
        held = dict(
            StandingsSnapshot.objects.filter(tournament_id=tournament.pk).values_list(
                "stage_id", "document"
            )
        )
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
        stamp = {"computed_at": started, "last_hand_at": last_hand, "runs": F("runs") + 1}
        if not StandingsState.objects.filter(tournament=tournament).update(**stamp):
            StandingsState.objects.create(tournament=tournament, **{**stamp, "runs": 1})
        # Recounted: the notice of a pending recount goes, and changed standings show.
        transaction.on_commit(lambda: live.forget_standings_of(tournament.pk))
    return sum(len(rows) for rows in ranked.values())


def stage_ranking(stage: Stage, *, per_pool: int | None = None) -> list[int]:
    """Entrant ids of a stage in finishing order (computed now, from its games).

    With ``per_pool``, the top ``per_pool`` of each pool: first places first.
    """
    from tournaments.pairing.pools import advancers

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

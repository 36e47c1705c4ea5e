"""Standings from plain rows: every tiebreak metric in one registry, ranks explained (pure).

Input is one ``GameRow`` per game (its entrants' totals, placements, hands won,
dominoes and penalties), an ``EntrantInfo`` per entrant and the byes; output is one
``StandingRow`` per entrant, ranked by the tournament's tiebreak order. A metric is a
small named function with a label and a direction; adding one is one registry entry.
``head_to_head`` looks only at the entrants still tied, so it gets the tied group.

``compute_standings`` is the whole computation in steps that can be taken apart: each
game added to its entrants' ``Record`` (exact sums), ``settle`` (byes, match points,
Buchholz), ``rank`` and ``explain``. A loader that sums the games elsewhere (the database
does, in ``standings_store``) fills the records and takes the same last three steps.
"""

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import NamedTuple

from scoring.engine import TALLY_ZERO


# Results are named tuples: a thousand-entrant event loads some eight thousand of them
# per recompute, and a tuple is built four times faster than a frozen dataclass.
class EntrantResult(NamedTuple):
    entrant_id: int
    seat_position: int
    total: int
    placement: int
    won: bool
    hands_won: int = 0
    dominoes: int = 0
    penalty_points: int = 0


class GameRow(NamedTuple):
    game_id: int
    round_number: int
    entrants: tuple[EntrantResult, ...]
    finished: bool = True
    # The table's size where ``entrants`` lists only some of its seats (head to head's
    # games, ``GamesFor``); 0 when it lists them all.
    sides: int = 0


class EntrantInfo(NamedTuple):
    entrant_id: int
    seed: int
    withdrawn: bool = False


@dataclass(frozen=True)
class ByeRow:
    entrant_id: int
    round_number: int


# How a stage compares points across table sizes (RULES.md, "Fields that don't divide"):
# as a share of each table's target (the default), or as the raw totals.
TARGET_SHARE, RAW_TOTALS = "target_share", "raw"
POINTS_BASES = (TARGET_SHARE, RAW_TOTALS)


class Scale(NamedTuple):
    """What a point is worth at each table size, in whole ``1/unit``s of a point.

    Under ``TARGET_SHARE`` a point scored at a table playing to T counts stage_target / T
    points, stage_target being the target at the stage's own table size: a table of
    three playing to 200 and a table of four to 250 compare as shares of their targets,
    told in the four-table's points (180 of 200 counts 225), and a field at one size keeps
    its raw totals. Weights are whole numbers, keyed by the number of sides at the table,
    so that sums stay exact in any order (the database adds them in its own).
    """

    weights: Mapping[int, int] = {}
    unit: int = 1

    def of(self, sides: int) -> int:
        return self.weights.get(sides, self.unit)


def target_scale(targets: Mapping[int, int], stage_target: int) -> Scale:
    """The scale for tables whose targets are ``targets`` (by sides) in a stage whose own
    table size plays to ``stage_target`` (see ``Scale``)."""
    if not targets or all(target == stage_target for target in targets.values()):
        return Scale()
    common = math.lcm(*targets.values())
    weights = {sides: stage_target * (common // target) for sides, target in targets.items()}
    divisor = math.gcd(common, *weights.values())
    return Scale({sides: w // divisor for sides, w in weights.items()}, common // divisor)


# Every point counts one: raw totals, or a field whose tables all play to one target.
SAME_SCALE = Scale()

# What a bye scores, a stage setting (RULES.md, "Fields that don't divide"): a game won
# with points for the average points for of that round's winners (the default, the
# common club practice), a game won with the stage's average game total, or nothing.
# Either average is on the stage's points basis and rounded to hundredths of a point, as
# the "Average points" column is.
ROUND_WINNERS, STAGE_AVERAGE, NO_SCORE = "round_winners_average", "stage_average", "nothing"
BYE_SCORES = (ROUND_WINNERS, STAGE_AVERAGE, NO_SCORE)


@dataclass(frozen=True)
class StandingsSettings:
    order: tuple[str, ...] = (
        "match_points",
        "point_differential",
        "points_for",
        "head_to_head",
        "seed",
    )
    placement_points: Mapping[int, Mapping[int, float]] = field(default_factory=dict)
    bye_scores: str = ROUND_WINNERS
    # A bye's match points; None: a win's at a table of two (the placement points').
    bye_match_points: float | None = None
    include_live: bool = False
    points_basis: str = TARGET_SHARE
    scale: Scale = SAME_SCALE


class Tally(NamedTuple):
    """Points summed over some seats, raw and weighed by their tables' ``Scale``."""

    points: int = 0
    scaled: int = 0
    seats: int = 0

    def plus(self, points: int, scaled: int, seats: int) -> "Tally":
        return Tally(self.points + points, self.scaled + scaled, self.seats + seats)

    def average(self, settings: StandingsSettings) -> float:
        """The mean per seat on the settings' points basis, to hundredths of a point."""
        if not self.seats:
            return 0
        if settings.points_basis == RAW_TOTALS or settings.scale == SAME_SCALE:
            return round(self.points / self.seats, 2)
        return round(self.scaled / (self.seats * settings.scale.unit), 2)


def add_winners(winners: dict[int, Tally], game: GameRow, scale: Scale = SAME_SCALE) -> None:
    """Add one game's winners' points to its round's tally (``ROUND_WINNERS``)."""
    weight = scale.of(len(game.entrants))
    for result in game.entrants:
        if result.won:
            tally = winners.get(game.round_number, Tally())
            winners[game.round_number] = tally.plus(result.total, result.total * weight, 1)


def bye_match_points(settings: StandingsSettings) -> float:
    """What a bye adds to match points: nothing under ``NO_SCORE``, else the stage's
    ``bye_match_points``, or by default a win's at a table of two."""
    if settings.bye_scores == NO_SCORE:
        return 0
    if settings.bye_match_points is not None:
        return float(settings.bye_match_points)
    return points_for_place(settings, 2, 1, True)


# Match points, the one rule (the database's aggregate, ``settle`` and Swiss pairing's
# score groups all count by it): at a table size with the organizer's placement points,
# the points for the placement; at any other, a win counts WIN_POINTS and the rest none.
WIN_POINTS = 1


def placement_table(settings: StandingsSettings, size: int) -> Mapping[int, float] | None:
    """The organizer's points by placement at tables of ``size`` sides, if they set any."""
    return settings.placement_points.get(size) or None


def points_for_place(settings: StandingsSettings, size: int, placement: int, won: bool) -> float:
    """The match points of one game: its placement at a table of ``size`` sides."""
    table = placement_table(settings, size)
    if table:
        return float(table.get(placement, 0))
    return float(WIN_POINTS) if won else 0.0


# Points against are kept in sixtieths of a point: at tables of two to six sides an
# entrant's share of the opponents' points (their sum over one to five opponents) is a
# whole number of sixtieths, so sums are exact whatever order the games come in (the
# database adds them in its own order).
SIXTIETHS = 60


@dataclass(slots=True)
class Record:
    """What one entrant has done so far, summed over its games (and byes).

    The sums are exact (integers, and games counted by table size and placement);
    ``settle`` derives from them, once every game is in, the metrics that depend on the
    settings, the byes or the other entrants.
    """

    entrant_id: int
    seed: int
    withdrawn: bool = False
    games: int = 0
    wins: int = 0
    total: int = 0
    against_sixtieths: int = 0
    # The same two, each game's weighed by its table's ``Scale`` weight (in 1/unit).
    scaled_total: int = 0
    scaled_against: int = 0
    hands_won: int = 0
    dominoes: int = 0
    penalties: int = 0
    byes: int = 0
    places: dict = field(default_factory=dict)  # (sides, placement) -> games
    wins_at: dict = field(default_factory=dict)  # sides -> games won
    # Match points of games already summed by the loader (the database does it), on top
    # of what ``places`` and ``wins_at`` give.
    game_points: float = 0
    matches: list = field(default_factory=list)  # the games played, by id
    match_points: float = 0
    points_for: float = 0
    points_against: float = 0
    buchholz: float = 0
    # In a bracket, the place its results give so far (``elimination.finishes``).
    bracket_finish: int | None = None


class StandingRow(NamedTuple):
    rank: int
    tied: bool
    entrant_id: int
    withdrawn: bool
    games_played: int
    metrics: dict[str, float]
    # Why this row sits above the next, as data: None for the last row, {} when the two
    # are level on every tiebreaker, else the deciding metric, the two values and the
    # metrics they were tied on.
    reason_data: dict | None = None
    # Officiating marks on the line (RULES.md, Officiating), one letter each: see MARKS.
    marks: str = ""

    @property
    def reason(self) -> str:
        return reason_text(self.reason_data, str)


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    higher_is_better: bool
    explain: str
    value: Callable[[Record], float]
    # Metrics that look only at the tied entrants take the ids of the group instead.
    among: Callable[[Record, AbstractSet[int], Sequence[GameRow]], float] | None = None


def _head_to_head(record: Record, group: AbstractSet[int], games: Sequence[GameRow]) -> float:
    """Games won against the others still tied, or (three or four a table) finishes above.

    ``group`` is shared by every member: looking rivals up in it keeps a tie of
    thousands linear in their games, where a set of "the others" per member would not.
    """
    me = record.entrant_id
    score = 0.0
    for game in games:
        mine = next((e for e in game.entrants if e.entrant_id == me), None)
        if mine is None:
            continue
        rivals = [e for e in game.entrants if e.entrant_id != me and e.entrant_id in group]
        if (game.sides or len(game.entrants)) == 2:
            score += sum(1 for _ in rivals if mine.won)
        else:
            score += sum(1 for rival in rivals if mine.placement < rival.placement)
    return score


def gettext_noop(message: str) -> str:
    """Mark a label for translation here; pages translate it where they show it."""
    return message


BRACKET_FINISH = "bracket_finish"

METRICS: dict[str, Metric] = {
    metric.key: metric
    for metric in (
        Metric(
            "match_points",
            gettext_noop("Match points"),
            True,
            gettext_noop(
                "placement points per game (a win 1, else 0, unless the organizer set a table)"
            ),
            attrgetter("match_points"),
        ),
        Metric("wins", gettext_noop("Wins"), True, gettext_noop("games won"), attrgetter("wins")),
        Metric(
            "points_for",
            gettext_noop("Points for"),
            True,
            gettext_noop("the entrant's game totals, summed"),
            attrgetter("points_for"),
        ),
        Metric(
            "points_against",
            gettext_noop("Points against"),
            False,
            gettext_noop("per game, the opponent's total (or the opponents' mean), summed"),
            lambda r: round(r.points_against, 2),
        ),
        Metric(
            "point_differential",
            gettext_noop("Point differential"),
            True,
            gettext_noop("points for less points against"),
            lambda r: round(r.points_for - r.points_against, 2),
        ),
        Metric(
            "average_points",
            gettext_noop("Average points"),
            True,
            gettext_noop("points for per game played"),
            lambda r: round(r.points_for / r.games, 2) if r.games else 0,
        ),
        Metric(
            "hands_won",
            gettext_noop("Hands won"),
            True,
            gettext_noop("hands won"),
            attrgetter("hands_won"),
        ),
        Metric(
            "dominoes",
            gettext_noop("Dominoes"),
            True,
            gettext_noop("hands ended by going out"),
            attrgetter("dominoes"),
        ),
        Metric(
            "penalties",
            gettext_noop("Penalties"),
            False,
            gettext_noop("penalty points (fewer is better)"),
            attrgetter("penalties"),
        ),
        Metric(
            "head_to_head",
            gettext_noop("Head to head"),
            True,
            gettext_noop(
                "among the tied entrants only: games won against each other, or times "
                "finishing above another at tables of three or four"
            ),
            lambda r: 0,
            among=_head_to_head,
        ),
        Metric(
            "buchholz",
            gettext_noop("Buchholz"),
            True,
            gettext_noop("the opponents' match points, summed"),
            attrgetter("buchholz"),
        ),
        Metric(
            "seed",
            gettext_noop("Seed"),
            False,
            gettext_noop("the entrant's seed: the final, fixed fallback"),
            attrgetter("seed"),
        ),
        Metric(
            BRACKET_FINISH,
            gettext_noop("Bracket finish"),
            False,
            gettext_noop(
                "a bracket ranks by it before any tiebreaker: the final's seats first in "
                "their order there, then the third-place table's, then the round the "
                "entrant went out in, a later round first; an entrant still in counts the "
                "best place it can still reach"
            ),
            attrgetter("bracket_finish"),
        ),
    )
}
# Only a bracket ranks by it (first, ahead of the tournament's order): not a tiebreaker
# an organizer chooses.
TIEBREAKERS = tuple(key for key in METRICS if key != BRACKET_FINISH)


class SideResult(NamedTuple):
    total: int
    placement: int
    won: bool
    hands_won: int
    dominoes: int
    penalties: int
    forfeit: bool = False


# The officiating marks a standings line may carry: a result still under dispute, a game
# forfeited, the entrant disqualified.
MARKS = {"d": "disputed", "f": "forfeit", "q": "disqualified"}


def placements(totals: Sequence[int]) -> list[int]:
    """Placement of each total, best first; equal totals share a placement."""
    ordered = sorted(totals, reverse=True)
    return [ordered.index(total) + 1 for total in totals]


def side_results(
    totals: Mapping[str, int],
    tallies: Mapping,
    winner: str,
    forfeited: AbstractSet[str] = frozenset(),
) -> list[SideResult]:
    """A game's result per side, in side order: side i is the i-th of the side names in
    order ("A" … or "A+C", "B+D"), and the entrant in match position i holds side i.

    A side in ``forfeited`` is placed after every other whatever its total (RULES.md,
    Officiating); the others keep their order by total."""
    names = sorted(totals)
    playing = [name for name in names if name not in forfeited]
    gave_up = [name for name in names if name in forfeited]
    place = dict(zip(playing, placements([totals[n] for n in playing]), strict=True))
    place.update(
        (name, len(playing) + p)
        for name, p in zip(gave_up, placements([totals[n] for n in gave_up]), strict=True)
    )
    results = []
    for name in names:
        tally = tallies.get(name) or TALLY_ZERO
        results.append(
            SideResult(
                totals[name],
                place[name],
                winner == name,
                tally["hands_won"],
                tally["dominoes"],
                tally["penalties"],
                name in forfeited,
            )
        )
    return results


def new_records(entrants: Iterable[EntrantInfo]) -> dict[int, Record]:
    return {e.entrant_id: Record(e.entrant_id, e.seed, e.withdrawn) for e in entrants}


def add_game(records: dict[int, Record], game: GameRow, scale: Scale = SAME_SCALE) -> None:
    """Add one game's results to the records of the entrants who played it (raw, and
    weighed by ``scale`` for a stage that compares shares of the target)."""
    results = game.entrants
    size = len(results)
    everyone = sum(result.total for result in results)
    weight = scale.of(size)
    for result in results:
        record = records.get(result.entrant_id)
        if record is None:
            continue
        record.games += 1
        record.total += result.total
        record.scaled_total += result.total * weight
        if size > 1:
            against = (everyone - result.total) * SIXTIETHS // (size - 1)
            record.against_sixtieths += against
            record.scaled_against += against * weight
        record.hands_won += result.hands_won
        record.dominoes += result.dominoes
        record.penalties += result.penalty_points
        place = (size, result.placement)
        record.places[place] = record.places.get(place, 0) + 1
        if result.won:
            record.wins += 1
            record.wins_at[size] = record.wins_at.get(size, 0) + 1
        record.matches.append(game.game_id)


def settle(
    records: Mapping[int, Record],
    settings: StandingsSettings,
    byes: Iterable[ByeRow],
    average: float | Tally,
    winners: Mapping[int, Tally] | None = None,
) -> None:
    """Count the byes and derive match points, points for and against, and Buchholz
    (once, after every game was added).

    ``average`` is the stage's game totals (a ``Tally``; a plain number is taken as the
    average itself) and ``winners`` each round's winners' (by round number). Unless the
    settings' ``bye_scores`` is ``NO_SCORE`` a bye counts as a game won with
    ``bye_match_points``, against nothing, its points for the average of its round's
    winners (``ROUND_WINNERS``: none yet, none) or the stage's average game total
    (``STAGE_AVERAGE``), on the stage's basis. Points for and against are the raw totals
    or the totals weighed by their tables' targets, as the settings' ``points_basis``
    says (see ``Scale``).
    """
    raw = settings.points_basis == RAW_TOTALS
    unit = settings.scale.unit
    bye_points_for: dict[int, list[float]] = defaultdict(list)
    if settings.bye_scores != NO_SCORE:
        if settings.bye_scores == ROUND_WINNERS:
            rounds = {n: tally.average(settings) for n, tally in (winners or {}).items()}
            worth = lambda bye: rounds.get(bye.round_number, 0)  # noqa: E731
        else:
            stage = average.average(settings) if isinstance(average, Tally) else average
            worth = lambda bye: stage  # noqa: E731
        for bye in byes:
            record = records.get(bye.entrant_id)
            if record is not None:
                record.byes += 1
                bye_points_for[bye.entrant_id].append(worth(bye))
    bye_points = bye_match_points(settings)
    # Decided once, not per entrant (a thousand pass through this loop).
    weighed = not (raw or settings.scale == SAME_SCALE)
    against_unit = SIXTIETHS * unit
    for record in records.values():
        byes = record.byes
        points = record.game_points + byes * bye_points
        if record.places:
            # Per table size and placement, its games times their match points; at a size
            # without placement points, the games won times a win's.
            parts = [
                count * points_for_place(settings, size, placement, False)
                for (size, placement), count in record.places.items()
                if placement_table(settings, size)
            ]
            parts += [
                n * points_for_place(settings, size, 1, True)
                for size, n in record.wins_at.items()
                if not placement_table(settings, size)
            ]
            points = math.fsum([*parts, points])
        # Organizers' points are decimals: rounded, any order of summing agrees.
        record.match_points = round(points, 6)
        # The byes' points for are hundredths: summed exactly, in any order.
        worths = bye_points_for.get(record.entrant_id)
        extra = math.fsum(worths) if worths else 0.0
        if weighed:
            record.points_for = round(record.scaled_total / unit + extra, 6)
            record.points_against = record.scaled_against / against_unit
        else:
            record.points_for = round(record.total + extra, 6) if extra else record.total
            record.points_against = record.against_sixtieths / SIXTIETHS
        if byes:
            record.games += byes
            record.wins += byes
    # Buchholz: per game, the match points of everyone else at the table, summed; from
    # each table's sum, so that it costs one pass over the seats.
    at_table: dict[int, float] = defaultdict(float)
    for record in records.values():
        points = record.match_points
        for game_id in record.matches:
            at_table[game_id] += points
    table_sum = at_table.__getitem__
    for record in records.values():
        matches = record.matches
        others = math.fsum(map(table_sum, matches))
        record.buchholz = round(others - len(matches) * record.match_points, 6)


def _records(
    entrants: Iterable[EntrantInfo],
    games: Sequence[GameRow],
    settings: StandingsSettings,
    byes: Iterable[ByeRow],
) -> dict[int, Record]:
    records = new_records(entrants)
    stage = Tally()
    winners: dict[int, Tally] = {}
    for game in games:
        add_game(records, game, settings.scale)
        points = sum(result.total for result in game.entrants)
        stage = stage.plus(
            points, points * settings.scale.of(len(game.entrants)), len(game.entrants)
        )
        add_winners(winners, game, settings.scale)
    settle(records, settings, byes, stage, winners)
    return records


# The games each of a set of entrants played, by entrant. A game may list only the seats
# of entrants in the set (with the table's size in ``sides``): head to head, the one
# metric that asks, looks only at those.
GamesFor = Callable[[set[int]], Mapping[int, Sequence[GameRow]]]


def compute_standings(
    entrants: Iterable[EntrantInfo],
    games: Iterable[GameRow],
    settings: StandingsSettings,
    *,
    byes: Iterable[ByeRow] = (),
    finishes: Mapping[int, int] | None = None,
) -> list[StandingRow]:
    """Rank every entrant by the settings' tiebreak order, explaining each place; a
    bracket's ``finishes`` (``elimination.finishes``) rank ahead of that order."""
    check_order(settings)
    counted = [g for g in games if g.finished or settings.include_live]
    records = _records(entrants, counted, settings, list(byes))
    if finishes is not None:
        settings = by_finish(records, finishes, settings)

    def games_for(entrant_ids: set[int]) -> dict[int, list[GameRow]]:
        games_of: dict[int, list[GameRow]] = defaultdict(list)
        for game in counted:
            for result in game.entrants:
                if result.entrant_id in entrant_ids:
                    games_of[result.entrant_id].append(game)
        return games_of

    return explain(rank(records, settings, games_for), settings.order)


def by_finish(
    records: Mapping[int, Record], finishes: Mapping[int, int], settings: StandingsSettings
) -> StandingsSettings:
    """A bracket's records with their finishes, and the settings that rank by them first
    (the tournament's tiebreak order then ranks those with the same finish)."""
    last = max(finishes.values(), default=0) + 1
    for record in records.values():
        record.bracket_finish = finishes.get(record.entrant_id, last)
    return replace(settings, order=bracket_order(settings.order))


def bracket_order(order: Sequence[str]) -> tuple[str, ...]:
    """The order a bracket's standings are ranked by: its finish, then ``order``."""
    return (BRACKET_FINISH, *(key for key in order if key != BRACKET_FINISH))


def check_order(settings: StandingsSettings) -> None:
    unknown = [key for key in settings.order if key not in METRICS]
    if unknown:
        raise ValueError(f"Unknown tiebreaker {unknown[0]!r}.")


# Who is ranked where, before any tiebreaker (README, "Standings"): entrants who played
# first, then those still in the event who have not played a game yet (no result is
# better than another's), then those who withdrew or were disqualified.
PLAYED, NOT_PLAYED, WITHDRAWN = 0, 1, 2
# Why the last line of one of those parts sits above the first of the next.
APART = {NOT_PLAYED: "not_played", WITHDRAWN: "withdrawn"}


def standing_part(record: Record) -> int:
    """The part of the standings an entrant is listed in (``PLAYED`` ...)."""
    if record.withdrawn:
        return WITHDRAWN
    return PLAYED if record.games else NOT_PLAYED


def rank(
    records: Mapping[int, Record], settings: StandingsSettings, games_for: GamesFor
) -> list[StandingRow]:
    """Rank settled records by the settings' tiebreak order (``explain`` says why).

    The entrants who played come first, then those who have not played yet, then the
    withdrawn (``standing_part``); the order ranks each part. ``games_for`` gives the
    games of a set of entrants; it is called at most once, for the entrants still tied
    when a metric that looks only at the tied (head to head) is reached. A row whose place
    above the next was decided where the values alone cannot tell it (between two parts,
    or by head to head among a tied group) carries that reason already.
    """
    # Every metric of every entrant, a metric at a time (most are attribute reads).
    everyone = list(records.values())
    columns = {key: list(map(metric.value, everyone)) for key, metric in METRICS.items()}
    names = tuple(METRICS)
    # One dict of every metric per entrant (the columns are all as long as ``everyone``).
    values = {
        record.entrant_id: dict(zip(names, row))  # noqa: B905
        for record, row in zip(everyone, zip(*columns.values()))  # noqa: B905
    }
    order = list(settings.order)
    # Up to the first metric that looks only at the tied entrants, one sort ranks all:
    # by part, then those metrics (best first), then by entrant id to fix the order of
    # equals.
    split = next((i for i, key in enumerate(order) if METRICS[key].among), len(order))
    signed = [
        [-value for value in columns[key]] if METRICS[key].higher_is_better else columns[key]
        for key in order[:split]
    ]
    keys = list(zip(map(standing_part, everyone), *signed, strict=True))
    ids = [record.entrant_id for record in everyone]
    groups: list[list[Record]] = []
    parts: list[int] = []  # each group's part: the first of its key
    previous = None
    for key, _, record in sorted(zip(keys, ids, everyone, strict=True)):
        if key == previous:
            groups[-1].append(record)
        else:
            groups.append([record])
            parts.append(key[0])
            previous = key
    ordered: list[list[Record]] = []
    decided: dict[int, dict] = {}
    tied = {r.entrant_id for group in groups if len(group) > 1 for r in group}
    games_of = games_for(tied) if tied and split < len(order) else {}
    previous = None
    for group, part in zip(groups, parts, strict=True):
        if previous is not None and part != previous:
            decided[ordered[-1][-1].entrant_id] = {"apart": APART[part]}
        previous = part
        if len(group) == 1 or split == len(order):
            ordered.append(group)
        else:
            _rank_group(group, order[split:], values, games_of, ordered, decided, order[:split])
    rows: list[StandingRow] = []
    append = rows.append
    for group in ordered:
        place = len(rows) + 1
        tied = len(group) > 1
        for r in group:
            append(
                StandingRow(
                    place,
                    tied,
                    r.entrant_id,
                    r.withdrawn,
                    r.games,
                    values[r.entrant_id],
                    decided.get(r.entrant_id),
                )
            )
    return rows


def explain(
    rows: Sequence[StandingRow], order: Sequence[str], following: StandingRow | None = None
) -> list[StandingRow]:
    """The rows, each with why it sits above the next (``following`` is the row after the
    last, if any): level when they share a rank, the reason ``rank`` gave where it gave
    one, else the first metric of ``order`` on which they differ."""
    explained = []
    for index, row in enumerate(rows):
        below = rows[index + 1] if index + 1 < len(rows) else following
        reason_data = None
        if below is not None:
            if below.rank == row.rank:
                reason_data = {}
            elif row.reason_data:
                reason_data = row.reason_data
            else:
                reason_data = _reason(row, below, order)
        explained.append(row._replace(reason_data=reason_data))
    return explained


def _key(metric: Metric, value: float) -> float:
    return -value if metric.higher_is_better else value


def _rank_group(group, order, values, games_of, out, decided, tied_on) -> None:
    """Split ``group`` by the first metric in ``order``, then the rest, recursively.

    ``games_of`` maps an entrant to the games it played; ``tied_on`` are the metrics the
    group is level on. Where head to head splits a group, the value it gave each part
    holds only within that group (it is counted again among those still tied), so the
    reason for the last of one part sitting above the first of the next is written into
    ``decided`` here, with the values that decided it.
    """
    if len(group) == 1 or not order:
        if len(group) > 1:
            group = sorted(group, key=lambda r: r.entrant_id)
        out.append(group)
        return
    metric = METRICS[order[0]]
    if metric.among is not None:
        members = frozenset(r.entrant_id for r in group)
        scores = {
            r.entrant_id: metric.among(r, members, games_of.get(r.entrant_id, ())) for r in group
        }
        for r in group:
            values[r.entrant_id][metric.key] = scores[r.entrant_id]
    else:
        scores = {r.entrant_id: values[r.entrant_id][metric.key] for r in group}
    buckets: dict[float, list[Record]] = defaultdict(list)
    for record in group:
        buckets[_key(metric, scores[record.entrant_id])].append(record)
    split = len(buckets) > 1
    ranked = sorted(buckets)
    for index, key in enumerate(ranked):
        bucket = buckets[key]
        if metric.among is not None and split and len(bucket) > 1:
            # Head to head applies again among those still tied.
            _rank_group(bucket, order, values, games_of, out, decided, tied_on)
        else:
            _rank_group(bucket, order[1:], values, games_of, out, decided, [*tied_on, metric.key])
        if metric.among is not None and index + 1 < len(ranked):
            one = scores[bucket[0].entrant_id]
            two = scores[buckets[ranked[index + 1]][0].entrant_id]
            decided[out[-1][-1].entrant_id] = {
                "metric": metric.key,
                "one": _fmt(one),
                "two": _fmt(two),
                "tied": list(tied_on),
            }


REASON_AHEAD = gettext_noop("ahead on {metric} {one} to {two}")
REASON_TIED_AHEAD = gettext_noop("tied on {tied}, ahead on {metric} {one} to {two}")
REASON_LEVEL = gettext_noop("level on every tiebreaker")
REASON_APART = {
    "not_played": gettext_noop("has played; those below have not played a game yet"),
    "withdrawn": gettext_noop("still in the event; those below withdrew or were disqualified"),
}


def _reason(row: StandingRow, following: StandingRow, order) -> dict:
    """Why ``row`` sits above ``following``, as data that a page can put in any
    language: the deciding metric's key, the two values, the keys they were tied on."""
    one, two = row.metrics, following.metrics
    tied_on = []
    for key in order:
        if one[key] != two[key]:
            return {"metric": key, "one": _fmt(one[key]), "two": _fmt(two[key]), "tied": tied_on}
        tied_on.append(key)
    return {}


def reason_text(data: dict | None, translate, figure=lambda text: text) -> str:
    """A reason told from its data, its words and metric labels put through ``translate``
    and its figures through ``figure`` (the reader's decimal sign); nothing for the last
    row, which has no reason."""
    if data is None:
        return ""
    if not data:
        return translate(REASON_LEVEL)
    if "apart" in data:
        return translate(REASON_APART[data["apart"]])
    label = translate(METRICS[data["metric"]].label).lower()
    if data.get("tied"):
        tied = ", ".join(translate(METRICS[key].label).lower() for key in data["tied"])
        return translate(REASON_TIED_AHEAD).format(
            tied=tied,
            metric=label,
            one=figure(_shown(data["one"])),
            two=figure(_shown(data["two"])),
        )
    return translate(REASON_AHEAD).format(
        metric=label, one=figure(_shown(data["one"])), two=figure(_shown(data["two"]))
    )


def metric_text(value, places: int = 2) -> str:
    """A metric's value for a page or a file: whole numbers bare, others to ``places``."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{places}f}".rstrip("0").rstrip(".")
    return str(value)


def _fmt(value: float) -> str:
    # The same figure as the standings table shows (227.5 in both, never 227.50).
    return metric_text(float(value))


def _shown(value) -> str:
    """A value stored in a reason, as the table shows it (older snapshots kept 227.50)."""
    try:
        return metric_text(float(value))
    except (TypeError, ValueError):
        return str(value)

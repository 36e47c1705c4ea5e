"""Standings from plain rows: every tiebreak metric in one registry, ranks explained (pure).

Input is one ``GameRow`` per game (its entrants' totals, placements, hands won,
dominoes and penalties), an ``EntrantInfo`` per entrant and the byes; output is one
``StandingRow`` per entrant, ranked by the tournament's tiebreak order. A metric is a
small named function with a label and a direction; adding one is one registry entry.
``head_to_head`` looks only at the entrants still tied, so it gets the tied group.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


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


@dataclass(frozen=True)
class EntrantInfo:
    entrant_id: int
    seed: int
    withdrawn: bool = False


@dataclass(frozen=True)
class ByeRow:
    entrant_id: int
    round_number: int


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
    bye_policy: str = "win_average"
    include_live: bool = False


@dataclass(slots=True)
class Record:
    """What one entrant has done so far, summed over its games (and byes)."""

    entrant_id: int
    seed: int
    withdrawn: bool = False
    games: int = 0
    match_points: float = 0
    wins: int = 0
    points_for: float = 0
    points_against: float = 0
    hands_won: int = 0
    dominoes: int = 0
    penalties: int = 0
    opponents: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class StandingRow:
    rank: int
    tied: bool
    entrant_id: int
    withdrawn: bool
    games_played: int
    metrics: dict[str, float]
    reason: str
    reason_data: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    higher_is_better: bool
    explain: str
    value: Callable[[Record, Mapping[int, Record]], float]
    # Metrics that look only at the tied entrants take the group instead.
    among: Callable[[Record, Sequence[Record], Sequence[GameRow]], float] | None = None


def _head_to_head(record: Record, group: Sequence[Record], games: Sequence[GameRow]) -> float:
    """Games won against the others still tied, or (three or four a table) finishes above."""
    others = {r.entrant_id for r in group if r.entrant_id != record.entrant_id}
    score = 0.0
    for game in games:
        mine = next((e for e in game.entrants if e.entrant_id == record.entrant_id), None)
        if mine is None:
            continue
        rivals = [e for e in game.entrants if e.entrant_id in others]
        if len(game.entrants) == 2:
            score += sum(1 for _ in rivals if mine.won)
        else:
            score += sum(1 for rival in rivals if mine.placement < rival.placement)
    return score


def gettext_noop(message: str) -> str:
    """Mark a label for translation here; pages translate it where they show it."""
    return message


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
            lambda r, _: r.match_points,
        ),
        Metric("wins", gettext_noop("Wins"), True, gettext_noop("games won"), lambda r, _: r.wins),
        Metric(
            "points_for",
            gettext_noop("Points for"),
            True,
            gettext_noop("the entrant's game totals, summed"),
            lambda r, _: r.points_for,
        ),
        Metric(
            "points_against",
            gettext_noop("Points against"),
            False,
            gettext_noop("per game, the opponent's total (or the opponents' mean), summed"),
            lambda r, _: round(r.points_against, 2),
        ),
        Metric(
            "point_differential",
            gettext_noop("Point differential"),
            True,
            gettext_noop("points for less points against"),
            lambda r, _: round(r.points_for - r.points_against, 2),
        ),
        Metric(
            "average_points",
            gettext_noop("Average points"),
            True,
            gettext_noop("points for per game played"),
            lambda r, _: round(r.points_for / r.games, 2) if r.games else 0,
        ),
        Metric(
            "hands_won",
            gettext_noop("Hands won"),
            True,
            gettext_noop("hands won"),
            lambda r, _: r.hands_won,
        ),
        Metric(
            "dominoes",
            gettext_noop("Dominoes"),
            True,
            gettext_noop("hands ended by going out"),
            lambda r, _: r.dominoes,
        ),
        Metric(
            "penalties",
            gettext_noop("Penalties"),
            False,
            gettext_noop("penalty points (fewer is better)"),
            lambda r, _: r.penalties,
        ),
        Metric(
            "head_to_head",
            gettext_noop("Head to head"),
            True,
            gettext_noop(
                "among the tied entrants only: games won against each other, or times "
                "finishing above another at tables of three or four"
            ),
            lambda r, _: 0,
            among=_head_to_head,
        ),
        Metric(
            "buchholz",
            gettext_noop("Buchholz"),
            True,
            gettext_noop("the opponents' match points, summed"),
            lambda r, records: sum(records[o].match_points for o in r.opponents if o in records),
        ),
        Metric(
            "seed",
            gettext_noop("Seed"),
            False,
            gettext_noop("the entrant's seed: the final, fixed fallback"),
            lambda r, _: r.seed,
        ),
    )
}


def _points_for_place(settings: StandingsSettings, size: int, placement: int, won: bool) -> float:
    table = settings.placement_points.get(size)
    if table:
        return float(table.get(placement, 0))
    return 1.0 if won else 0.0


def _records(
    entrants: Iterable[EntrantInfo],
    games: Sequence[GameRow],
    settings: StandingsSettings,
    byes: Iterable[ByeRow],
) -> dict[int, Record]:
    records = {e.entrant_id: Record(e.entrant_id, e.seed, e.withdrawn) for e in entrants}
    for game in games:
        results = game.entrants
        size = len(results)
        table = settings.placement_points.get(size)
        # Against each entrant, the mean of the others' totals: (all - own) / (size - 1).
        everyone = sum(result.total for result in results)
        ids = [result.entrant_id for result in results]
        for result in results:
            record = records.get(result.entrant_id)
            if record is None:
                continue
            record.games += 1
            record.wins += result.won
            record.match_points += (
                float(table.get(result.placement, 0)) if table else float(result.won)
            )
            record.points_for += result.total
            if size > 1:
                record.points_against += (everyone - result.total) / (size - 1)
            record.hands_won += result.hands_won
            record.dominoes += result.dominoes
            record.penalties += result.penalty_points
            record.opponents += [i for i in ids if i != result.entrant_id]
    if settings.bye_policy == "win_average":
        totals = [e.total for game in games for e in game.entrants]
        average = sum(totals) / len(totals) if totals else 0
        for bye in byes:
            record = records.get(bye.entrant_id)
            if record is None:
                continue
            # A bye counts as a game won with the stage's average score, against nothing.
            record.games += 1
            record.wins += 1
            record.match_points += _points_for_place(settings, 2, 1, True)
            record.points_for += average
    return records


def compute_standings(
    entrants: Iterable[EntrantInfo],
    games: Iterable[GameRow],
    settings: StandingsSettings,
    *,
    byes: Iterable[ByeRow] = (),
) -> list[StandingRow]:
    """Rank every entrant by the settings' tiebreak order, explaining each place."""
    unknown = [key for key in settings.order if key not in METRICS]
    if unknown:
        raise ValueError(f"Unknown tiebreaker {unknown[0]!r}.")
    counted = [g for g in games if g.finished or settings.include_live]
    records = _records(entrants, counted, settings, list(byes))
    values = {
        entrant_id: {key: metric.value(record, records) for key, metric in METRICS.items()}
        for entrant_id, record in records.items()
    }
    # Head to head looks only at an entrant's own games: index them once.
    games_of: dict[int, list[GameRow]] = defaultdict(list)
    for game in counted:
        for entrant in game.entrants:
            games_of[entrant.entrant_id].append(game)
    ordered: list[list[Record]] = []
    _rank_group(
        sorted(records.values(), key=lambda r: r.entrant_id),
        list(settings.order),
        values,
        games_of,
        ordered,
    )
    rows: list[StandingRow] = []
    sequence = [(group, record) for group in ordered for record in group]
    rank = 1
    for index, (group, record) in enumerate(sequence):
        if index == 0 or sequence[index - 1][0] is not group:
            rank = index + 1
        following = sequence[index + 1][1] if index + 1 < len(sequence) else None
        reason, reason_data = "", {}
        if following is not None:
            if sequence[index + 1][0] is group:
                reason = REASON_LEVEL
            else:
                reason, reason_data = _reason(record, following, settings.order, values)
        rows.append(
            StandingRow(
                rank=rank,
                tied=len(group) > 1,
                entrant_id=record.entrant_id,
                withdrawn=record.withdrawn,
                games_played=record.games,
                metrics=dict(values[record.entrant_id]),
                reason=reason,
                reason_data=reason_data,
            )
        )
    return rows


def _key(metric: Metric, value: float) -> float:
    return -value if metric.higher_is_better else value


def _rank_group(group, order, values, games_of, out) -> None:
    """Split ``group`` by the first metric in ``order``, then the rest, recursively.

    ``games_of`` maps an entrant to the games it played.
    """
    if len(group) == 1 or not order:
        if len(group) > 1:
            group = sorted(group, key=lambda r: r.entrant_id)
        out.append(group)
        return
    metric = METRICS[order[0]]
    if metric.among is not None:
        scores = {
            r.entrant_id: metric.among(r, group, games_of.get(r.entrant_id, ())) for r in group
        }
        for r in group:
            values[r.entrant_id][metric.key] = scores[r.entrant_id]
    else:
        scores = {r.entrant_id: values[r.entrant_id][metric.key] for r in group}
    buckets: dict[float, list[Record]] = defaultdict(list)
    for record in group:
        buckets[_key(metric, scores[record.entrant_id])].append(record)
    split = len(buckets) > 1
    for key in sorted(buckets):
        bucket = buckets[key]
        if metric.among is not None and split and len(bucket) > 1:
            # Head to head applies again among those still tied.
            _rank_group(bucket, order, values, games_of, out)
        else:
            _rank_group(bucket, order[1:], values, games_of, out)


REASON_AHEAD = gettext_noop("ahead on {metric} {one} to {two}")
REASON_TIED_AHEAD = gettext_noop("tied on {tied}, ahead on {metric} {one} to {two}")
REASON_LEVEL = gettext_noop("level on every tiebreaker")


def _reason(record: Record, following: Record, order, values) -> tuple[str, dict]:
    """Why ``record`` sits above ``following``: in plain English, and as data that a page
    can put in another language (the metric keys and the two values)."""
    one, two = values[record.entrant_id], values[following.entrant_id]
    tied_on = []
    for key in order:
        if one[key] != two[key]:
            data = {"metric": key, "one": _fmt(one[key]), "two": _fmt(two[key]), "tied": tied_on}
            return reason_text(data, lambda text: text), data
        tied_on.append(key)
    return REASON_LEVEL, {}


def reason_text(data: dict, translate) -> str:
    """A reason built from its data, its words and metric labels put through ``translate``."""
    if not data:
        return translate(REASON_LEVEL)
    label = translate(METRICS[data["metric"]].label).lower()
    if data.get("tied"):
        tied = ", ".join(translate(METRICS[key].label).lower() for key in data["tied"])
        return translate(REASON_TIED_AHEAD).format(
            tied=tied, metric=label, one=data["one"], two=data["two"]
        )
    return translate(REASON_AHEAD).format(metric=label, one=data["one"], two=data["two"])


def metric_text(value, places: int = 2) -> str:
    """A metric's value for a page or a file: whole numbers bare, others to ``places``."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{places}f}".rstrip("0").rstrip(".")
    return str(value)


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"

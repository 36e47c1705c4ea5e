"""Series standings, pure: each event's placings turned into points, ranked.

An event's placing of an entrant comes from its stages' standings, the last stage
first: whoever reached the last stage is placed by it, the rest after them by the stage
before, and so on (a bracket after a round robin places its players above those the
round robin left out). Players tied in a stage share the placing.

A series ranks its players by, in order:

1. points: the organizer's points for each placing, summed over the events counted
   (a player's best N when the series counts only the best N; all otherwise);
2. events won (placed first);
3. the best placing in any event;
4. fewer events played (the same points from fewer events);

and players still level share the rank.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class StageLine:
    entrant_id: int
    rank: int


def event_placings(stages: Sequence[Sequence[StageLine]]) -> dict[int, int]:
    """Each entrant's placing in the event from its stages' lines (first stage first)."""
    placed: dict[int, int] = {}
    for lines in reversed(stages):
        offset = len(placed)
        remaining = [line for line in lines if line.entrant_id not in placed]
        previous: tuple[int, int] | None = None  # (rank in the stage, placing given)
        for index, line in enumerate(remaining):
            if previous is not None and previous[0] == line.rank:
                place = previous[1]
            else:
                place = offset + index + 1
            placed[line.entrant_id] = place
            previous = (line.rank, place)
    return placed


def points_for(table: Mapping[str, float], place: int) -> float:
    """The organizer's points for a placing; a placing the table leaves out scores 0."""
    return float(table.get(str(place), 0))


@dataclass(frozen=True)
class Result:
    event: int  # the event's number in the series
    player_id: int
    place: int


@dataclass
class SeriesLine:
    player_id: int
    points: float = 0.0
    wins: int = 0
    best: int = 0
    played: int = 0
    results: list[tuple[int, int, float, bool]] = field(default_factory=list)
    rank: int = 0
    tied: bool = False

    def key(self) -> tuple:
        return (-self.points, -self.wins, self.best, self.played)


def rank_series(
    results: Iterable[Result], *, points: Mapping[str, float], best_of: int | None
) -> list[SeriesLine]:
    """Every player's line, best first; ``results`` hold one placing per player per event."""
    by_player: dict[int, list[Result]] = {}
    for result in results:
        by_player.setdefault(result.player_id, []).append(result)
    lines = []
    for player_id, own in by_player.items():
        scored = [(r, points_for(points, r.place)) for r in sorted(own, key=lambda r: r.event)]
        # Best N: the highest points, the earlier event first among equal ones.
        ranked = sorted(scored, key=lambda item: (-item[1], item[0].event))
        counted = {id(r) for r, _ in (ranked[:best_of] if best_of else ranked)}
        line = SeriesLine(player_id)
        for result, got in scored:
            kept = id(result) in counted
            line.results.append((result.event, result.place, got, kept))
            if kept:
                line.points += got
        line.points = round(line.points, 6)
        line.wins = sum(1 for r, _ in scored if r.place == 1)
        line.best = min(r.place for r, _ in scored)
        line.played = len(scored)
        lines.append(line)
    lines.sort(key=lambda line: (line.key(), line.player_id))
    for index, line in enumerate(lines):
        if index and line.key() == lines[index - 1].key():
            line.rank = lines[index - 1].rank
            line.tied = lines[index - 1].tied = True
        else:
            line.rank = index + 1
    return lines

"""Play a hand of dominoes with real shuffled tiles, for demo data and tests (pure).

The players are simple: each lays the tile that scores most in play (else its heaviest)
on either end of the line, draws from the boneyard where the rule set allows it, and
passes otherwise. The hand ends when someone plays their last tile (a domino) or nobody
can play (a block). What comes out is what a referee would report: who dominoed, the pips
left in every hand, and the points scored during play.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from scoring import engine
from scoring.rulesets import RuleSet, Tile


@dataclass
class PlayedHand:
    leader: str
    domino_by: str | None
    pips: dict[str, int]
    in_play: list[tuple[str, int]] = field(default_factory=list)
    tiles_left: dict[str, list[Tile]] = field(default_factory=dict)

    @property
    def ended(self) -> str:
        return "domino" if self.domino_by else "block"


def _first_leader(hands: dict[str, list[Tile]], seats: Sequence[str]) -> tuple[str, Tile]:
    """Whoever holds the highest double leads it; with no double out, the heaviest tile."""
    best = None
    for seat in seats:
        for tile in hands[seat]:
            key = (tile[0] == tile[1], tile[0] + tile[1], max(tile))
            if best is None or key > best[0]:
                best = (key, seat, tile)
    return best[1], best[2]


def _heaviest(tiles: list[Tile]) -> Tile:
    return max(tiles, key=lambda t: (t[0] + t[1], t[0] == t[1]))


class _Line:
    """The line of play: two open ends, each remembering whether a double sits there."""

    def __init__(self, tile: Tile):
        self.ends = [[tile[0], tile[0] == tile[1]], [tile[1], tile[0] == tile[1]]]
        self.single = True

    def counts(self) -> list[int]:
        if self.single:
            a, b = self.ends[0][0], self.ends[1][0]
            return [a + b]
        return [value * 2 if double else value for value, double in self.ends]

    def options(self, tile: Tile) -> list[int]:
        return [i for i, (value, _) in enumerate(self.ends) if value in tile]

    def lay(self, tile: Tile, end: int) -> None:
        value = self.ends[end][0]
        other = tile[1] if tile[0] == value else tile[0]
        self.ends[end] = [other, tile[0] == tile[1]]
        self.single = False

    def would_count(self, tile: Tile, end: int) -> list[int]:
        saved = [list(e) for e in self.ends], self.single
        self.lay(tile, end)
        counts = self.counts()
        self.ends, self.single = saved
        return counts


def play_hand(
    rules: RuleSet,
    seats: Sequence[str],
    rng: random.Random,
    *,
    leader: str | None = None,
) -> PlayedHand:
    """Deal shuffled tiles and play one hand to a domino or a block."""
    seats = list(seats)
    tiles = list(rules.tiles)
    rng.shuffle(tiles)
    hands = {
        seat: tiles[i * rules.hand_size : (i + 1) * rules.hand_size] for i, seat in enumerate(seats)
    }
    boneyard = tiles[len(seats) * rules.hand_size :]
    if leader is None:
        leader, opening = _first_leader(hands, seats)
    else:
        opening = _heaviest(hands[leader])
    hands[leader].remove(opening)
    line = _Line(opening)
    in_play = []
    points = engine.score_play(rules, line.counts())
    if points:
        in_play.append((leader, points))
    turn = (seats.index(leader) + 1) % len(seats)
    passes = 0
    while all(hands[seat] for seat in seats) and passes < len(seats):
        seat = seats[turn]
        moves = [(tile, end) for tile in hands[seat] for end in line.options(tile)]
        while not moves and rules.draws and len(boneyard) > 0:
            drawn = boneyard.pop()
            hands[seat].append(drawn)
            moves = [(drawn, end) for end in line.options(drawn)]
        if not moves:
            passes += 1
        else:
            passes = 0
            tile, end = max(
                moves,
                key=lambda move: (
                    engine.score_play(rules, line.would_count(*move)),
                    move[0][0] + move[0][1],
                ),
            )
            hands[seat].remove(tile)
            line.lay(tile, end)
            points = engine.score_play(rules, line.counts())
            if points:
                in_play.append((seat, points))
        turn = (turn + 1) % len(seats)
    domino_by = next((seat for seat in seats if not hands[seat]), None)
    return PlayedHand(
        leader=leader,
        domino_by=domino_by,
        pips={seat: sum(a + b for a, b in hands[seat]) for seat in seats},
        in_play=in_play,
        tiles_left=hands,
    )

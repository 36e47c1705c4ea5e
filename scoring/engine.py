"""The rules engine: what a hand, a play or a stack is worth, and when a game is won.

Pure and total: given a ``RuleSet`` and what happened at the table it returns the award,
or raises ``ScoringError`` naming the field at fault in a referee's words. RULES.md says
what every rule computes; this module only reads rule-set fields, never preset names.

Sides are seat names for individual rule sets; with ``teams: partners`` a side is its
two seats joined with ``+`` in seat order (seats 0 and 2, 1 and 3: "A+C", "B+D").
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.say import say
from scoring.rulesets import RuleSet, ScoringError, Tile

__all__ = [
    "GameOutcome",
    "HandResult",
    "ScoringError",
    "decide_game",
    "decide_game_on_time",
    "hand_capacity",
    "next_leader",
    "pips_of_tiles",
    "round_to_five",
    "score_hand",
    "score_play",
    "score_stack",
    "side_names",
    "tile_order",
]


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what every side scores for it (0 where nothing)."""

    ended: str
    awards: dict[str, int]
    winners: tuple[str, ...]
    pips: dict[str, int]
    side_pips: dict[str, int]
    raw_awards: dict[str, int]
    domino_by: str | None = None
    leader: str | None = None


@dataclass(frozen=True)
class GameOutcome:
    """Whether the game is over after these totals, and who won (None for a drawn game)."""

    finished: bool
    winner: str | None = None
    tied: tuple[str, ...] = ()


def round_to_five(n: int) -> int:
    """Round to the nearest five: remainders 0-2 go down, 3-4 go up (RULES.md)."""
    remainder = n % 5
    return n - remainder if remainder < 3 else n + 5 - remainder


def tile_order(tile: Tile) -> tuple[int, int]:
    """The order of 'lowest single tile': by pip total, then by the smaller half."""
    return (tile[0] + tile[1], min(tile))


def side_names(rules: RuleSet, seats: Sequence[str]) -> list[str]:
    """The sides at a table, in seat order of their first seat."""
    if rules.teams == "partners":
        return [f"{seats[0]}+{seats[2]}", f"{seats[1]}+{seats[3]}"]
    return list(seats)


def side_of(rules: RuleSet, seats: Sequence[str]) -> dict[str, str]:
    """The side each seat scores for."""
    if rules.teams == "partners":
        first, second = side_names(rules, seats)
        return {seats[0]: first, seats[2]: first, seats[1]: second, seats[3]: second}
    return {seat: seat for seat in seats}


def hand_capacity(rules: RuleSet) -> tuple[int, int]:
    """The most pips one hand, and all hands together, can hold under these rules."""
    heaviest = sorted((a + b for a, b in rules.tiles), reverse=True)
    everything = sum(heaviest)
    if rules.draws:
        # Hands grow from the boneyard: one hand could in principle hold nearly everything.
        return everything, everything
    dealt = min(rules.players * rules.hand_size, len(heaviest))
    return sum(heaviest[: rules.hand_size]), sum(heaviest[:dealt])


def pips_of_tiles(rules: RuleSet, tiles: Mapping[str, Any]) -> dict[str, int]:
    """Pips per seat from the tiles each holds, checking that the tiles are real."""
    if not isinstance(tiles, Mapping):
        raise ScoringError(say('Give each seat\'s tiles, like {"A": [[6, 6], [1, 2]]}.'), "tiles")
    available: dict[Tile, int] = {}
    for tile in rules.tiles:
        available[tile] = available.get(tile, 0) + 1
    seen: dict[Tile, int] = {}
    pips = {}
    for seat, hand in tiles.items():
        if not isinstance(hand, list | tuple):
            raise ScoringError(
                say("Seat {seat}'s tiles must be a list of tiles.", seat=seat), "tiles"
            )
        total = 0
        for raw in hand:
            tile = _real_tile(raw, seat)
            seen[tile] = seen.get(tile, 0) + 1
            if seen[tile] > available.get(tile, 0):
                held = available.get(tile, 0)
                raise ScoringError(
                    say(
                        "Tile {tile}-{tile2} appears {seen} times, but the set holds {value}.",
                        tile=tile[0],
                        tile2=tile[1],
                        seen=seen[tile],
                        value=held or "none",
                    ),
                    "tiles",
                )
            total += tile[0] + tile[1]
        pips[seat] = total
    return pips


def _real_tile(raw: Any, seat: str) -> Tile:
    if (
        isinstance(raw, list | tuple)
        and len(raw) == 2
        and all(isinstance(half, int) and not isinstance(half, bool) for half in raw)
        and all(0 <= half <= 6 for half in raw)
    ):
        return (min(raw), max(raw))
    raise ScoringError(
        say("Seat {seat} holds {raw!r}, which is not a double-six tile.", seat=seat, raw=raw),
        "tiles",
    )


def _check_seats(rules: RuleSet, seats: Sequence[str]) -> list[str]:
    if isinstance(seats, str) or not isinstance(seats, Sequence):
        raise ScoringError(say("Seats are a list of seat names in the order of play."), "seats")
    seats = list(seats)
    if len(seats) != rules.players:
        raise ScoringError(
            say(
                "This game is played by {players}; {count} seats were given.",
                players=rules.players,
                count=len(seats),
            ),
            "seats",
        )
    if len(set(seats)) != len(seats) or not all(isinstance(s, str) and s for s in seats):
        raise ScoringError(say("Every seat needs its own name."), "seats")
    return seats


def _check_pips(rules: RuleSet, seats: list[str], pips: Any) -> dict[str, int]:
    if not isinstance(pips, Mapping):
        raise ScoringError(say('Give the pips left in every hand, like {"A": 12}.'), "pips")
    for seat in pips:
        if seat not in seats:
            raise ScoringError(say("There is no seat {seat!r} at this table.", seat=seat), "pips")
    missing = [seat for seat in seats if seat not in pips]
    if missing:
        raise ScoringError(
            say("Give the pips left in seat {names}'s hand.", names=", ".join(missing)), "pips"
        )
    most_in_hand, most_in_all = hand_capacity(rules)
    counts = {}
    for seat in seats:
        value = pips[seat]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScoringError(say("Seat {seat}'s pips must be a whole number.", seat=seat), "pips")
        if value < 0:
            raise ScoringError(say("Seat {seat} cannot hold fewer than 0 pips.", seat=seat), "pips")
        if value > most_in_hand:
            raise ScoringError(
                say(
                    "Seat {seat} cannot hold {value} pips: {tiles} tiles hold at most {most}.",
                    seat=seat,
                    value=value,
                    tiles=rules.hand_size,
                    most=most_in_hand,
                )
                if not rules.draws
                else say(
                    "Seat {seat} cannot hold {value} pips: the whole set holds {most}.",
                    seat=seat,
                    value=value,
                    most=most_in_hand,
                ),
                "pips",
            )
        counts[seat] = value
    if sum(counts.values()) > most_in_all:
        raise ScoringError(
            say(
                "The hands hold {value} pips together, more than the {most_in_all} "
                "that could be left in them.",
                value=sum(counts.values()),
                most_in_all=most_in_all,
            ),
            "pips",
        )
    return counts


def _award_for(
    rules: RuleSet, winner: str, side_pips: dict[str, int], others: Sequence[str]
) -> int:
    """What ``winner`` scores for a block over ``others`` (RULES.md, block awards)."""
    own = side_pips[winner]
    if rules.block_award in ("opponents_pips", "losing_team_pips"):
        return sum(side_pips[side] for side in others)
    if rules.block_award == "opponents_minus_own":
        return max(0, sum(side_pips[side] for side in others) - own)
    if rules.block_award == "sum_of_differences":
        return sum(max(0, side_pips[side] - own) for side in others)
    if rules.block_award == "all_pips":
        return sum(side_pips.values())
    raise AssertionError(rules.block_award)  # cascade is scored for every side apart


def _finish(rules: RuleSet, raw: dict[str, int]) -> dict[str, int]:
    if rules.rounding == "nearest_5":
        return {side: round_to_five(points) for side, points in raw.items()}
    return dict(raw)


def score_hand(
    rules: RuleSet,
    *,
    seats: Sequence[str],
    pips: Mapping[str, int] | None = None,
    tiles: Mapping[str, Sequence[Sequence[int]]] | None = None,
    domino_by: str | None = None,
    leader: str | None = None,
    lowest_tiles: Mapping[str, Sequence[int]] | None = None,
) -> HandResult:
    """Score the end of a hand: a domino (``domino_by`` set) or a block (``None``)."""
    seats = _check_seats(rules, seats)
    if (pips is None) == (tiles is None):
        raise ScoringError(
            say("Give the pips left in every hand, or the tiles (not both)."), "pips"
        )
    if tiles is not None:
        pips = pips_of_tiles(rules, tiles)
        if set(pips) != set(seats):
            raise ScoringError(say("Give the tiles left in every seat's hand."), "tiles")
    counts = _check_pips(rules, seats, pips)
    if leader is not None and leader not in seats:
        raise ScoringError(say("There is no seat {leader!r} to have led.", leader=leader), "leader")
    sides = side_names(rules, seats)
    seat_side = side_of(rules, seats)
    side_pips = dict.fromkeys(sides, 0)
    for seat, value in counts.items():
        side_pips[seat_side[seat]] += value
    raw = dict.fromkeys(sides, 0)

    if domino_by is not None:
        if domino_by not in seats:
            raise ScoringError(
                say("There is no seat {domino_by!r} to have gone out.", domino_by=domino_by),
                "domino_by",
            )
        if counts[domino_by]:
            raise ScoringError(
                say(
                    "Seat {domino_by} went out, so holds no pips (got {counts}).",
                    domino_by=domino_by,
                    counts=counts[domino_by],
                ),
                "domino_by",
            )
        winner = seat_side[domino_by]
        if rules.domino_award == "all_pips":
            raw[winner] = sum(side_pips.values())
        else:
            raw[winner] = sum(p for side, p in side_pips.items() if side != winner)
        return HandResult(
            ended="domino",
            awards=_finish(rules, raw),
            winners=(winner,),
            pips=counts,
            side_pips=side_pips,
            raw_awards=raw,
            domino_by=domino_by,
            leader=leader,
        )

    if rules.block_award == "cascade":
        # Every side scores the difference to each side holding more (RULES.md); no tie
        # policy applies, since equal counts simply score alike.
        for side in sides:
            raw[side] = sum(max(0, side_pips[other] - side_pips[side]) for other in sides)
        low = min(side_pips.values())
        winners = tuple(side for side in sides if side_pips[side] == low)
    else:
        winners = _block_winners(rules, seats, counts, seat_side, side_pips, leader, lowest_tiles)
        if len(winners) == 1:
            (winner,) = winners
            raw[winner] = _award_for(rules, winner, side_pips, [s for s in sides if s != winner])
        elif len(winners) > 1:
            # Split: scored as if the lowest count won over the hands that are not tied,
            # then shared equally, rounded down to a whole point (before rounding to five).
            others = [side for side in sides if side not in winners]
            whole = _award_for(rules, winners[0], side_pips, others)
            for winner in winners:
                raw[winner] = whole // len(winners)
    return HandResult(
        ended="block",
        awards=_finish(rules, raw),
        winners=winners,
        pips=counts,
        side_pips=side_pips,
        raw_awards=raw,
        leader=leader,
    )


def score_ending(
    rules: RuleSet,
    seats: Sequence[str],
    *,
    ended: str,
    domino_by: str | None,
    pips: Mapping[str, int] | None,
    tiles: Mapping[str, Sequence[Sequence[int]]] | None,
    leader: str | None,
    lowest_tiles: Mapping[str, Sequence[int]] | None,
) -> HandResult:
    """Score a hand as a referee reports it: ``ended`` is "domino" or "block"."""
    if ended not in ("domino", "block"):
        raise ScoringError(say('A hand ends in a "domino" or a "block".'), "ended")
    if ended == "domino" and not domino_by:
        raise ScoringError(say("Say who went out (domino by which seat)."), "domino_by")
    if ended == "block" and domino_by:
        raise ScoringError(say("A blocked hand has nobody who went out."), "domino_by")
    if (pips is None) == (tiles is None):
        raise ScoringError(
            say("Give the pips left in every hand, or the tiles (not both)."), "pips"
        )
    if leader is not None and leader not in seats:
        raise ScoringError(say("There is no seat {leader!r} to lead.", leader=leader), "leader")
    return score_hand(
        rules,
        seats=seats,
        pips=pips,
        tiles=tiles,
        domino_by=domino_by if ended == "domino" else None,
        leader=leader,
        lowest_tiles=lowest_tiles,
    )


def _block_winners(
    rules: RuleSet,
    seats: list[str],
    counts: dict[str, int],
    side_of: dict[str, str],
    side_pips: dict[str, int],
    leader: str | None,
    lowest_tiles: Mapping[str, Sequence[int]] | None,
) -> tuple[str, ...]:
    """The side(s) that win a blocked hand, after the rule set's tie policy."""
    if rules.block_winner == "lowest_team" or rules.teams == "none":
        low = min(side_pips.values())
        tied = [side for side in side_pips if side_pips[side] == low]
    else:
        # lowest_hand with partners: the team of the lowest single hand (a Latin custom).
        low = min(counts.values())
        tied = list(dict.fromkeys(side_of[seat] for seat in seats if counts[seat] == low))
    if len(tied) == 1:
        return (tied[0],)
    if rules.block_tie == "no_award":
        return ()
    if rules.block_tie == "split":
        return tuple(tied)
    if rules.block_tie == "starting_team":
        if leader is None:
            raise ScoringError(
                say("The block is tied: say who led the hand, whose team wins it."), "leader"
            )
        # The team that led wins; if it is not among the tied, nobody does.
        return (side_of[leader],) if side_of[leader] in tied else ()
    return _lowest_tile_winners(seats, side_of, tied, lowest_tiles)


def _lowest_tile_winners(
    seats: list[str],
    side_of: dict[str, str],
    tied: list[str],
    lowest_tiles: Mapping[str, Sequence[int]] | None,
) -> tuple[str, ...]:
    tied_seats = [seat for seat in seats if side_of[seat] in tied]
    if not isinstance(lowest_tiles, Mapping) or not all(s in lowest_tiles for s in tied_seats):
        names = ", ".join(tied_seats)
        raise ScoringError(
            say("The block is tied between {names}: give each one's lowest tile.", names=names),
            "lowest_tiles",
        )
    best: dict[str, tuple[int, int]] = {}
    for seat in tied_seats:
        raw = lowest_tiles[seat]
        if not (
            isinstance(raw, list | tuple)
            and len(raw) == 2
            and all(isinstance(h, int) and not isinstance(h, bool) and 0 <= h <= 6 for h in raw)
        ):
            raise ScoringError(
                say("Seat {seat}'s lowest tile {raw!r} is not a tile.", seat=seat, raw=raw),
                "lowest_tiles",
            )
        order = tile_order((min(raw), max(raw)))
        side = side_of[seat]
        best[side] = min(best.get(side, order), order)
    lowest = min(best.values())
    # With two sets both can hold the same tile: still tied, they split (RULES.md).
    return tuple(side for side in tied if best[side] == lowest)


def score_play(rules: RuleSet, open_ends: Sequence[int]) -> int:
    """In-play points for the open ends' counted values (a crossed double counts both halves)."""
    if isinstance(open_ends, str) or not isinstance(open_ends, Sequence):
        raise ScoringError(say("Give the count on each open end."), "open_ends")
    if not 1 <= len(open_ends) <= 4:
        raise ScoringError(say("A layout has one to four open ends."), "open_ends")
    for value in open_ends:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 12:
            raise ScoringError(
                say("An open end counts 0 to 12 (a crossed 6-6); got {value!r}.", value=value),
                "open_ends",
            )
    if not rules.in_play_scoring:
        return 0
    total = sum(open_ends)
    return total if total > 0 and total % 5 == 0 else 0


def score_stack(rules: RuleSet, previous_points: int, double: bool = False) -> tuple[int, int]:
    """``(gained, lost_by_previous)`` for stacking on the previous play (RULES.md, seed 003)."""
    if not rules.stacking:
        raise ScoringError(say("This rule set does not allow stacking."), "kind")
    if (
        isinstance(previous_points, bool)
        or not isinstance(previous_points, int)
        or previous_points < 0
        or previous_points % 5
    ):
        raise ScoringError(
            say("The previous play's points are a multiple of five (0, 5, 10 ...)."), "points"
        )
    if not rules.steal:
        return previous_points, 0
    taken = previous_points * 2 if double else previous_points
    return taken, taken


def steal_victim(seats: Sequence[str], stacker: str, from_seat: str | None = None) -> str:
    """The seat a steal takes from: the last player who played a tile (seed 003).

    The referee names it when a pass came between that play and the stack; otherwise it
    is the seat before the stacker.
    """
    seats = list(seats)
    if not from_seat:
        return seats[(seats.index(stacker) - 1) % len(seats)]
    if from_seat not in seats:
        raise ScoringError(
            say(
                "There is no seat {name!r} at this table (seats: {known}).",
                name=from_seat,
                known=", ".join(seats),
            ),
            "from_seat",
        )
    if from_seat == stacker:
        raise ScoringError(
            say("A steal takes from another player: the last one who played a tile."),
            "from_seat",
        )
    return from_seat


def next_leader(
    rules: RuleSet, seats: Sequence[str], *, leader: str | None, result: HandResult
) -> str | None:
    """The seat that leads the next hand, or None where the tiles decide (highest double)."""
    seats = list(seats)
    if rules.next_leader == "highest_double":
        return None
    if rules.next_leader == "rotate":
        if leader is None:
            return None
        return seats[(seats.index(leader) + 1) % len(seats)]
    # previous_winner: whoever won the hand leads; a tied block is led again by its leader.
    if result.domino_by is not None:
        return result.domino_by
    if len(result.winners) != 1:
        return leader
    (winner,) = result.winners
    members = winner.split("+")
    return min(members, key=lambda seat: (result.pips[seat], seats.index(seat)))


def decide_game(rules: RuleSet, totals: Mapping[str, int]) -> GameOutcome:
    """Whether the game is won after these totals (RULES.md, "Winning a game")."""
    if not totals:
        raise ScoringError(say("A game has sides to total."), "totals")
    if max(totals.values()) < rules.target:
        return GameOutcome(finished=False)
    return _highest_total_wins(rules, totals)


def _highest_total_wins(rules: RuleSet, totals: Mapping[str, int]) -> GameOutcome:
    """The one highest total wins; equal top totals play on where the rule set says so,
    else the game ends tied."""
    top = max(totals.values())
    leaders = tuple(side for side, total in totals.items() if total == top)
    if len(leaders) == 1:
        return GameOutcome(finished=True, winner=leaders[0])
    if rules.play_on_tie_at_target:
        return GameOutcome(finished=False, tied=leaders)
    return GameOutcome(finished=True, winner=None, tied=leaders)


def decide_game_on_time(
    rules: RuleSet, totals: Mapping[str, int], *, hands_since_call: int, hands_after_time: int
) -> GameOutcome:
    """Whether a timed game is over (RULES.md, "Round clock"): as ``decide_game`` until
    time is called; once the hand in play and ``hands_after_time`` more are recorded
    (``hands_since_call`` counts the hands recorded after the call), the highest total
    wins whatever the target, and equal top totals follow the tie rule
    (``play_on_tie_at_target``: one more hand, and so on until the tie breaks)."""
    outcome = decide_game(rules, totals)
    if outcome.finished or hands_since_call < 1 + hands_after_time:
        return outcome
    return _highest_total_wins(rules, totals)


# --- tallies kept beside a game's totals ----------------------------------------------


TALLY_ZERO = {"hands_won": 0, "dominoes": 0, "penalties": 0}


def count_tallies(
    side_names: Iterable[str],
    hands: Iterable[tuple[list[str], str, bool]] = (),
    penalties: Iterable[tuple[str, int]] = (),
    *,
    start: dict | None = None,
) -> dict[str, dict[str, int]]:
    """Hands won, dominoes and penalty points per side name, added to ``start``.

    ``hands`` are (winners, domino_by seat, voided) of current hands; ``penalties`` are
    (side name, points) of active penalty events, whose points are negative.
    """
    tallies = {name: dict(TALLY_ZERO, **(start or {}).get(name, {})) for name in side_names}
    side_of_seat = {seat: name for name in tallies for seat in name.split("+")}
    for winners, domino_by, voided in hands:
        if voided:
            continue
        for name in winners:
            tallies[name]["hands_won"] += 1
        if domino_by:
            tallies[side_of_seat[domino_by]]["dominoes"] += 1
    for name, points in penalties:
        tallies[name]["penalties"] -= points
    return tallies

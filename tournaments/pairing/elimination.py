"""Single elimination, two or more a table: a bracket built once from the seeds.

A bracket is a list of slots. A first-round slot seats seeds; a later slot seats the top
``advance`` of the slots that feed it. Top seeds meet last: with two a table the order
is the standard one (1 v 16, 8 v 9, …), and the field is padded to a full bracket with
byes that go to the top seeds. With three or four a table the seeds are spread over the
first-round tables in snake order and the top ``advance`` of each table go through.
``ready_slots`` says which slots can be played given the results so far; a slot with
nobody to beat (a bye) is settled at once.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.say import say
from tournaments.pairing.base import (
    EngineBase,
    EntrantStub,
    Flag,
    PairingError,
    PairingResult,
    Table,
    check_positive_int,
    ordered,
)


@dataclass(frozen=True)
class Slot:
    """One table of the bracket: where its entrants come from.

    A first-round slot seats ``seeds``; a later one seats, from each ``(slot, place)`` of
    ``sources``, the entrant who finished in that place there (0 the winner, 1 the next).
    A slot marked ``reset`` (a grand final's second game) is played only if the entrant
    from the losers' bracket won the first. A ``third_place`` slot seats those the
    semi-finals put out, in the final's round; it decides places, not the champion.
    """

    key: str
    round: int
    seeds: tuple[int, ...] = ()
    sources: tuple[tuple[str, int], ...] = ()
    reset: bool = False
    third_place: bool = False


def standard_order(size: int) -> list[int]:
    """Seed numbers in bracket order: 1, 16, 8, 9, 4, 13, … for sixteen."""
    order = [1]
    while len(order) < size:
        width = len(order) * 2
        order = [seed for top in order for seed in (top, width + 1 - top)]
    return order


def build_bracket(
    count: int, *, table_size: int = 2, advance: int = 1, third_place: bool = False
) -> list[Slot]:
    """Every slot of a bracket for ``count`` seeds; with ``third_place``, the entrants the
    semi-finals put out (the next ``advance`` of each) play a third-place table in the
    final's round (a bracket of a single table has no semi-finals, so none)."""
    if count < 2:
        raise PairingError(say("A bracket needs at least two entrants."))
    if count <= advance:
        raise PairingError(
            say(
                "With {advance} going through from each table, a bracket needs more than "
                "{advance} entrants.",
                advance=advance,
            )
        )
    if not 1 <= advance < table_size or table_size % advance:
        raise PairingError(
            say(
                "At tables of {table_size}, the number who go through must divide {table_size}.",
                table_size=table_size,
            )
        )
    group = table_size // advance
    rounds = 1
    while table_size * group ** (rounds - 1) < count:
        rounds += 1
    first_tables = group ** (rounds - 1)
    seats = table_size * first_tables
    positions = standard_order(first_tables) if group == 2 else list(range(1, first_tables + 1))
    tables: list[list[int]] = [[] for _ in range(first_tables)]
    for row in range(table_size):
        seeds = range(row * first_tables + 1, (row + 1) * first_tables + 1)
        # Snake: row 0 gives seed t to the table ranked t; row 1 runs back; and so on.
        ranks = range(1, first_tables + 1) if row % 2 == 0 else range(first_tables, 0, -1)
        for seed, rank in zip(seeds, ranks, strict=True):
            tables[positions.index(rank)].append(seed)
    slots = [
        Slot(key=f"R1-{i + 1}", round=1, seeds=tuple(s for s in table if s <= seats))
        for i, table in enumerate(tables)
    ]
    previous = list(slots)  # a copy: slots grows below
    for number in range(2, rounds + 1):
        current = [
            Slot(
                key=f"R{number}-{i + 1}",
                round=number,
                sources=tuple(
                    (slot.key, place)
                    for slot in previous[i * group : (i + 1) * group]
                    for place in range(advance)
                ),
            )
            for i in range(len(previous) // group)
        ]
        slots.extend(current)
        semi_finals, previous = previous, current
    if third_place and rounds > 1:
        slots.append(
            Slot(
                key=f"R{rounds}-3P",
                round=rounds,
                sources=tuple(
                    (slot.key, place)
                    for slot in semi_finals
                    for place in range(advance, 2 * advance)
                ),
                third_place=True,
            )
        )
    return slots


def settle(
    bracket: Sequence[Slot],
    seeds: Sequence[int],
    results: Mapping[str, Sequence[int]],
    *,
    advance: int = 1,
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """(who sits at each slot that can be played now, results including byes settled).

    ``seeds`` lists entrant ids by seed (seed 1 first); ``results`` maps a played slot to
    its entrant ids best first.
    """
    by_seed = dict(enumerate(seeds, start=1))
    settled: dict[str, list[int]] = {key: list(ranking) for key, ranking in results.items()}
    ready: dict[str, list[int]] = {}
    by_key = {slot.key: slot for slot in bracket}
    for slot in sorted(bracket, key=lambda s: s.round):
        if slot.key in settled:
            continue
        if slot.seeds:
            seated = [by_seed[s] for s in slot.seeds if s in by_seed]
        else:
            if any(source not in settled for source, _ in slot.sources):
                continue
            seated = [
                e for source, place in slot.sources for e in settled[source][place : place + 1]
            ]
        if slot.reset:
            first_final = by_key[slot.sources[0][0]]
            from_winners = settled[first_final.sources[0][0]][0]
            if settled[first_final.key][0] == from_winners:
                # The winners' bracket champion won the first final: no second game.
                settled[slot.key] = list(settled[first_final.key])
                continue
        if len(seated) <= advance:
            settled[slot.key] = seated  # a bye: nobody to beat
        else:
            ready[slot.key] = seated
    return ready, settled


def champion(bracket: Sequence[Slot], settled: Mapping[str, Sequence[int]]) -> int | None:
    """The bracket's winner once its last slot is settled."""
    final = max((slot for slot in bracket if not slot.third_place), key=lambda slot: slot.round)
    ranking = settled.get(final.key)
    return ranking[0] if ranking else None


def _with_rounds(slots: list[Slot]) -> list[Slot]:
    """Give every slot the earliest round it can be played: one after its latest source."""
    by_key = {slot.key: slot for slot in slots}
    rounds: dict[str, int] = {}

    def depth(key: str) -> int:
        if key not in rounds:
            slot = by_key[key]
            rounds[key] = 1 if slot.seeds else 1 + max(depth(s) for s, _ in slot.sources)
        return rounds[key]

    return [
        Slot(key=s.key, round=depth(s.key), seeds=s.seeds, sources=s.sources, reset=s.reset)
        for s in slots
    ]


def build_double_bracket(count: int, *, grand_final_reset: bool = True) -> list[Slot]:
    """Winners' and losers' brackets and the grand final, two a table.

    Losers of each winners' round drop into the losers' bracket in reverse order, so that
    two entrants who met in the winners' bracket do not meet again at once.
    """
    winners = build_bracket(count, table_size=2, advance=1)
    by_round: dict[int, list[Slot]] = {}
    for slot in winners:
        by_round.setdefault(slot.round, []).append(slot)
    last = max(by_round)
    slots = [
        Slot(
            f"W{s.round}-{s.key.split('-')[1]}",
            s.round,
            s.seeds,
            tuple(
                (f"W{src.split('-')[0][1:]}-{src.split('-')[1]}", place) for src, place in s.sources
            ),
        )
        for s in winners
    ]
    names = {
        (s.round, i): f"W{s.round}-{i + 1}" for r in by_round for i, s in enumerate(by_round[r])
    }
    # Losers' round 1: the losers of winners' round 1, in pairs.
    previous = [
        (names[(1, 2 * i)], 1, names[(1, 2 * i + 1)], 1) for i in range(len(by_round[1]) // 2)
    ]
    losers: list[Slot] = []
    number = 1
    current = []
    for i, (a, pa, b, pb) in enumerate(previous):
        current.append(Slot(f"L{number}-{i + 1}", 0, sources=((a, pa), (b, pb))))
    losers.extend(current)
    for w_round in range(2, last + 1):
        # Drop-in round: survivors meet the losers of this winners' round, crossed over.
        number += 1
        drops = [names[(w_round, i)] for i in range(len(by_round[w_round]))][::-1]
        if len(current) != len(drops):
            break
        current = [
            Slot(f"L{number}-{i + 1}", 0, sources=((survivor.key, 0), (drop, 1)))
            for i, (survivor, drop) in enumerate(zip(current, drops, strict=True))
        ]
        losers.extend(current)
        if len(current) > 1:
            number += 1
            current = [
                Slot(
                    f"L{number}-{i + 1}",
                    0,
                    sources=((current[2 * i].key, 0), (current[2 * i + 1].key, 0)),
                )
                for i in range(len(current) // 2)
            ]
            losers.extend(current)
    final = Slot("GF", 0, sources=((names[(last, 0)], 0), (current[0].key, 0)))
    slots += [*losers, final]
    if grand_final_reset:
        slots.append(Slot("GF2", 0, sources=(("GF", 0), ("GF", 1)), reset=True))
    return _with_rounds(slots)


class DoubleElimination(EngineBase):
    key = "double_elimination"
    reads_results = True
    needs_finished_round = True
    advances = True

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        if table_size != 2:
            raise PairingError(say("Double elimination is played two a table."))
        reset = settings.get("grand_final_reset", True)
        if not isinstance(reset, bool):
            raise PairingError(say("Grand final reset is yes or no."))

    def _bracket(self, count: int, settings: Mapping[str, Any]) -> list[Slot]:
        if count < 4:
            raise PairingError(say("Double elimination needs at least four entrants."))
        return build_double_bracket(
            count, grand_final_reset=settings.get("grand_final_reset", True)
        )

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        return max(slot.round for slot in self._bracket(count, settings))

    def bracket(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> list[Slot]:
        """Every slot of the bracket, played or not (for drawing it)."""
        return self._bracket(count, settings)

    def pair(
        self, entrants, *, round_number, table_size, settings, seed, results=None, schedules=None
    ):
        field = ordered(entrants)
        bracket = self._bracket(len(field), settings)
        ready, settled = settle(bracket, [e.id for e in field], results or {})
        tables = [
            Table(tuple(ready[s.key]), slot=s.key)
            for s in bracket
            if s.round == round_number and s.key in ready
        ]
        flags = [
            Flag("bye", say("Bye: nobody to play at this table."), tuple(settled[s.key]))
            for s in bracket
            if s.round == round_number
            and s.key in settled
            and s.key not in (results or {})
            and settled[s.key]
        ]
        return PairingResult(tuple(tables), tuple(flags))


class SingleElimination(EngineBase):
    key = "single_elimination"
    reads_results = True
    needs_finished_round = True
    advances = True

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        check_positive_int(settings, "advance")
        if not isinstance(settings.get("third_place", False), bool):
            raise PairingError(say("A third-place match is yes or no."))
        advance = settings.get("advance", 1)
        if not 1 <= advance < table_size or table_size % advance:
            raise PairingError(
                say(
                    "At tables of {table_size}, the number who go through must divide "
                    "{table_size} and be fewer.",
                    table_size=table_size,
                )
            )

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        return self.bracket(count, table_size=table_size, settings=settings)[-1].round

    def bracket(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> list[Slot]:
        """Every slot of the bracket, played or not (for drawing it)."""
        return build_bracket(
            count,
            table_size=table_size,
            advance=settings.get("advance", 1),
            third_place=settings.get("third_place", False) is True,
        )

    def pair(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
        results: Mapping[str, Sequence[int]] | None = None,
        schedules=None,
    ) -> PairingResult:
        """The tables of bracket round ``round_number`` that can be played now."""
        field = ordered(entrants)
        advance = settings.get("advance", 1)
        bracket = self.bracket(len(field), table_size=table_size, settings=settings)
        ready, settled = settle(bracket, [e.id for e in field], results or {}, advance=advance)
        withdrawn = {e.id for e in field if e.withdrawn}
        tables, flags = [], []
        for slot in bracket:
            if slot.round != round_number:
                continue
            if slot.key in ready:
                tables.append(Table(tuple(ready[slot.key]), slot=slot.key))
                gone = [e for e in ready[slot.key] if e in withdrawn]
                if gone:
                    flags.append(
                        Flag(
                            "withdrawn",
                            say("A withdrawn entrant forfeits this table."),
                            tuple(gone),
                        )
                    )
            elif slot.key in settled and slot.key not in (results or {}):
                through = tuple(settled[slot.key])
                if through:
                    # Everyone who goes through without playing sits at the bye table.
                    tables.append(Table(through, bye=True, slot=slot.key))
                    flags.append(Flag("bye", say("Bye: nobody to play at this table."), through))
        return PairingResult(tuple(tables), tuple(flags))


def finishes(
    bracket: Sequence[Slot],
    seeds: Sequence[int],
    results: Mapping[str, Sequence[int]],
    *,
    advance: int = 1,
    field: Iterable[int] = (),
    levels: Mapping[str, Sequence[int]] | None = None,
) -> dict[int, int]:
    """Per entrant of ``field`` and of the bracket, the place the bracket gives it so far
    (1 the champion), for the standings to rank by before any tiebreaker.

    The final's seats take the first places in their order there, then the third-place
    table's; everyone else shares the place of the round they went out in, a later round
    better (in a double elimination, the losers' round they went out in). An entrant
    still in counts the best place it can still reach: 1 on the way to the final, the
    third-place table's first place on the way there. An entrant of ``field`` the
    bracket never seated (withdrawn before it began) comes after all of them. ``levels``
    gives a played slot's placings in its ranking's order (1, 2, 2, 4): seats of the
    final or the third-place table level there share the better place.
    """
    _, settled = settle(bracket, seeds, results, advance=advance)
    by_key = {slot.key: slot for slot in bracket}
    target = {source: slot.key for slot in bracket for source in slot.sources}

    def seats(slot: Slot) -> int:
        return len(slot.seeds) if slot.seeds else len(slot.sources)

    exits = {
        slot.key: [p for p in range(seats(slot)) if (slot.key, p) not in target] for slot in bracket
    }
    # Tables that place everyone they seat: the final (the champion's), then third place.
    final = max((s for s in bracket if not s.third_place), key=lambda s: s.round)
    placing = [final] + [s for s in bracket if s.third_place and s is not final]
    place: dict[tuple[str, int], int] = {}
    next_place = 1
    for slot in placing:
        for p in exits[slot.key]:
            place[(slot.key, p)] = next_place
            next_place += 1
    # Everyone else by the round they went out in, a later round first, sharing a place.
    rounds = sorted({s.round for s in bracket if s not in placing and exits[s.key]}, reverse=True)
    for number in rounds:
        group = [
            (s.key, p)
            for s in bracket
            if s.round == number and s not in placing
            for p in exits[s.key]
        ]
        for spot in group:
            place[spot] = next_place
        next_place += len(group)
    best: dict[str, int] = {}

    def best_from(key: str) -> int:
        if key not in best:
            best[key] = min(
                place[(key, p)] if (key, p) in place else best_from(target[(key, p)])
                for p in range(seats(by_key[key]))
            )
        return best[key]

    finish: dict[int, int] = {}
    levels = levels or {}
    for slot in sorted(bracket, key=lambda s: s.round):
        level = levels.get(slot.key, ())
        for p, entrant_id in enumerate(settled.get(slot.key, ())):
            if slot in placing and p < len(level) and level[p] - 1 < p:
                p = level[p] - 1  # level with a seat above: the same place
            spot = (slot.key, p)
            finish[entrant_id] = place[spot] if spot in place else best_from(target[spot])
    for entrant_id in seeds:
        finish.setdefault(entrant_id, 1)  # in the first round, nothing played yet
    outside = max(len(seeds), next_place - 1) + 1
    for entrant_id in field:
        finish.setdefault(entrant_id, outside)
    return finish

"""Single elimination, two or more a table: a bracket built once from the seeds.

A bracket is a list of slots. A first-round slot seats seeds; a later slot seats the top
``advance`` of the slots that feed it. Top seeds meet last: with two a table the order
is the standard one (1 v 16, 8 v 9, …), and the field is padded to a full bracket with
byes that go to the top seeds. With three or four a table the seeds are spread over the
first-round tables in snake order and the top ``advance`` of each table go through.
``ready_slots`` says which slots can be played given the results so far; a slot with
nobody to beat (a bye) is settled at once.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.pairing.base import (
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
    """One table of the bracket: where its entrants come from."""

    key: str
    round: int
    seeds: tuple[int, ...] = ()
    feeders: tuple[str, ...] = ()


def standard_order(size: int) -> list[int]:
    """Seed numbers in bracket order: 1, 16, 8, 9, 4, 13, … for sixteen."""
    order = [1]
    while len(order) < size:
        width = len(order) * 2
        order = [seed for top in order for seed in (top, width + 1 - top)]
    return order


def build_bracket(count: int, *, table_size: int = 2, advance: int = 1) -> list[Slot]:
    """Every slot of a bracket for ``count`` seeds."""
    if count < 2:
        raise PairingError("A bracket needs at least two entrants.")
    if not 1 <= advance < table_size or table_size % advance:
        raise PairingError(
            f"At tables of {table_size}, the number who go through must divide {table_size}."
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
    previous = slots
    for number in range(2, rounds + 1):
        current = [
            Slot(
                key=f"R{number}-{i + 1}",
                round=number,
                feeders=tuple(slot.key for slot in previous[i * group : (i + 1) * group]),
            )
            for i in range(len(previous) // group)
        ]
        slots.extend(current)
        previous = current
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
    for slot in bracket:
        if slot.key in settled:
            continue
        if slot.round == 1:
            seated = [by_seed[s] for s in slot.seeds if s in by_seed]
        else:
            if any(feeder not in settled for feeder in slot.feeders):
                continue
            seated = [e for feeder in slot.feeders for e in settled[feeder][:advance]]
        if len(seated) <= advance:
            settled[slot.key] = seated  # a bye: nobody to beat
        else:
            ready[slot.key] = seated
    return ready, settled


def champion(bracket: Sequence[Slot], settled: Mapping[str, Sequence[int]]) -> int | None:
    final = bracket[-1]
    ranking = settled.get(final.key)
    return ranking[0] if ranking else None


class SingleElimination:
    key = "single_elimination"

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        check_positive_int(settings, "advance")
        advance = settings.get("advance", 1)
        if not 1 <= advance < table_size or table_size % advance:
            raise PairingError(
                f"At tables of {table_size}, the number who go through must divide "
                f"{table_size} and be fewer."
            )

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        bracket = build_bracket(count, table_size=table_size, advance=settings.get("advance", 1))
        return bracket[-1].round

    def pair(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
        results: Mapping[str, Sequence[int]] | None = None,
    ) -> PairingResult:
        """The tables of bracket round ``round_number`` that can be played now."""
        field = ordered(entrants)
        advance = settings.get("advance", 1)
        bracket = build_bracket(len(field), table_size=table_size, advance=advance)
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
                        Flag("withdrawn", "A withdrawn entrant forfeits this table.", tuple(gone))
                    )
            elif slot.key in settled and slot.key not in (results or {}):
                through = tuple(settled[slot.key])
                if through:
                    tables.append(Table(through[:1], bye=True, slot=slot.key))
                    flags.append(Flag("bye", "Bye: nobody to play at this table.", through))
        return PairingResult(tuple(tables), tuple(flags))

"""Round robins: the circle (Berger) method for two sides a table, table schedules for more.

Two sides a table (Partners teams, two-player Cutthroat): entrant 1 stays put while the
others rotate one place a round; an odd field adds a bye. Who sits first (and so leads
first where the tiles do not decide) alternates. At tables of three or four the whole
schedule comes from ``table_round_robin`` and is cut into rounds.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from domain.say import say
from tournaments.pairing import table_round_robin
from tournaments.pairing.base import (
    EntrantStub,
    Flag,
    PairingError,
    PairingResult,
    Table,
    check_positive_int,
    ordered,
)


def berger_rounds(count: int) -> list[list[tuple[int | None, int | None]]]:
    """Every round of a circle-method round robin over positions ``0 … count-1``.

    ``None`` is the bye of an odd field. In each pair the first sits first: whoever has
    sat first less often, so everyone sits first about half the time.
    """
    slots: list[int | None] = list(range(count))
    if count % 2:
        slots.append(None)
    size = len(slots)
    rounds = []
    firsts = [0] * (size + 1)
    for number in range(size - 1):
        pairs = []
        for i in range(size // 2):
            a, b = slots[i], slots[size - 1 - i]
            if a is None or b is None:
                pairs.append((a, b) if b is None else (b, a))
                continue
            # Whoever has sat first less often sits first; equal counts alternate by round.
            first_is_a = firsts[a] < firsts[b] if firsts[a] != firsts[b] else (number + i) % 2 == 0
            first = a if first_is_a else b
            firsts[first] += 1
            pairs.append((a, b) if first_is_a else (b, a))
        rounds.append(pairs)
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return rounds


MAX_DEFAULT_ROUNDS = 15


def rounds_in_schedule(count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
    """How many rounds the round robin has: everyone once (two sides), or as set."""
    if table_size == 2:
        return count - 1 if count % 2 == 0 else count
    rounds = settings.get("rounds")
    if rounds is None:
        # Everyone could meet everyone once in (n - 1) / (table_size - 1) rounds.
        rounds = max(1, -(-(count - 1) // (table_size - 1)))
        if rounds > MAX_DEFAULT_ROUNDS:
            raise PairingError(
                say(
                    "Meeting everyone would take {rounds} rounds at tables of {table_size}: "
                    "say how many rounds to play.",
                    rounds=rounds,
                    table_size=table_size,
                )
            )
    return rounds


class RoundRobin:
    key = "round_robin"

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        check_positive_int(settings, "rounds")
        if table_size not in (2, 3, 4):
            raise PairingError(say("A round robin seats two, three or four at a table."))

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        return rounds_in_schedule(count, table_size=table_size, settings=settings)

    def pair(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
        results=None,
    ) -> PairingResult:
        """Round ``round_number`` of the schedule over every entrant of the stage."""
        field = ordered(entrants)
        total = self.total_rounds(len(field), table_size=table_size, settings=settings)
        if not 1 <= round_number <= total:
            raise PairingError(
                say(
                    "This round robin has {total} rounds; there is no round {round_number}.",
                    total=total,
                    round_number=round_number,
                )
            )
        if table_size == 2:
            return self._two_sides(field, round_number)
        return self._tables(field, round_number, table_size, settings, seed)

    def _two_sides(self, field: list[EntrantStub], round_number: int) -> PairingResult:
        tables, flags = [], []
        for a, b in berger_rounds(len(field))[round_number - 1]:
            one = field[a] if a is not None else None
            two = field[b] if b is not None else None
            present = [e for e in (one, two) if e is not None and not e.withdrawn]
            if len(present) == 2:
                tables.append(Table((one.id, two.id)))
            elif len(present) == 1:
                (alone,) = present
                tables.append(Table((alone.id,), bye=True))
                gone = two if alone is one else one
                message = (
                    say("Bye: entrant {id} has no opponent this round.", id=alone.id)
                    if gone is None
                    else say("Bye: entrant {id}'s opponent withdrew.", id=alone.id)
                )
                flags.append(Flag("bye", message, (alone.id,)))
        return PairingResult(tuple(tables), tuple(flags))

    def _tables(self, field, round_number, table_size, settings, seed) -> PairingResult:
        active = [e for e in field if not e.withdrawn]
        total = self.total_rounds(len(field), table_size=table_size, settings=settings)
        remaining = total - round_number + 1
        met = {}
        for entrant in active:
            for other, count in entrant.met.items():
                met[(min(entrant.id, other), max(entrant.id, other))] = count
        if len(active) == len(field):
            # While the field is unchanged and the rounds so far are the planned ones, the
            # plan made at the start holds (an exact design stays exact).
            planned = table_round_robin.plan(len(field), total, table_size=table_size, seed=seed)
            ids = [e.id for e in field]
            rounds = [
                [tuple(ids[i] for i in table) for table in tables] for tables in planned.rounds
            ]
            if _meetings(rounds[: round_number - 1]) == met:
                tables = tuple(Table(table) for table in rounds[round_number - 1])
                flags = tuple(Flag("schedule", message) for message in planned.flags)
                return PairingResult(tables, flags)
        seats = {}
        width = table_size
        for entrant in active:
            counts = [0] * width
            for position in entrant.seats:
                if position < width:
                    counts[position] += 1
            seats[entrant.id] = counts
        plan = table_round_robin.replan(
            [e.id for e in active],
            remaining,
            table_size=table_size,
            seed=seed,
            met=met,
            seat_counts=seats,
            short_counts={e.id: e.short_tables for e in active},
        )
        tables = tuple(Table(tuple(table)) for table in plan.rounds[0])
        flags = tuple(Flag("schedule", message) for message in plan.flags)
        return PairingResult(tables, flags)


def _meetings(rounds) -> dict[tuple[int, int], int]:
    met: dict[tuple[int, int], int] = {}
    for tables in rounds:
        for table in tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    key = (min(a, b), max(a, b))
                    met[key] = met.get(key, 0) + 1
    return met

"""Round robins: the circle (Berger) method for two sides a table, table schedules for more.

Two sides a table (Partners teams, two-player Cutthroat): entrant 1 stays put while the
others rotate one place a round; an odd field adds a bye. Who sits first (and so leads
first where the tiles do not decide) alternates. At tables of three or four the whole
schedule comes from ``table_round_robin`` and is cut into rounds.

A schedule is searched once, ahead of the rounds (``schedule_needs`` says which, and
``compute_schedule`` computes it, in a task); every round then reads its stored entry.
When the field changes after the start (a late arrival), the rounds left are planned
again around the meetings already played, two a table as well as more.
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.say import say, say_n
from tournaments.pairing import table_round_robin
from tournaments.pairing.base import (
    EngineBase,
    EntrantStub,
    Flag,
    PairingError,
    PairingResult,
    Table,
    allowed_sizes,
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
# Two a table (Partners, two-player games) up to six (Two-box with five or six).
TABLE_SIZES = (2, 3, 4, 5, 6)


def rounds_in_schedule(count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
    """How many rounds the round robin has: everyone once (two sides), or as set."""
    rounds = settings.get("rounds")
    if rounds is None and table_size == 2:
        return count - 1 if count % 2 == 0 else count
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


# The phantom seat of an odd two-sided field re-planned by the search: whoever sits with
# it has the bye, and a second bye counts as a repeat meeting with it.
BYE = -1


@dataclass(frozen=True)
class ScheduleNeed:
    """A schedule a round needs: the rounds ``first_round … total`` over ``players``.

    ``key`` names it by everything it depends on (the players in seed order, the round,
    the length, the table size, the seed and the meetings already played), so a schedule
    computed ahead of time and stored is found again by the round that needs it.
    """

    key: str
    players: tuple[int, ...]
    first_round: int
    total: int
    table_size: int
    seed: int
    met: tuple[tuple[int, int, int], ...] = ()
    seats: tuple[tuple[int, tuple[int, ...]], ...] = ()
    short: tuple[tuple[int, int], ...] = ()
    # The table sizes the rule set allows (empty: the stage's size or one fewer).
    allowed: tuple[int, ...] = ()


def schedule_key(
    players: Sequence[int],
    round_number: int,
    total: int,
    table_size: int,
    seed: int,
    met: Mapping[tuple[int, int], int],
    allowed: Sequence[int] = (),
) -> str:
    """The name of the schedule entry for one round, given the meetings before it."""
    meetings = sorted([a, b, count] for (a, b), count in met.items() if count)
    parts = [list(players), round_number, total, table_size, seed, meetings]
    if allowed:
        parts.append(list(allowed))
    payload = json.dumps(parts, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:40]


def compute_schedule(need: ScheduleNeed, *, quick: bool = False) -> dict[str, dict]:
    """Search the schedule a need names: one entry per round, each under its own key.

    Each round's key assumes the rounds before it were played as planned, so while
    they are, every later round finds its tables without searching again. ``quick``
    searches with the small budget; each entry says whether that budget stopped the
    search (``"quick"``: the full search may find fewer repeats) and the work it took.
    """
    met = {(a, b): count for a, b, count in need.met}
    remaining = need.total - need.first_round + 1
    plan = table_round_robin.replan(
        list(need.players),
        remaining,
        table_size=need.table_size,
        seed=need.seed,
        met=met,
        seat_counts=dict(need.seats),
        short_counts=dict(need.short),
        quick=quick,
        allowed=need.allowed or None,
    )
    floor = table_round_robin.repeat_floor(need.players, plan.rounds, met)
    entries = {}
    running = dict(met)
    for offset, tables in enumerate(plan.rounds):
        number = need.first_round + offset
        key = schedule_key(
            need.players, number, need.total, need.table_size, need.seed, running, need.allowed
        )
        entries[key] = {
            "round": number,
            "tables": [list(table) for table in tables],
            "repeats": plan.repeats,
            "unavoidable": plan.repeats <= floor,
            "quick": plan.quick,
            "work": plan.work,
        }
        for key_pair, count in _meetings([tables]).items():
            running[key_pair] = running.get(key_pair, 0) + count
    return entries


def stored_plan(need: ScheduleNeed, entries: Mapping[str, dict]) -> dict[str, dict] | None:
    """The entries of one stored plan from the need's round on, found by following the
    keys (each round's key names the meetings of the rounds before it); None where a
    round is missing."""
    running = {(a, b): count for a, b, count in need.met}
    chain = {}
    for number in range(need.first_round, need.total + 1):
        key = schedule_key(
            need.players, number, need.total, need.table_size, need.seed, running, need.allowed
        )
        entry = entries.get(key)
        if entry is None:
            return None
        chain[key] = entry
        for key_pair, count in _meetings([entry["tables"]]).items():
            running[key_pair] = running.get(key_pair, 0) + count
    return chain


def plan_repeats(need: ScheduleNeed, chain: Mapping[str, dict]) -> int:
    """Repeat meetings of a stored plan's rounds, counting the meetings already played."""
    met = {(a, b): count for a, b, count in need.met}
    return table_round_robin.count_repeats((entry["tables"] for entry in chain.values()), met)


def round_flags(
    tables: Sequence[Table],
    met: Mapping[tuple[int, int], int],
    *,
    unavoidable: bool,
    table_size: int | None = None,
) -> list[Flag]:
    """What an organizer should know about this round's tables: who meets again, and
    which tables seat fewer."""
    flags = []
    for number, table in enumerate(tables, start=1):
        if table.bye:
            continue
        again = [
            (a, b)
            for i, a in enumerate(table.entrants)
            for b in table.entrants[i + 1 :]
            if met.get((min(a, b), max(a, b)))
        ]
        if not again:
            continue
        message = (
            say_n(
                "Table {table}: players who met in an earlier round meet again "
                "({count} pair); with this many rounds some repeats cannot be avoided.",
                "Table {table}: players who met in an earlier round meet again "
                "({count} pairs); with this many rounds some repeats cannot be avoided.",
                len(again),
                table=number,
                count=len(again),
            )
            if unavoidable
            else say_n(
                "Table {table}: players who met in an earlier round meet again "
                "({count} pair); the schedule found no way around it.",
                "Table {table}: players who met in an earlier round meet again "
                "({count} pairs); the schedule found no way around it.",
                len(again),
                table=number,
                count=len(again),
            )
        )
        flags.append(Flag("rematch", message, tuple(sorted({p for pair in again for p in pair}))))
    played = [len(t.entrants) for t in tables if not t.bye]
    if table_size and any(size not in (table_size, table_size - 1) for size in played):
        off = [
            n for n, t in enumerate(tables, start=1) if not t.bye and len(t.entrants) != table_size
        ]
        flags.append(
            Flag(
                "mixed_tables",
                say(
                    "Mixed table sizes this round: {off} of {tables} tables seat another number "
                    "than {size} (nobody sits at one twice before everyone has once).",
                    off=len(off),
                    tables=len(played),
                    size=table_size,
                ),
            )
        )
    elif played and len(set(played)) > 1:
        full = max(played)
        short = [n for n, t in enumerate(tables, start=1) if not t.bye and len(t.entrants) < full]
        flags.append(
            Flag(
                "short_tables",
                say(
                    "short tables this round: {short} of {tables} seat {size} "
                    "(nobody sits short twice before everyone has once).",
                    short=len(short),
                    tables=len(played),
                    size=full - 1,
                ),
            )
        )
    return flags


class RoundRobin(EngineBase):
    schedules = True
    key = "round_robin"

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        check_positive_int(settings, "rounds")
        if table_size not in TABLE_SIZES:
            raise PairingError(say("A round robin seats two to six at a table."))

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        return rounds_in_schedule(count, table_size=table_size, settings=settings)

    def schedule_needs(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
    ) -> list[ScheduleNeed]:
        """The schedules round ``round_number`` reads (none where no search is needed)."""
        field = ordered(entrants)
        total = self.total_rounds(len(field), table_size=table_size, settings=settings)
        if not 1 <= round_number <= total:
            return []
        if table_size == 2 and _circle_holds(field, round_number):
            return []
        return [
            _need(field, round_number, total, table_size, seed, _declared(settings, table_size))
        ]

    def pair(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
        results=None,
        schedules: Mapping[str, dict] | None = None,
    ) -> PairingResult:
        """Round ``round_number`` of the schedule over every entrant of the stage.

        ``schedules`` are entries of ``compute_schedule`` stored ahead of time; a round
        whose entry is missing searches it here.
        """
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
        if table_size == 2 and _circle_holds(field, round_number):
            return self._two_sides(field, round_number)
        need = _need(field, round_number, total, table_size, seed, _declared(settings, table_size))
        entry = (schedules or {}).get(need.key) or compute_schedule(need)[need.key]
        tables = []
        for table in entry["tables"]:
            seated = tuple(p for p in table if p != BYE)
            # A table of one is an entrant sitting out (where the rule set plays one size).
            tables.append(Table(seated, bye=len(seated) < len(table) or len(seated) == 1))
        met = {(a, b): count for a, b, count in need.met if BYE not in (a, b)}
        flags = round_flags(tables, met, unavoidable=entry["unavoidable"], table_size=table_size)
        flags += [
            Flag(
                "bye",
                say("Bye: entrant {id} has no opponent this round.", id=t.entrants[0]),
                t.entrants,
            )
            for t in tables
            if t.bye
        ]
        return PairingResult(tuple(tables), tuple(flags))

    def _two_sides(self, field: list[EntrantStub], round_number: int) -> PairingResult:
        tables, flags = [], []
        cycle = berger_rounds(len(field))
        for a, b in cycle[(round_number - 1) % len(cycle)]:
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
        if round_number > len(cycle):
            flags.append(
                Flag(
                    "rematch",
                    say(
                        "Everyone has met everyone: round {round_number} starts the "
                        "schedule again.",
                        round_number=round_number,
                    ),
                )
            )
        return PairingResult(tuple(tables), tuple(flags))


def _circle_holds(field: list[EntrantStub], round_number: int) -> bool:
    """Whether the meetings played are the circle method's for this field (withdrawn
    entrants keep their places, their opponents had byes): then the next round is the
    circle's too. A late arrival changes the circle, and the rounds left are searched."""
    cycle = berger_rounds(len(field))
    ids = [e.id for e in field]
    planned = set()
    for number in range(round_number - 1):
        for a, b in cycle[number % len(cycle)]:
            if a is not None and b is not None:
                planned.add((min(ids[a], ids[b]), max(ids[a], ids[b])))
    played = {(min(e.id, o), max(e.id, o)) for e in field for o in e.met}
    known = set(ids)
    return all(a in known and b in known for a, b in played) and played <= planned


def _declared(settings: Mapping[str, Any], table_size: int) -> tuple[int, ...]:
    """The rule set's table sizes where the services declared them (at two a table the
    circle's bye seat stands in for them)."""
    if table_size == 2 or not settings.get("table_sizes"):
        return ()
    return allowed_sizes(settings, table_size)


def _need(
    field, round_number: int, total: int, table_size: int, seed: int, allowed=()
) -> ScheduleNeed:
    active = [e for e in field if not e.withdrawn]
    players = [e.id for e in active]
    present = set(players)
    met: dict[tuple[int, int], int] = {}
    for entrant in active:
        for other, count in entrant.met.items():
            if other in present and count:
                met[(min(entrant.id, other), max(entrant.id, other))] = count
    if table_size == 2 and len(players) % 2:
        players.append(BYE)
        for entrant in active:
            if entrant.byes:
                met[(BYE, entrant.id)] = entrant.byes
    seats = []
    for entrant in active:
        counts = [0] * table_size
        for position in entrant.seats:
            if position < table_size:
                counts[position] += 1
        seats.append((entrant.id, tuple(counts)))
    return ScheduleNeed(
        key=schedule_key(players, round_number, total, table_size, seed, met, allowed),
        players=tuple(players),
        first_round=round_number,
        total=total,
        table_size=table_size,
        seed=seed,
        met=tuple(sorted((a, b, count) for (a, b), count in met.items())),
        seats=tuple(seats),
        # Tables off size and byes rotate together (a rule set with byes has one size).
        short=tuple((e.id, e.short_tables + (e.byes if table_size > 2 else 0)) for e in active),
        allowed=tuple(allowed),
    )


def _meetings(rounds) -> dict[tuple[int, int], int]:
    met: dict[tuple[int, int], int] = {}
    for tables in rounds:
        for table in tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    key = (min(a, b), max(a, b))
                    met[key] = met.get(key, 0) + 1
    return met

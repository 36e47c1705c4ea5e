"""What every pairing engine takes and returns: plain dataclasses, no database.

An engine gets entrant stubs with their history (whom they met, the seats they sat,
their byes and score) and returns tables plus flags that explain every unusual decision.
The same input and seed always give the same output.
"""

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.errors import UserError
from domain.say import say
from scoring.bounds import SMALLINT_MAX, within
from tournaments.bounds import STAGE_SETTING_RANGES


class PairingError(UserError):
    """Options or entrants an engine cannot pair, in an organizer's words."""


@dataclass(frozen=True)
class EntrantStub:
    """An entrant as an engine sees it: identity, seed and history."""

    id: int
    seed: int
    score: float = 0.0
    met: Mapping[int, int] = field(default_factory=dict)
    seats: tuple[int, ...] = ()
    byes: int = 0
    short_tables: int = 0
    withdrawn: bool = False


@dataclass(frozen=True)
class Table:
    """One table of a round: entrant ids in seat order; a bye seats one entrant alone."""

    entrants: tuple[int, ...]
    bye: bool = False
    slot: str = ""
    pool: int | None = None


@dataclass(frozen=True)
class Flag:
    """Why the engine did something unusual: a bye, a pull-up, a repeat meeting."""

    code: str
    message: str
    entrants: tuple[int, ...] = ()


@dataclass(frozen=True)
class PairingResult:
    """A round's tables and the flags that explain them."""

    tables: tuple[Table, ...]
    flags: tuple[Flag, ...] = ()


class Engine(Protocol):
    """The interface of every engine in the registry."""

    key: str
    reads_results: bool
    needs_finished_round: bool
    keeps_withdrawn: bool
    advances: bool
    schedules: bool

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None: ...

    def pair(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
        results: Mapping[str, Sequence[int]] | None = None,
        schedules: Mapping[str, dict] | None = None,
    ) -> PairingResult: ...

    def schedule_needs(
        self,
        entrants: Sequence[EntrantStub],
        *,
        round_number: int,
        table_size: int,
        settings: Mapping[str, Any],
        seed: int,
    ) -> list: ...


class EngineBase:
    """What an engine reads, as the adapter between the engines and the database asks.

    ``reads_results``: bracket results (slot → entrant ids best first). ``needs_finished_
    round``: it pairs from the previous round's results, so that round must be over.
    ``keeps_withdrawn``: withdrawn entrants are handed over and keep their places (the
    engine skips them); otherwise only those still playing are. ``advances``: it seats
    winners as their games finish (a bracket). ``schedules`` and ``schedule_needs``: the
    schedules a round reads, searched ahead of time and stored
    (``round_robin.compute_schedule``).
    """

    reads_results = False
    needs_finished_round = False
    keeps_withdrawn = True
    advances = False
    schedules = False

    def schedule_needs(self, entrants, *, round_number, table_size, settings, seed) -> list:
        return []


@dataclass(frozen=True)
class Seating:
    """How a round seats a field: the tables in play (the stage's size first) and how
    many entrants sit out with a bye (only where the rule set allows one size)."""

    sizes: tuple[int, ...]
    byes: int = 0


# Where a caller names no allowed sizes (a pure engine called on its own), a table may
# seat the stage's size or one fewer, as before sizes were declared per rule set; at two
# a table the odd entrant has a bye.
def default_sizes(table_size: int) -> tuple[int, ...]:
    return (2,) if table_size == 2 else (table_size - 1, table_size)


def allowed_sizes(settings: Mapping[str, Any] | None, table_size: int) -> tuple[int, ...]:
    """The table sizes a round may use: the rule set's (``settings["table_sizes"]``, put
    there by the services from the rule set), else the default. Head to head stays head
    to head: at two a table a round never seats three, the odd entrant has a bye."""
    declared = (settings or {}).get("table_sizes")
    if table_size == 2:
        return (2,)
    if not declared:
        return default_sizes(table_size)
    return tuple(sorted({int(size) for size in declared}))


def seating(count: int, table_size: int, allowed: Sequence[int] | None = None) -> Seating:
    """Seat ``count`` entrants by the table-size policy (RULES.md, "Fields that don't
    divide").

    Where the rule set allows one size (DCS 4, Partners two teams), as many full tables
    as the field fills and the rest sit out with a bye. Where it allows several, the
    stage's size and as few tables of another size as the count needs, the nearer sizes
    first: a size further from the stage's is used only where the nearer ones cannot
    seat the field (10 at tables of 4 from 2-4: 4 + 3 + 3, not 4 + 4 + 2). Raises, saying
    why and which counts would work, where no allowed sizes seat the field.
    """
    if count < 2:
        raise PairingError(say("A round needs at least two entrants."))
    sizes = sorted(set(allowed or default_sizes(table_size)))
    if len(sizes) == 1:
        (size,) = sizes
        tables, byes = divmod(count, size)
        if not tables:
            raise PairingError(
                say(
                    "{count} entrants cannot fill a table: this rule set plays {size} a "
                    "table. Add {missing} more.",
                    count=count,
                    size=size,
                    missing=size - count,
                )
            )
        return Seating((size,) * tables, byes)
    for distance in sorted({abs(size - table_size) for size in sizes}):
        near = [size for size in sizes if abs(size - table_size) <= distance]
        found = _fewest_off(count, table_size, near)
        if found is not None:
            return Seating(found)
    below = next((c for c in range(count - 1, 1, -1) if _fewest_off(c, table_size, sizes)), None)
    above = next(
        c for c in range(count + 1, count + 2 * max(sizes) + 2) if _fewest_off(c, table_size, sizes)
    )
    names = ", ".join(str(size) for size in sizes)
    if below is None:
        raise PairingError(
            say(
                "{count} entrants cannot be seated: this rule set plays {sizes} a table. "
                "{above} entrants would fill a round.",
                count=count,
                sizes=names,
                above=above,
            )
        )
    raise PairingError(
        say(
            "{count} entrants cannot be seated: this rule set plays {sizes} a table, and no "
            "mix of those adds up to {count}. {below} or {above} entrants would.",
            count=count,
            sizes=names,
            below=below,
            above=above,
        )
    )


def _fewest_off(count: int, table_size: int, sizes: Sequence[int]) -> tuple[int, ...] | None:
    """The tables seating ``count`` from ``sizes`` with the fewest off the stage's size
    (then the least far off, then the fewest tables), the stage's size first; None
    where no mix adds up."""
    # best[c]: (off tables, distance off, tables, one part) for c seated; by a small DP.
    best: list[tuple | None] = [None] * (count + 1)
    best[0] = (0, 0, 0, 0)
    for seated in range(1, count + 1):
        choice = None
        for size in sizes:
            if size > seated or best[seated - size] is None:
                continue
            off, far, tables, _ = best[seated - size]
            key = (off + (size != table_size), far + abs(size - table_size), tables + 1, size)
            if choice is None or key[:3] < choice[:3]:
                choice = key
        best[seated] = choice
    if best[count] is None:
        return None
    parts = []
    left = count
    while left:
        size = best[left][3]
        parts.append(size)
        left -= size
    return tuple(
        sorted(parts, key=lambda size: (size != table_size, abs(size - table_size), -size))
    )


def table_sizes(count: int, table_size: int, allowed: Sequence[int] | None = None) -> list[int]:
    """Sizes of the tables seating ``count`` players (``seating``), the stage's size
    first; raises where the sizes cannot seat every player (five at tables of four
    or three). Byes are not tables: see ``seating``."""
    result = seating(count, table_size, allowed)
    if result.byes and table_size != 2:
        raise PairingError(
            say(
                "{count} players cannot sit at tables of {table_size} without a bye.",
                count=count,
                table_size=table_size,
            )
        )
    return list(result.sizes)


def check_positive_int(settings: Mapping[str, Any], name: str, *, required: bool = False) -> None:
    value = settings.get(name)
    if value is None:
        if required:
            raise PairingError(say("Say how many {value}.", value=name.replace("_", " ")))
        return
    low, high = STAGE_SETTING_RANGES.get(name, (1, SMALLINT_MAX))
    if not within(value, (low, high)):
        raise PairingError(
            say(
                "{value} must be a whole number from {low} to {high}.",
                value=name.replace("_", " ").capitalize(),
                low=low,
                high=high,
            )
        )


def ordered(entrants: Sequence[EntrantStub]) -> list[EntrantStub]:
    """Entrants in seed order (ids break equal seeds), the order every engine starts from."""
    return sorted(entrants, key=lambda e: (e.seed, e.id))


def rng_for(seed: int, *parts: Any) -> random.Random:
    """A random source fixed by the seed and the round, so a round can be redrawn exactly."""
    return random.Random(f"{seed}:" + ":".join(str(part) for part in parts))

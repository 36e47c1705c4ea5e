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


def table_sizes(count: int, table_size: int) -> list[int]:
    """Sizes of the tables seating ``count`` players: full tables, short ones fill the gap.

    Tables of ``table_size - 1`` fill the gap, as few as possible; raises where that is
    impossible (five players at tables of four).
    """
    if count < 2:
        raise PairingError(say("A round needs at least two entrants."))
    if table_size == 2:
        return [2] * (count // 2)
    tables = -(-count // table_size)
    short = tables * table_size - count
    if short > tables:
        raise PairingError(
            say(
                "{count} players cannot sit at tables of {table_size} and {value}.",
                count=count,
                table_size=table_size,
                value=table_size - 1,
            )
        )
    return [table_size] * (tables - short) + [table_size - 1] * short


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

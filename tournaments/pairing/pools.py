"""Pools: the field split into groups by snake seeding, each group a round robin."""

from collections.abc import Mapping, Sequence
from typing import Any

from domain.say import Message, say
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
from tournaments.pairing.round_robin import TABLE_SIZES, RoundRobin, rounds_in_schedule


def split(entrants: Sequence[EntrantStub], pools: int) -> list[list[EntrantStub]]:
    """Snake seeding: seeds 1…P into pools 1…P, then P+1…2P back from pool P, and so on."""
    groups: list[list[EntrantStub]] = [[] for _ in range(pools)]
    for index, entrant in enumerate(ordered(entrants)):
        row, column = divmod(index, pools)
        groups[column if row % 2 == 0 else pools - 1 - column].append(entrant)
    return groups


def advancers(pool_standings: Sequence[Sequence[int]], k: int) -> list[int]:
    """The top ``k`` of each pool, ordered first places first (pool order within a place)."""
    return [pool[place] for place in range(k) for pool in pool_standings if place < len(pool)]


class Pools(EngineBase):
    schedules = True
    key = "pools"

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        check_positive_int(settings, "pools", required=True)
        check_positive_int(settings, "advance")
        if table_size not in TABLE_SIZES:
            raise PairingError(say("Pools play round robins of two to six a table."))

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        pools = settings["pools"]
        largest = -(-count // pools)
        return rounds_in_schedule(largest, table_size=table_size, settings=settings)

    def schedule_needs(self, entrants, *, round_number, table_size, settings, seed) -> list:
        engine = RoundRobin()
        return [
            need
            for index, group in enumerate(split(entrants, settings["pools"]))
            for need in engine.schedule_needs(
                group,
                round_number=round_number,
                table_size=table_size,
                settings=settings,
                seed=seed + index,
            )
        ]

    def pair(
        self, entrants, *, round_number, table_size, settings, seed, results=None, schedules=None
    ):
        pools = settings["pools"]
        if len(entrants) < 2 * pools:
            raise PairingError(
                say("{count} entrants cannot fill {pools} pools.", count=len(entrants), pools=pools)
            )
        tables, flags = [], []
        engine = RoundRobin()
        for index, group in enumerate(split(entrants, pools)):
            rounds = engine.total_rounds(len(group), table_size=table_size, settings=settings)
            if round_number > rounds:
                continue
            result = engine.pair(
                group,
                round_number=round_number,
                table_size=table_size,
                settings=settings,
                seed=seed + index,
                schedules=schedules,
            )
            flags.extend(_renumbered(flag, len(tables)) for flag in result.flags)
            tables.extend(Table(t.entrants, bye=t.bye, pool=index + 1) for t in result.tables)
        return PairingResult(tuple(tables), tuple(flags))


def _renumbered(flag: Flag, before: int) -> Flag:
    """A pool's flag naming its table by the round's numbering (pools' tables follow on)."""
    params = getattr(flag.message, "params", None)
    if not before or not params or "table" not in params:
        return flag
    counted = (flag.message.plural, flag.message.count) if flag.message.plural else ()
    message = Message(
        flag.message.template, *counted, **{**params, "table": params["table"] + before}
    )
    return Flag(flag.code, message, flag.entrants)

"""Swiss rounds: entrants of equal score meet, nobody meets twice while it can be avoided.

Two sides a table: a maximum-weight matching (networkx) over the standings, where an
edge costs more the further apart the scores and a rematch costs more than any score
gap; the field is matched in overlapping windows of the standings so that a thousand
entrants pair in well under a second. An odd field gives the bye to the lowest-ranked
entrant who has had the fewest byes. Three or four a table: tables are filled from the
top of the standings, each seat going to the next entrant who repeats the fewest
meetings, then neighbouring tables swap entrants while that removes repeats.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from domain.say import say
from tournaments.pairing.base import (
    EngineBase,
    EntrantStub,
    Flag,
    PairingError,
    PairingResult,
    Table,
    check_positive_int,
    rng_for,
    table_sizes,
)
from tournaments.pairing.round_robin import TABLE_SIZES

REMATCH = 1_000_000
WINDOW = 48


def standings_order(entrants: Sequence[EntrantStub]) -> list[EntrantStub]:
    """Best first: score, then seed (ids settle equal seeds)."""
    return sorted(entrants, key=lambda e: (-e.score, e.seed, e.id))


def _bye(field: list[EntrantStub]) -> EntrantStub:
    fewest = min(e.byes for e in field)
    return next(e for e in reversed(field) if e.byes == fewest)


def _weight(a: EntrantStub, b: EntrantStub, spread: float) -> float:
    gap = abs(a.score - b.score)
    return REMATCH * 4 - (REMATCH if a.met.get(b.id) else 0) - gap * gap * 100 - spread


def _match_window(window: list[EntrantStub]) -> tuple[list[tuple], list[EntrantStub]]:
    graph = nx.Graph()
    for i, a in enumerate(window):
        for j in range(i + 1, len(window)):
            b = window[j]
            graph.add_edge(i, j, weight=_weight(a, b, (j - i) * 0.01))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matching)
    used = {i for pair in pairs for i in pair}
    left = [window[i] for i in range(len(window)) if i not in used]
    return [(window[i], window[j]) for i, j in pairs], left


def pair_two_sides(field: list[EntrantStub]) -> tuple[list[Table], list[Flag]]:
    tables: list[Table] = []
    flags: list[Flag] = []
    if len(field) % 2:
        bye = _bye(field)
        field = [e for e in field if e.id != bye.id]
        tables.append(Table((bye.id,), bye=True))
        flags.append(
            Flag(
                "bye",
                say("Bye: entrant {id}, lowest ranked with fewest byes.", id=bye.id),
                (bye.id,),
            )
        )
    carry: list[EntrantStub] = []
    position = 0
    pairs = []
    while position < len(field) or carry:
        window = carry + field[position : position + WINDOW]
        position += WINDOW
        if position < len(field) and len(window) % 2:
            window.append(field[position])
            position += 1
        matched, left = _match_window(window)
        rematches = [(a, b) for a, b in matched if a.met.get(b.id)]
        if rematches and position < len(field):
            # Try again with the next block: a wider window may avoid the rematch.
            keep = [pair for pair in matched if pair not in rematches]
            pairs.extend(keep)
            carry = [e for pair in rematches for e in pair] + left
            continue
        pairs.extend(matched)
        carry = left
        if position >= len(field):
            if carry:
                raise PairingError(say("Could not pair every entrant."))
            break
    for a, b in pairs:
        first, second = (a, b) if _sat_first(a) <= _sat_first(b) else (b, a)
        tables.append(Table((first.id, second.id)))
        if a.met.get(b.id):
            flags.append(Flag("rematch", say("Repeat meeting: unavoidable."), (a.id, b.id)))
        elif a.score != b.score:
            low = a if a.score < b.score else b
            flags.append(
                Flag(
                    "pulled_up",
                    say("Entrant {id} pulled up to play a higher score.", id=low.id),
                    (a.id, b.id),
                )
            )
    return tables, flags


def _sat_first(entrant: EntrantStub) -> int:
    return sum(1 for position in entrant.seats if position == 0)


def pair_tables(field: list[EntrantStub], table_size: int, seed: int, round_number: int):
    sizes = table_sizes(len(field), table_size)
    rng = rng_for(seed, "swiss", round_number)
    pool = list(field)
    tables: list[list[EntrantStub]] = []
    for size in sizes:
        table = [pool.pop(0)]
        while len(table) < size:
            window = pool[: 3 * table_size]
            best = min(
                window, key=lambda e: (sum(e.met.get(x.id, 0) for x in table), pool.index(e))
            )
            pool.remove(best)
            table.append(best)
        tables.append(table)
    _swap_away_repeats(tables, rng)
    flags = []
    result = []
    for table in tables:
        ids = tuple(e.id for e in table)
        result.append(Table(ids))
        repeats = [
            (a.id, b.id) for i, a in enumerate(table) for b in table[i + 1 :] if a.met.get(b.id)
        ]
        for a, b in repeats:
            flags.append(
                Flag("rematch", say("Repeat meeting: unavoidable nearby in the standings."), (a, b))
            )
    return result, flags


def _repeats(table: list[EntrantStub]) -> int:
    return sum(1 for i, a in enumerate(table) for b in table[i + 1 :] if a.met.get(b.id))


def _swap_away_repeats(tables: list[list[EntrantStub]], rng) -> None:
    for _ in range(4):
        improved = False
        for t in range(len(tables) - 1):
            for u in (t + 1, t + 2):
                if u >= len(tables):
                    continue
                one, two = tables[t], tables[u]
                base = _repeats(one) + _repeats(two)
                if not base:
                    continue
                for i in range(len(one)):
                    for j in range(len(two)):
                        one[i], two[j] = two[j], one[i]
                        if _repeats(one) + _repeats(two) < base:
                            base = _repeats(one) + _repeats(two)
                            improved = True
                        else:
                            one[i], two[j] = two[j], one[i]
        if not improved:
            break


class Swiss(EngineBase):
    key = "swiss"
    needs_finished_round = True
    keeps_withdrawn = False

    def validate_settings(self, settings: Mapping[str, Any], *, table_size: int) -> None:
        check_positive_int(settings, "rounds")
        if table_size not in TABLE_SIZES:
            raise PairingError(say("Swiss rounds seat two to six at a table."))

    def total_rounds(self, count: int, *, table_size: int, settings: Mapping[str, Any]) -> int:
        if settings.get("rounds"):
            return settings["rounds"]
        rounds = 1
        while (2**rounds) < count:
            rounds += 1
        return rounds

    def pair(
        self, entrants, *, round_number, table_size, settings, seed, results=None, schedules=None
    ):
        field = standings_order([e for e in entrants if not e.withdrawn])
        if len(field) < 2:
            raise PairingError(say("A Swiss round needs at least two entrants."))
        if table_size == 2:
            tables, flags = pair_two_sides(field)
        else:
            tables, flags = pair_tables(field, table_size, seed, round_number)
        return PairingResult(tuple(tables), tuple(flags))

"""Forming ladder tables from the players waiting, pure.

Tables are of the rule set's size. When more players wait than fill whole tables, the
ones who arrived last wait on. The players seated are put in rating order and cut into
tables, so similar ratings sit together; then a player who would face someone from
their last game is swapped with the nearest player of a neighbouring table when that
lowers the repeats, so nobody meets the same opponents twice running where it can be
helped. Each table comes back in seat order, with flags for what could not be helped.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Waiting:
    player_id: int
    ordinal: float
    waiting_since: float  # any increasing number: who has waited longest
    last_opponents: frozenset[int] = frozenset()


@dataclass
class Formed:
    tables: list[list[int]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


def repeats(table: Sequence[Waiting]) -> int:
    """Pairs at the table who faced each other in either one's last game."""
    count = 0
    for i, a in enumerate(table):
        for b in table[i + 1 :]:
            if b.player_id in a.last_opponents or a.player_id in b.last_opponents:
                count += 1
    return count


def _spread(table: Sequence[Waiting]) -> float:
    ordinals = [w.ordinal for w in table]
    return max(ordinals) - min(ordinals)


def form_tables(waiting: Sequence[Waiting], size: int, *, partners: bool = False) -> Formed:
    """Seat as many of ``waiting`` as fill whole tables of ``size``."""
    if size < 2:
        raise ValueError("a table seats at least two")
    formed = Formed()
    count = len(waiting) // size
    if not count:
        return formed
    by_arrival = sorted(waiting, key=lambda w: (w.waiting_since, w.player_id))
    seated = sorted(
        by_arrival[: count * size], key=lambda w: (-w.ordinal, w.waiting_since, w.player_id)
    )
    tables = [seated[i * size : (i + 1) * size] for i in range(count)]
    improved = True
    while improved:  # each swap lowers the total repeats, so this ends
        improved = False
        for t in range(count):
            if not repeats(tables[t]):
                continue
            best = None
            for other in (t - 1, t + 1):
                if not 0 <= other < count:
                    continue
                for i, a in enumerate(tables[t]):
                    for j, b in enumerate(tables[other]):
                        mine = [*tables[t][:i], b, *tables[t][i + 1 :]]
                        theirs = [*tables[other][:j], a, *tables[other][j + 1 :]]
                        gain = (repeats(tables[t]) + repeats(tables[other])) - (
                            repeats(mine) + repeats(theirs)
                        )
                        cost = _spread(mine) + _spread(theirs)
                        if gain > 0 and (best is None or (-gain, cost) < best[0]):
                            best = ((-gain, cost), other, mine, theirs)
            if best is not None:
                _, other, tables[t], tables[other] = best
                improved = True
    for table in tables:
        if repeats(table):
            names = ", ".join(str(w.player_id) for w in table)
            formed.flags.append(f"repeat opponents unavoidable at the table of {names}")
        ordered = sorted(table, key=lambda w: (-w.ordinal, w.player_id))
        if partners and size == 4:
            # Seats A, B, C, D: A+C against B+D, the strongest with the weakest.
            ordered = [ordered[0], ordered[1], ordered[3], ordered[2]]
        formed.tables.append([w.player_id for w in ordered])
    return formed

"""The fewest repeat meetings any seating of a round can have: an exact search for tests.

A round seats its players at tables of the given sizes; a table costs the meetings its
pairs already had (a pair that met k times adds k, as the engine and the event count
repeats). ``fewest_repeats`` returns the least total cost over every seating, or raises
``SearchCapReached`` (an assertion error) when its work cap runs out first, so that no
check built on it passes without an answer.

Why it is exact. It asks "is there a seating costing at most B?" for B = a lower bound,
then B + 1, … and returns the first B that has one, so the answer is the minimum. Each
question is a depth-first search that is complete: at every step it takes one player not
yet seated and tries every table (of every size still to fill) that seats him with
players not yet seated within the budget; every seating puts that player at exactly one
table, so every seating is reached. A branch is cut only when it provably cannot fit:

* the tables already set plus the new one cost more than B (costs are never negative);
* the players left have a lower bound above what is left of B. Split each table's cost
  evenly over its seats: the round's cost is the sum of its seats' shares, and a player's
  share is at least his cheapest table's cost (among the players left, at that size)
  divided by its size. Everyone takes the smaller size's share; those at the larger
  tables (exactly as many as its seats) add the smallest differences between the two;
* the same players left with the same tables to fill already failed at a budget as large
  (a memo of proven failures: a failure at budget b holds at every budget up to b).

The player taken is the most constrained one (fewest players left he has not met): the
choice orders the work and never loses a seating. A player's cheapest table is kept while
its members are all still left (the set only shrinks, so it stays the cheapest).
"""

import itertools
from math import lcm

INFINITY = float("inf")


class SearchCapReached(AssertionError):
    """The search used up its work cap before it could prove the minimum."""


def _weights(field) -> list[list[int]]:
    index = {e.id: i for i, e in enumerate(field)}
    n = len(field)
    weight = [[0] * n for _ in range(n)]
    for i, e in enumerate(field):
        for other, count in e.met.items():
            j = index.get(other)
            if j is not None and j != i and count:
                weight[i][j] = weight[j][i] = max(weight[i][j], count)
    return weight


def _members(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


class _Search:
    def __init__(self, weight: list[list[int]], sizes: list[int], cap: int):
        self.w = weight
        self.n = len(weight)
        self.sizes = sorted(set(sizes))
        self.cap = cap
        self.work = 0
        self.failed: dict[tuple, int] = {}
        # Players one has not met (bit masks), to take the most constrained player.
        self.free = [
            sum(1 << j for j in range(self.n) if j != i and not weight[i][j]) for i in range(self.n)
        ]

    def cheapest(self, p: int, left: list[int], k: int) -> tuple[int, int]:
        """The cost of the cheapest table seating ``p`` with ``k`` of ``left``, and its
        players (a bit mask)."""
        row = self.w[p]
        others = sorted((q for q in left if q != p), key=row.__getitem__)
        m = len(others)
        best, chosen = INFINITY, 0
        if k == 1:
            return row[others[0]], 1 << others[0]
        if k == 2:
            for i in range(m - 1):
                a = others[i]
                ra = row[a]
                if ra + row[others[i + 1]] >= best:
                    break
                wa = self.w[a]
                for j in range(i + 1, m):
                    b = others[j]
                    if ra + row[b] >= best:
                        break
                    cost = ra + row[b] + wa[b]
                    if cost < best:
                        best, chosen = cost, (1 << a) | (1 << b)
                        if not best:
                            return best, chosen
            return best, chosen
        if k == 3:
            for i in range(m - 2):
                a = others[i]
                ra = row[a]
                if ra + row[others[i + 1]] + row[others[i + 2]] >= best:
                    break
                wa = self.w[a]
                for j in range(i + 1, m - 1):
                    b = others[j]
                    rab = ra + row[b]
                    if rab + row[others[j + 1]] >= best:
                        break
                    cab = rab + wa[b]
                    if cab >= best:
                        continue
                    wb = self.w[b]
                    for c in others[j + 1 :]:
                        if rab + row[c] >= best:
                            break
                        cost = cab + row[c] + wa[c] + wb[c]
                        if cost < best:
                            best, chosen = cost, (1 << a) | (1 << b) | (1 << c)
                            if not best:
                                return best, chosen
            return best, chosen
        for rest in itertools.combinations(others, k):
            table = (p, *rest)
            cost = sum(self.w[x][y] for x, y in itertools.combinations(table, 2))
            if cost < best:
                best, chosen = cost, sum(1 << q for q in rest)
        return best, chosen

    def bound(self, left: list[int], mask: int, counts: dict[int, int], kept: dict) -> int:
        """A lower bound on seating ``left`` at the tables ``counts`` (module docstring);
        ``kept`` holds each player's cheapest tables, updated in place."""
        open_sizes = [s for s in self.sizes if counts[s]]
        if not open_sizes:
            return 0
        scale = lcm(*open_sizes)
        small, large = open_sizes[0], open_sizes[-1]
        total, extra = 0, []
        for p in left:
            shares = []
            for size in open_sizes:
                known = kept.get((p, size))
                if known is None or known[1] & ~mask:
                    known = kept[(p, size)] = self.cheapest(p, left, size - 1)
                shares.append(known[0] * (scale // size))
            total += shares[0]
            if large != small:
                extra.append(shares[-1] - shares[0])
        if large != small:
            extra.sort()
            total += sum(extra[: counts[large] * large])
        return -(-total // scale)

    def fits(self, mask: int, counts: dict[int, int], budget: int, kept: dict) -> bool:
        """Whether the players in ``mask`` sit at the tables ``counts`` within ``budget``."""
        if not mask:
            return True
        key = (mask, tuple(counts[s] for s in self.sizes))
        if self.failed.get(key, -1) >= budget:
            return False
        self.work += 1
        if self.work > self.cap:
            raise SearchCapReached(f"the search's work cap ({self.cap} steps) ran out")
        left = _members(mask)
        kept = dict(kept)
        if self.bound(left, mask, counts, kept) > budget:
            self.failed[key] = budget
            return False
        p = min(left, key=lambda q: ((self.free[q] & mask).bit_count(), q))
        row = self.w[p]
        others = sorted((q for q in left if q != p), key=lambda q: (row[q], q))
        options = []
        for size in self.sizes:
            if counts[size]:
                options.extend(
                    (cost, size, table)
                    for cost, table in self.tables(row, others, size - 1, budget)
                )
        options.sort(key=lambda option: option[0])
        for cost, size, table in options:
            counts[size] -= 1
            ok = self.fits(mask & ~table & ~(1 << p), counts, budget - cost, kept)
            counts[size] += 1
            if ok:
                return True
        self.failed[key] = budget
        return False

    def tables(self, row: list[int], others: list[int], k: int, budget: int):
        """Every choice of ``k`` of ``others`` to sit with the player taken (whose counts
        are ``row``) within ``budget``: (the table's cost, the chosen as a bit mask)."""
        found = []

        def extend(start, chosen, cost):
            if len(chosen) == k:
                found.append((cost, sum(1 << q for q in chosen)))
                return
            for idx in range(start, len(others)):
                q = others[idx]
                add = row[q] + sum(self.w[q][c] for c in chosen)
                if cost + add > budget:
                    if row[q] > budget - cost:
                        break  # ``others`` rise in ``row``: nobody after fits either
                    continue
                chosen.append(q)
                extend(idx + 1, chosen, cost + add)
                chosen.pop()

        extend(0, [], 0)
        return found


def fewest_repeats(field, sizes, *, cap: int = 100_000) -> int:
    """The fewest repeats any seating of ``field`` at tables of ``sizes`` has.

    Raises ``SearchCapReached`` when ``cap`` search steps do not settle it.
    """
    search = _Search(_weights(field), sizes, cap)
    counts = {s: sizes.count(s) for s in search.sizes}
    everyone = (1 << len(field)) - 1
    kept: dict = {}
    budget = search.bound(list(range(len(field))), everyone, counts, kept)
    while not search.fits(everyone, counts, budget, kept):
        budget += 1
    return budget


def seating_cost(tables, field) -> int:
    """What a seating (tables of entrant ids) costs in repeats, as the search counts."""
    weight = _weights(field)
    index = {e.id: i for i, e in enumerate(field)}
    return sum(
        weight[index[a]][index[b]] for table in tables for a, b in itertools.combinations(table, 2)
    )

"""Repeat-free completions: can a stage's rounds left still be played with nobody meeting twice?

A Swiss round seated best by the standings can leave later rounds where a repeat is
forced (16 at tables of four over four rounds: rounds one to three repeat-free, round
four with four repeats, in nearly every run). ``Completion`` answers the question a
round has to ask before it is seated: given who has met, is there a schedule of the
rounds left at tables of the round's sizes in which no two players meet twice, and
which? It is a depth-first search, round after round and, within a round, table after
table: the player taken is the one with the fewest others left he may still meet (in
a round seated from the standings, the best placed), and his table is any set of those
others who may all still meet each other. A branch ends as soon as a player left
cannot fill the smallest table still open, or a player cannot meet enough new others
for the rounds still to come. The search is complete, so where it ends within its work
budget its answer is exact; work is counted (players looked at), never time, so the
same input gives the same answer on any machine. ``Completion.cheapest`` searches the
same tables by branch and bound for the round of least cost that the rounds after it
can still follow.

Players are indices 0 … n - 1 (a Swiss round's standings order); who may still meet
whom is a bit mask per player. Pure Python: no Django.
"""

import random
from collections.abc import Iterator, Sequence

Round = list[tuple[int, ...]]


class _OutOfWork(Exception):
    """The search used its work budget."""


def mask_of(players: Sequence[int]) -> int:
    mask = 0
    for p in players:
        mask |= 1 << p
    return mask


def members(mask: int) -> list[int]:
    """The players in ``mask``, lowest first (read off its binary digits: fast for wide
    masks)."""
    return [p for p, digit in enumerate(bin(mask)[:1:-1]) if digit == "1"]


def after(allowed: Sequence[int], tables: Sequence[Sequence[int]]) -> list[int]:
    """Who may still meet whom once ``tables`` are played."""
    left = list(allowed)
    for table in tables:
        seated = mask_of(table)
        for p in table:
            left[p] &= ~seated
    return left


class Completion:
    """The search for repeat-free rounds over ``n`` players at tables of ``sizes``.

    ``allowed[p]`` is the mask of the players ``p`` may still meet. ``work`` is the
    budget shared by every search asked of this object; ``settled`` says whether the
    last one ended on its own (its answer exact) rather than by running out of it.
    """

    def __init__(self, allowed: Sequence[int], sizes: Sequence[int], *, rng, work: int):
        self.allowed = list(allowed)
        self.n = len(self.allowed)
        self.sizes = sorted(set(sizes), reverse=True)
        self.counts = {size: list(sizes).count(size) for size in self.sizes}
        self.smallest = min(sizes)
        self.rng = rng or random.Random(0)
        self.work = work
        self.settled = True

    def rounds(
        self,
        count: int,
        *,
        played: Sequence[Round] = (),
        prefer: Sequence[int] | None = None,
        avoid: Sequence[int] | None = None,
    ) -> list[Round] | None:
        """``count`` repeat-free rounds after ``played`` (rounds taken as seated), or None.

        With ``prefer`` (a mask per player), the first round is seated from the top of
        the order: the best placed player left takes the players ``prefer`` names first,
        then the next placed. ``avoid`` (a mask per player) puts those meetings last in
        every round searched without ``prefer``.
        """
        allowed = self.allowed
        for tables in played:
            allowed = after(allowed, tables)
        self.settled = True
        try:
            return self._complete(allowed, count, prefer, avoid)
        except _OutOfWork:
            self.settled = False
            return None

    def cheapest(self, price, rounds_after: int, *, below: float) -> Round | None:
        """The repeat-free round of least total ``price`` (of each table, a sorted tuple;
        never negative) that ``rounds_after`` repeat-free rounds can still follow, if one
        costs less than ``below``; else None.

        Branch and bound over the same tables as ``rounds``, each player's cheapest first:
        a branch ends as soon as its tables cost as much as the best round found. Where
        the work runs out (``settled`` False) the best round found so far is returned.
        """
        best: list = [below, None]

        def seat(unseated: int, counts: dict, tables: list, spent: float) -> None:
            if not unseated:
                later = self._complete(after(self.allowed, tables), rounds_after, None, None)
                if later is not None:
                    best[:] = [spent, list(tables)]
                return
            options = self._options(self.allowed, unseated, counts, None, None, None)
            priced = sorted(
                (price(tuple(sorted(table))), tuple(sorted(table)), size) for table, size in options
            )
            for cost, table, size in priced:
                if spent + cost >= best[0]:
                    break
                counts[size] -= 1
                tables.append(table)
                seat(unseated & ~mask_of(table), counts, tables, spent + cost)
                tables.pop()
                counts[size] += 1

        self.settled = True
        try:
            seat((1 << self.n) - 1, dict(self.counts), [], 0.0)
        except _OutOfWork:
            self.settled = False
        return best[1]

    def _charge(self, amount: int) -> None:
        self.work -= amount
        if self.work < 0:
            raise _OutOfWork

    def _complete(self, allowed, left: int, prefer, avoid, floor: int = 0) -> list[Round] | None:
        """``left`` rounds; the first seated from the top where ``prefer`` is given. The
        other rounds could be played in any order: each is searched only in the order where
        player 0's first partner rises (above ``floor``), which cuts every reordering."""
        if not left:
            return []
        need = (self.smallest - 1) * left
        self._charge(1 + self.n // 16)
        if any(mask.bit_count() < need for mask in allowed):
            return None  # someone has too few players left to meet for the rounds to come
        for tables in self._round(allowed, prefer, avoid, None if prefer else floor):
            partner = floor if prefer else min(q for q in tables[0] if q)
            rest = self._complete(after(allowed, tables), left - 1, None, avoid, partner)
            if rest is not None:
                return [tables, *rest]
        return None

    def _round(self, allowed, prefer, avoid, floor) -> Iterator[Round]:
        """Every repeat-free round (a list of tables), depth first, on demand; with
        ``floor``, player 0 sits first, with partners above it."""
        unseated = (1 << self.n) - 1
        counts = dict(self.counts)
        tables: list[tuple[int, ...]] = []
        sizes: list[int] = []
        stack = [self._options(allowed, unseated, counts, prefer, avoid, floor)]
        while stack:
            option = next(stack[-1], None)
            if option is None:
                stack.pop()
                if tables:  # undo the table that led to the level just closed
                    unseated |= mask_of(tables.pop())
                    counts[sizes.pop()] += 1
                continue
            table, size = option
            tables.append(table)
            sizes.append(size)
            unseated &= ~mask_of(table)
            counts[size] -= 1
            if unseated:
                stack.append(self._options(allowed, unseated, counts, prefer, avoid, None))
                continue
            yield list(tables)
            unseated |= mask_of(tables.pop())
            counts[sizes.pop()] += 1

    def _options(self, allowed, unseated, counts, prefer, avoid, floor):
        """The tables the next player taken may sit at, in the order to try; none where a
        player left can no longer fill the smallest open table."""
        open_sizes = [size for size in self.sizes if counts[size]]
        least = open_sizes[-1] - 1
        left = members(unseated)
        self._charge(1 + len(left) // 16)
        taken, fewest = None, None
        for q in left:
            free = (allowed[q] & unseated).bit_count()
            if free < least:
                return
            if fewest is None or free < fewest:
                taken, fewest = q, free
        if prefer is not None or floor is not None:
            taken = left[0]  # seated from the top of the standings, or player 0 first
        free = allowed[taken] & unseated
        if floor is not None:
            free &= ~((2 << floor) - 1)
        if prefer is not None:
            ahead = prefer[taken]
            order = sorted(members(free), key=lambda q: (not ahead >> q & 1, q))
        elif floor is not None:
            order = members(free)  # the lowest partners first: they leave the most room
        else:
            # From a random place in the order (cheap in a wide field), meetings to avoid last.
            order = members(free)
            turn = self.rng.randrange(len(order)) if order else 0
            order = order[turn:] + order[:turn]
            if avoid is not None:
                shun = avoid[taken]
                order = [q for q in order if not shun >> q & 1] + [
                    q for q in order if shun >> q & 1
                ]
        for size in open_sizes:
            for others in self._tables(order, free, size - 1, allowed):
                yield (taken, *others), size

    def _tables(self, order, free, k, allowed) -> Iterator[tuple[int, ...]]:
        """Every ``k`` of ``order`` (all in ``free``) who may all meet each other, in
        ``order``'s order."""
        chosen: list[int] = []

        def extend(start: int, mask: int) -> Iterator[tuple[int, ...]]:
            if len(chosen) == k:
                yield tuple(chosen)
                return
            if mask.bit_count() < k - len(chosen):
                return
            self._charge(1)
            for index in range(start, len(order)):
                q = order[index]
                if mask >> q & 1:
                    chosen.append(q)
                    yield from extend(index + 1, mask & allowed[q])
                    chosen.pop()

        yield from extend(0, free)

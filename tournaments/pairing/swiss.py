"""Swiss rounds: entrants of equal score meet, nobody meets twice while it can be avoided.

Two sides a table: a maximum-weight matching (networkx) over the standings, where an
edge costs more the further apart the scores and a rematch costs more than any score
gap; the field is matched in overlapping windows of the standings so that a thousand
entrants pair in well under a second (a field up to ``WHOLE_FIELD`` whose windows left a
rematch is matched whole). An odd field gives the bye to the lowest-ranked entrant who
has had the fewest byes. Where the stage's rounds left could all be played without a
repeat, a round is chosen that keeps them so (``ahead_two_sides``). Three or more a
table: an optimisation over the whole round (``pair_tables``): fewest repeat meetings
first, score groups together second; where the stage's rounds left could all be played
without a repeat, a round is chosen that keeps them so (``plan_ahead``). The score is the
tournament's match points (its placement points), as the standings count them.
"""

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from domain.say import say
from tournaments.pairing import lookahead
from tournaments.pairing.base import (
    EngineBase,
    EntrantStub,
    Flag,
    PairingError,
    PairingResult,
    Table,
    allowed_sizes,
    check_positive_int,
    rng_for,
    seating,
    table_sizes,
)
from tournaments.pairing.round_robin import TABLE_SIZES

REMATCH = 1_000_000
WINDOW = 48
# Two a table, a field up to this size whose windows left a rematch is matched whole.
WHOLE_FIELD = 96


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


def pair_two_sides(
    field: list[EntrantStub], rounds_left: int = 1, rng=None
) -> tuple[list[Table], list[Flag]]:
    """Seat a Swiss round two a table: a maximum-weight matching by the standings, planned
    ahead (``ahead_two_sides``) where ``rounds_left`` (this one counted) is more than one."""
    bye, pairs = _match_two_sides(field)
    if rounds_left > 1:
        bye, pairs = ahead_two_sides(field, bye, pairs, rounds_left, rng)
    tables: list[Table] = []
    flags: list[Flag] = []
    if bye is not None:
        tables.append(Table((bye.id,), bye=True))
        flags.append(
            Flag(
                "bye",
                say("Bye: entrant {id}, lowest ranked with fewest byes.", id=bye.id),
                (bye.id,),
            )
        )
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


def _match_two_sides(field: list[EntrantStub]) -> tuple[EntrantStub | None, list[tuple]]:
    """The standings' round two a table: the bye (or None) and the pairs."""
    bye = None
    if len(field) % 2:
        bye = _bye(field)
        field = [e for e in field if e.id != bye.id]
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
    if WINDOW < len(field) <= WHOLE_FIELD and any(a.met.get(b.id) for a, b in pairs):
        # The windows left a rematch: the whole field at once may avoid it.
        whole, _left = _match_window(field)
        if sum(1 for a, b in whole if a.met.get(b.id)) < sum(
            1 for a, b in pairs if a.met.get(b.id)
        ):
            pairs = whole
    return bye, pairs


def ahead_two_sides(
    field: list[EntrantStub], bye, pairs: list[tuple], rounds_left: int, rng
) -> tuple[EntrantStub | None, list[tuple]]:
    """The round to seat two a table, of ``rounds_left`` still to play with nobody
    meeting twice (``plan_ahead`` for tables of two).

    Players are the field's places; an odd field adds a phantom seat after the last,
    whom only those with the fewest byes may meet (his partner has the bye). The
    standings' round (``bye``, ``pairs``) stands where it repeats a meeting, where
    nobody has met yet, where a way through surely exists (``_surely_completes``), and
    where ``lookahead.Completion`` finds perfect matchings of the pairs not yet met for
    the rounds after it. Otherwise a schedule is searched with its first round seated
    from the top, the best placed taking their standings partners where they can, and a
    branch and bound (``Completion.cheapest``) looks below its cost (each pair's squared
    score gap, standings neighbours apart a little; a bye costs more the higher its
    holder stands) for the round closest to the standings that keeps a way through.
    Where none exists or the work runs out before one is found, the standings' round
    stands.
    """
    if any(a.met.get(b.id) for a, b in pairs) or not any(e.met for e in field):
        return bye, pairs
    n = len(field)
    place = {e.id: i for i, e in enumerate(field)}
    full = (1 << (n + n % 2)) - 1
    allowed = [
        full
        & ~(1 << i)
        & ~lookahead.mask_of(place[o] for o, c in e.met.items() if c and o in place)
        for i, e in enumerate(field)
    ]
    if n % 2:
        fewest = min(e.byes for e in field)
        lucky = lookahead.mask_of(i for i, e in enumerate(field) if e.byes == fewest)
        for i in range(n):
            if not lucky >> i & 1:
                allowed[i] &= ~(1 << n)
        allowed.append(lucky)
    if _surely_completes(allowed, rounds_left):
        return bye, pairs
    best = [tuple(sorted((place[a.id], place[b.id]))) for a, b in pairs]
    if bye is not None:
        best.append((place[bye.id], n))
    completion = lookahead.Completion(allowed, [2] * (len(allowed) // 2), rng=rng, work=AHEAD_WORK)
    if completion.rounds(rounds_left - 1, played=[best]) is not None or not completion.settled:
        return bye, pairs
    wanted = [0] * len(allowed)
    for a, b in best:
        wanted[a], wanted[b] = 1 << b, 1 << a

    def price(table: tuple[int, ...]) -> float:
        a, b = table
        if b == n:
            return (n - 1 - a) * 100.0
        gap = field[a].score - field[b].score
        return gap * gap * 100 + (b - a) * 0.01

    schedule = completion.rounds(rounds_left, prefer=wanted)
    if schedule is None:
        return bye, pairs
    chosen = schedule[0]
    cost = sum(price(tuple(sorted(t))) for t in chosen)
    exact = lookahead.Completion(allowed, [2] * (len(allowed) // 2), rng=rng, work=AHEAD_WORK)
    closest = exact.cheapest(price, rounds_left - 1, below=cost - 1e-9)
    chosen = sorted(tuple(sorted(t)) for t in (closest or chosen))
    bye = next((field[a] for a, b in chosen if b == n), None)
    return bye, [(field[a], field[b]) for a, b in chosen if b != n]


def _surely_completes(allowed: list[int], rounds_left: int) -> bool:
    """Whether the rounds left surely have a repeat-free schedule of pairs: where every
    player may still meet at least half the seats after all but the last of them, each
    round's graph of pairs not yet met has a Hamiltonian cycle (Dirac), so a perfect
    matching, whatever the rounds before took: no search needed."""
    m = len(allowed)
    return min(mask.bit_count() for mask in allowed) - (rounds_left - 1) >= m / 2


def _sat_first(entrant: EntrantStub) -> int:
    return sum(1 for position in entrant.seats if position == 0)


def pick_byes(field: list[EntrantStub], count: int) -> list[EntrantStub]:
    """Who sits out: fewest byes first (nobody twice before everyone has once), the
    lowest ranked first among them (``field`` is in standings order)."""
    ranked = {e.id: place for place, e in enumerate(field)}
    return sorted(field, key=lambda e: (e.byes, -ranked[e.id]))[:count]


def bye_flags(byes: list[EntrantStub]) -> list[Flag]:
    return [
        Flag(
            "bye",
            say("Bye: entrant {id}, lowest ranked with fewest byes.", id=e.id),
            (e.id,),
        )
        for e in byes
    ]


def pair_tables(
    field: list[EntrantStub],
    table_size: int,
    seed: int,
    round_number: int,
    rounds_left: int = 1,
    sizes: list[int] | None = None,
):
    """Seat a Swiss round at tables of three or more by an optimisation over the round.

    The objective, in order: fewest repeat meetings; short tables to those who sat at one
    least; score groups together (the squared score gaps at each table), standings
    neighbours together last. From the standings filled from the top, a descent swaps
    two entrants of different tables while that lowers the cost; where a repeat is left
    above the round's lower bound, a tabu search (the best swap of a repeating entrant,
    uphill if need be, not undone for a few moves) looks further, and where one is still
    left (fields up to ``REPAIR_FIELD``) an exact search (``_Repair``) asks for a seating
    with fewer. A pair that met k times counts k repeats. Where rounds are left after
    this one (``rounds_left`` counts this one), the round is planned ahead
    (``plan_ahead``): a round that leaves no repeat-free way through the rounds left
    gives way to the best one found that does. Work is bounded by moves and search
    steps, never by time, so the same input gives the same tables anywhere.
    """
    if sizes is None:
        sizes = table_sizes(len(field), table_size)
    search = _RoundSearch(field, list(sizes), full=table_size)
    best = search.descend(search.from_the_top())
    if search.repeats(best) > search.floor():
        # A repeat the descent could not swap away: a tabu search over the round.
        best = search.descend(search.tabu(best, rng_for(seed, "swiss", round_number)))
    if search.repeats(best) > search.floor() and len(field) <= REPAIR_FIELD:
        # Still a repeat: an exact search for a seating with fewer, within its budget.
        repair = _Repair(search)
        while (fewer := repair.fewer(search.repeats(best))) is not None:
            best = search.descend(fewer)
    if rounds_left > 1 and not search.repeats(best):
        best = plan_ahead(search, best, rounds_left, rng_for(seed, "swiss-ahead", round_number))
    flags = []
    result = []
    for table in best:
        ordered_table = sorted(table)  # the better placed first
        ids = tuple(field[i].id for i in ordered_table)
        result.append(Table(ids))
        for i, a in enumerate(ordered_table):
            for b in ordered_table[i + 1 :]:
                if field[a].met.get(field[b].id):
                    flags.append(
                        Flag(
                            "rematch",
                            say(
                                "Repeat meeting: {first} and {second} met before; this "
                                "round's seating has the fewest repeats the search found.",
                                first=field[a].id,
                                second=field[b].id,
                            ),
                            (field[a].id, field[b].id),
                        )
                    )
    return result, flags


# The work (players looked at) each of a round's two searches for repeat-free rounds
# left (the schedule and its descents, the branch and bound) may do: about a tenth of a
# second each here, spent only where the standings' round leaves no way through.
AHEAD_WORK = 25_000
# Times the rounds after the chosen one are searched again, away from the round the
# standings ask for, so that the descent can bring the chosen round closer to it.
AHEAD_REPLANS = 3


def plan_ahead(
    search: "_RoundSearch", best: list[list[int]], rounds_left: int, rng
) -> list[list[int]]:
    """The round to seat, of ``rounds_left`` still to play with nobody meeting twice.

    ``best`` (the standings' round, repeat-free) stands if the rounds after it can follow
    without a repeat (``lookahead.Completion``), and where none can follow anything (or
    the search runs out of work first). Otherwise a repeat-free schedule of the rounds
    left is searched with its first round seated from the top of the standings, the best
    placed taking ``best``'s tables where they can; that first round is then descended by
    the round's cost with the schedule's later meetings counted as repeats (so it stays
    one they can follow), and the later rounds are searched again away from ``best``'s
    meetings to let it come closer. Last, a branch and bound (``Completion.cheapest``)
    looks for a round of lower cost that the rounds left can still follow: within its
    work, the round it ends with is the one closest to the standings of all those. Before
    the first round nobody has met: every round is as good as another for the rounds
    left, so ``best`` stands.
    """
    if not any(search.met):
        return best
    allowed = [
        ((1 << search.n) - 1) & ~(1 << i) & ~lookahead.mask_of(search.met[i])
        for i in range(search.n)
    ]
    completion = lookahead.Completion(allowed, search.sizes, rng=rng, work=AHEAD_WORK)
    if completion.rounds(rounds_left - 1, played=[best]) is not None:
        return best
    wanted = [0] * search.n
    for table in best:
        for p in table:
            wanted[p] = lookahead.mask_of(table) & ~(1 << p)
    schedule = completion.rounds(rounds_left, prefer=wanted)
    if schedule is None:
        return best
    chosen = search.descend_within(schedule[0], schedule[1:])
    cost = search.total(chosen)
    for _ in range(AHEAD_REPLANS):
        later = completion.rounds(rounds_left - 1, played=[chosen], avoid=wanted)
        if later is None:
            break
        closer = search.descend_within(chosen, later)
        if search.total(closer) >= cost - 1e-9:
            break
        chosen, cost = closer, search.total(closer)
    # A round closer still, by a branch and bound below the one found.
    exact = lookahead.Completion(allowed, search.sizes, rng=rng, work=AHEAD_WORK)
    closest = exact.cheapest(search.table_cost, rounds_left - 1, below=cost - 1e-9)
    if not closest:
        return chosen
    return sorted((list(t) for t in closest), key=lambda t: (len(t) != search.full, min(t)))


# Swaps tried in one round's descent at most: a few thousand moves at 64 entrants.
SWAP_BUDGET = 3_000_000
# A table swaps with this many tables either side of it (all of them up to 33 tables).
NEIGHBOURS = 16
# Tabu moves for a round with a repeat left: enough to settle small fields' hard cases.
TABU_MOVES_BASE = 200
TABU_MOVES_EACH = 20
# In a larger field, score groups lie close: a table swaps with two tables either side.
FAR_NEIGHBOURS = 2


# The exact search for fewer repeats: fields up to this size, this many search steps.
REPAIR_FIELD = 64
REPAIR_STEPS = 3_000


class _Repair:
    """A seating with fewer repeats than the tabu search's, by a complete search.

    It asks for a seating whose repeats stay within a budget: the most constrained
    entrant left (fewest left he has not met) takes each table he can sit at within the
    budget in turn, fewest repeats then the closest scores first. A branch ends when the
    entrants left cannot fit what is left of the budget: each one's seat costs at least
    his cheapest table's repeats split over its seats. Sets of entrants that failed are
    remembered. The steps are counted across the round's searches: when they run out, the
    seating found so far stands.
    """

    def __init__(self, search: "_RoundSearch"):
        self.search = search
        self.n = search.n
        self.sizes = sorted(set(search.sizes))
        self.met = [[search.met[i].get(j, 0) for j in range(self.n)] for i in range(self.n)]
        self.free = [
            sum(1 << j for j in range(self.n) if j != i and not self.met[i][j])
            for i in range(self.n)
        ]
        self.steps = REPAIR_STEPS

    def fewer(self, repeats: int) -> list[list[int]] | None:
        """A seating with fewer than ``repeats`` repeats, or None (none, or out of steps)."""
        counts = {s: self.search.sizes.count(s) for s in self.sizes}
        everyone = (1 << self.n) - 1
        self.failed: dict[tuple, int] = {}
        kept: dict = {}
        if self._bound(list(range(self.n)), everyone, counts, kept) >= repeats:
            return None
        tables: list[list[int]] = []
        try:
            found = self._fits(everyone, counts, repeats - 1, kept, tables)
        except _OutOfSteps:
            return None
        return tables if found else None

    def _cheapest(self, p: int, left: list[int], k: int) -> tuple[int, int]:
        """The repeats of the cheapest table seating ``p`` with ``k`` of ``left``, and its
        others (a bit mask)."""
        row = self.met[p]
        others = sorted((q for q in left if q != p), key=row.__getitem__)
        if k == 1:
            return row[others[0]], 1 << others[0]
        if k in (2, 3):
            return self._cheapest_small(row, others, k)
        best, chosen = None, 0

        def extend(start: int, members: list[int], cost: int) -> None:
            nonlocal best, chosen
            if best is not None and cost >= best:
                return
            if len(members) == k:
                best, chosen = cost, sum(1 << q for q in members)
                return
            for idx in range(start, len(others) - (k - len(members)) + 1):
                q = others[idx]
                if best is not None and cost + row[q] >= best:
                    break
                add = row[q] + sum(self.met[q][c] for c in members)
                members.append(q)
                extend(idx + 1, members, cost + add)
                members.pop()
                if best == 0:
                    return

        extend(0, [], 0)
        return best or 0, chosen

    def _cheapest_small(self, row: list[int], others: list[int], k: int) -> tuple[int, int]:
        """``_cheapest`` for two or three others: ``others`` rise in ``row``, so a loop ends
        as soon as its least possible cost reaches the best found."""
        met, m = self.met, len(others)
        best, chosen = math.inf, 0
        for i in range(m - k + 1):
            a = others[i]
            ra, wa = row[a], met[a]
            if ra + sum(row[q] for q in others[i + 1 : i + k]) >= best:
                break
            for j in range(i + 1, m - k + 2):
                b = others[j]
                rab = ra + row[b]
                if k == 2:
                    if rab >= best:
                        break
                    if rab + wa[b] < best:
                        best, chosen = rab + wa[b], (1 << a) | (1 << b)
                        if not best:
                            return 0, chosen
                    continue
                if rab + row[others[j + 1]] >= best:
                    break
                cab = rab + wa[b]
                if cab >= best:
                    continue
                wb = met[b]
                for c in others[j + 1 :]:
                    if rab + row[c] >= best:
                        break
                    cost = cab + row[c] + wa[c] + wb[c]
                    if cost < best:
                        best, chosen = cost, (1 << a) | (1 << b) | (1 << c)
                        if not best:
                            return 0, chosen
        return best, chosen

    def _bound(self, left: list[int], mask: int, counts: dict, kept: dict) -> int:
        open_sizes = [s for s in self.sizes if counts[s]]
        if not open_sizes:
            return 0
        scale = math.lcm(*open_sizes)
        total, extra = 0, []
        for p in left:
            shares = []
            for size in open_sizes:
                known = kept.get((p, size))
                if known is None or known[1] & ~mask:
                    known = kept[(p, size)] = self._cheapest(p, left, size - 1)
                shares.append(known[0] * (scale // size))
            total += shares[0]
            extra.append(shares[-1] - shares[0])
        if len(open_sizes) > 1:
            extra.sort()
            total += sum(extra[: counts[open_sizes[-1]] * open_sizes[-1]])
        return -(-total // scale)

    def _fits(self, mask: int, counts: dict, budget: int, kept: dict, tables: list) -> bool:
        if not mask:
            return True
        key = (mask, tuple(counts[s] for s in self.sizes))
        if self.failed.get(key, -1) >= budget:
            return False
        self.steps -= 1
        if self.steps < 0:
            raise _OutOfSteps
        left = [i for i in range(self.n) if mask >> i & 1]
        kept = dict(kept)
        if self._bound(left, mask, counts, kept) > budget:
            self.failed[key] = budget
            return False
        p = min(left, key=lambda q: ((self.free[q] & mask).bit_count(), q))
        row, score = self.met[p], self.search.score
        others = sorted((q for q in left if q != p), key=lambda q: (row[q], q))
        options = []

        def extend(start: int, members: list[int], cost: int, size: int) -> None:
            if len(members) == size - 1:
                table = (p, *members)
                gaps = sum((score[a] - score[b]) ** 2 for a, b in itertools.combinations(table, 2))
                options.append((cost, gaps, table, size))
                return
            for idx in range(start, len(others)):
                q = others[idx]
                if row[q] > budget - cost:
                    break  # the others rise in repeats with p: none after fits either
                add = row[q] + sum(self.met[q][c] for c in members)
                if cost + add <= budget:
                    members.append(q)
                    extend(idx + 1, members, cost + add, size)
                    members.pop()

        for size in self.sizes:
            if counts[size]:
                extend(0, [], 0, size)
        options.sort(key=lambda option: option[:3])
        for cost, _gaps, table, size in options:
            counts[size] -= 1
            rest = mask
            for q in table:
                rest &= ~(1 << q)
            tables.append(list(table))
            if self._fits(rest, counts, budget - cost, kept, tables):
                counts[size] += 1
                return True
            tables.pop()
            counts[size] += 1
        self.failed[key] = budget
        return False


class _OutOfSteps(Exception):
    """The exact search for fewer repeats used its steps."""


# Fields up to this size keep each entrant's pair costs in a row once computed.
COST_ROWS_UP_TO = 128


class _RoundSearch:
    """The cost of a Swiss round's tables and a descent that lowers it."""

    def __init__(self, field: list[EntrantStub], sizes: list[int], full: int | None = None):
        self.field = field
        self.sizes = sizes
        self.n = len(field)
        self.index = {e.id: i for i, e in enumerate(field)}
        self.met: list[dict[int, int]] = [{} for _ in field]
        for i, e in enumerate(field):
            for other, count in e.met.items():
                j = self.index.get(other)
                if j is not None and count:
                    # Either side's record counts (a stub may list a meeting one way).
                    self.met[i][j] = self.met[j][i] = max(count, self.met[i].get(j, 0))
        self.score = [e.score for e in field]
        gap = (max(self.score) - min(self.score)) if field else 0
        pairs = self.n * (max(sizes) - 1) / 2 + 1
        # Three tiers that never trade: one repeat outweighs any short-table unfairness,
        # which outweighs any score gap; standings order settles what is left.
        self.rank_weight = 0.2 / (self.n * self.n * max(sizes))
        score_bound = pairs * (gap * gap + 1) + 1
        self.short_weight = score_bound
        short_most = max((e.short_tables for e in field), default=0) + 1
        self.repeat_weight = self.short_weight * (self.n * short_most + 1) + score_bound
        self.short_cost = [e.short_tables * self.short_weight for e in field]
        # The stage's size: a table of any other size is off size (short, or one over
        # where the rule set seats more), and sitting at one is rotated.
        self.full = full if full is not None else max(sizes)
        # Each entrant's pair costs to everyone, made when the search first swaps them
        # (the same figures as pair_cost: the field does not change during a search);
        # in a large field a descent touches few entrants, each against few others.
        self._rows: list[list[float] | None] | None = (
            [None] * self.n if self.n <= COST_ROWS_UP_TO else None
        )

    def pair_cost(self, a: int, b: int) -> float:
        gap = self.score[a] - self.score[b]
        return (
            self.met[a].get(b, 0) * self.repeat_weight + gap * gap + abs(a - b) * self.rank_weight
        )

    def _costs_of(self, a: int) -> list[float]:
        """``a``'s pair costs by entrant, kept in a row (fields up to COST_ROWS_UP_TO)."""
        row = self._rows[a]
        if row is None:
            row = self._rows[a] = [self.pair_cost(a, b) for b in range(self.n)]
        return row

    def table_cost(self, table: list[int]) -> float:
        cost = sum(self.pair_cost(a, b) for i, a in enumerate(table) for b in table[i + 1 :])
        if len(table) != self.full:
            cost += sum(self.short_cost[p] for p in table)
        return cost

    def floor(self) -> int:
        """Repeats no seating of the round avoids: everyone meets at least the smallest
        table's others, at best those he met least (none, once, …); a pair's repeats count
        once for each of its two players, so the sum is halved."""
        least = min(self.sizes) - 1
        need = 0
        for met in self.met:
            unmet = self.n - 1 - len(met)
            if unmet < least:
                need += sum(sorted(met.values())[: least - unmet])
        return -(-need // 2)

    def tabu(self, tables: list[list[int]], rng) -> list[list[int]]:
        """Move on from a local optimum with repeats: each move the best swap of an entrant
        who repeats a meeting with anyone at another table, even if it costs; a swapped
        pair may not swap back for a few moves unless that reaches a new best."""
        tables = [list(t) for t in tables]
        current = self.total(tables)
        best, best_cost, best_repeats = [t[:] for t in tables], current, self.repeats(tables)
        floor = self.floor()
        tabu: dict[tuple[int, int], int] = {}  # (entrant, table) → the move it may return
        for step in range(TABU_MOVES_BASE + TABU_MOVES_EACH * self.n):
            if best_repeats <= floor:
                break
            chosen, ties = None, 0
            for t1, one in enumerate(tables):
                for i, a in enumerate(one):
                    if not any(self.met[a].get(x) for x in one if x != a):
                        continue
                    for t2, two in enumerate(tables):
                        if t2 == t1:
                            continue
                        for j, b in enumerate(two):
                            delta = self._swap_delta(one, a, two, b)
                            barred = tabu.get((a, t2), -1) > step or tabu.get((b, t1), -1) > step
                            if barred and current + delta >= best_cost - 1e-9:
                                continue
                            if chosen is None or delta < chosen[0] - 1e-9:
                                chosen, ties = (delta, t1, i, t2, j), 1
                            elif delta <= chosen[0] + 1e-9:
                                ties += 1  # equal moves: one at random, fixed by the seed
                                if rng.randrange(ties) == 0:
                                    chosen = (delta, t1, i, t2, j)
            if chosen is None:
                break
            delta, t1, i, t2, j = chosen
            a, b = tables[t1][i], tables[t2][j]
            tables[t1][i], tables[t2][j] = b, a
            tabu[(a, t1)] = tabu[(b, t2)] = step + 3 + rng.randrange(len(tables) + 4)
            current += delta
            if current < best_cost - 1e-9:
                best, best_cost = [t[:] for t in tables], current
                best_repeats = self.repeats(tables)
        return best

    def _swap_delta(self, one: list[int], a: int, two: list[int], b: int) -> float:
        """The change in cost if ``a`` (at table ``one``) and ``b`` (at ``two``) swap."""
        delta = 0.0
        if self._rows is not None:
            of_a, of_b = self._costs_of(a), self._costs_of(b)
            for x in one:
                if x != a:
                    delta += of_b[x] - of_a[x]
            for y in two:
                if y != b:
                    delta += of_a[y] - of_b[y]
        else:  # a large field: each cost computed where it is read, as cheap as a lookup
            cost = self.pair_cost
            for x in one:
                if x != a:
                    delta += cost(b, x) - cost(a, x)
            for y in two:
                if y != b:
                    delta += cost(a, y) - cost(b, y)
        off_one, off_two = len(one) != self.full, len(two) != self.full
        if off_one != off_two:
            # Whoever moves to the table off size takes on its cost.
            moving = self.short_cost[b] - self.short_cost[a]
            delta += moving if off_one else -moving
        return delta

    def total(self, tables) -> float:
        return sum(self.table_cost(t) for t in tables)

    def repeats(self, tables) -> int:
        """Repeat meetings at ``tables``: a pair that met k times before adds k."""
        return sum(
            self.met[a].get(b, 0) for t in tables for i, a in enumerate(t) for b in t[i + 1 :]
        )

    def from_the_top(self) -> list[list[int]]:
        """Tables filled down the standings; short seats to the lowest who sat short least."""
        short_seats = sum(size for size in self.sizes if size != self.full)
        bottom = sorted(range(self.n), key=lambda i: (self.field[i].short_tables, -i))
        short = set(bottom[:short_seats])
        rest = [i for i in range(self.n) if i not in short]
        low = sorted(short)
        tables, position, low_position = [], 0, 0
        for size in self.sizes:
            if size == self.full:
                tables.append(rest[position : position + size])
                position += size
            else:
                tables.append(low[low_position : low_position + size])
                low_position += size
        return tables

    def descend_within(self, tables: list[list[int]], later) -> list[list[int]]:
        """``descend`` from a repeat-free round with the meetings of the ``later`` rounds
        counted as repeats: the round it ends at is still repeat-free, and ``later`` can
        still follow it."""
        planned = {e.id: dict(e.met) for e in self.field}
        for tables_later in later:
            for table in tables_later:
                for a, b in itertools.combinations(table, 2):
                    one, two = self.field[a].id, self.field[b].id
                    planned[one][two] = planned[two][one] = 1
        ahead = _RoundSearch(
            [dataclasses.replace(e, met=planned[e.id]) for e in self.field],
            self.sizes,
            full=self.full,
        )
        return ahead.descend(tables)

    def descend(self, tables: list[list[int]]):
        """Swap two entrants of different tables while that lowers the cost (best swap of
        each table's neighbourhood), within the budget."""
        tables = [list(t) for t in tables]
        tables.sort(key=lambda t: (len(t) != self.full, min(t)))
        reach = NEIGHBOURS if len(tables) <= 2 * NEIGHBOURS + 1 else FAR_NEIGHBOURS
        tried = 0
        improved = True
        while improved and tried < SWAP_BUDGET:
            improved = False
            for t1 in range(len(tables)):
                lo, hi = max(0, t1 - reach), min(len(tables), t1 + reach + 1)
                best = None
                for t2 in range(lo, hi):
                    if t2 == t1:
                        continue
                    one, two = tables[t1], tables[t2]
                    for i, a in enumerate(one):
                        for j, b in enumerate(two):
                            tried += 1
                            delta = self._swap_delta(one, a, two, b)
                            if delta < -1e-9 and (best is None or delta < best[0]):
                                best = (delta, t2, i, j)
                if best is not None:
                    _, t2, i, j = best
                    one, two = tables[t1], tables[t2]
                    one[i], two[j] = two[j], one[i]
                    improved = True
        tables.sort(key=lambda t: (len(t) != self.full, min(t)))
        return tables


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
            total = self.total_rounds(len(field), table_size=table_size, settings=settings)
            rng = rng_for(seed, "swiss-ahead", round_number)
            tables, flags = pair_two_sides(field, total - round_number + 1, rng)
            return PairingResult(tuple(tables), tuple(flags))
        seat = seating(len(field), table_size, allowed_sizes(settings, table_size))
        byes = pick_byes(field, seat.byes)
        out = {e.id for e in byes}
        playing = [e for e in field if e.id not in out]
        total = self.total_rounds(len(field), table_size=table_size, settings=settings)
        left = total - round_number + 1
        tables, flags = pair_tables(
            playing, table_size, seed, round_number, left, sizes=list(seat.sizes)
        )
        tables = [*tables, *(Table((e.id,), bye=True) for e in byes)]
        return PairingResult(tuple(tables), (*flags, *bye_flags(byes)))

"""Round robins at tables of three or four: the whole schedule of R rounds at once.

Objectives, in order: as few repeat meetings as possible (zero wherever a zero-repeat
schedule exists and is reached); nobody sits at a short table twice before everyone has
once; balanced seat positions. Where the field is a square of a prime power and the
table size its root, the affine plane AG(2, q) gives a perfect schedule (16 players in
tables of 4: five rounds, every pair meets exactly once). Everything else starts from a
greedy schedule and is improved by a tabu search over swaps of two players in one round,
the method of the social-golfer literature. Budgets are counted in moves, never seconds,
so the same input and seed give the same schedule on any machine.

``schedule(n, rounds, table_size, seed)`` is the plain entry point for tools and
outside checks; ``plan`` also returns flags, and ``replan`` schedules the remaining
rounds around meetings already played (a withdrawal or a late entry).
"""

import collections
import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from domain.say import say
from tournaments.pairing.base import PairingError, seating
from tournaments.pairing.designs import known_design

# --- finite fields and affine planes ------------------------------------------------------

# GF(4) = {0, 1, a, a+1} with a^2 = a + 1, elements coded 0..3 (bit i = coefficient of a^i).
_GF4_MUL = [
    [0, 0, 0, 0],
    [0, 1, 2, 3],
    [0, 2, 3, 1],
    [0, 3, 1, 2],
]


def _field(q: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """Addition and multiplication tables of GF(q) for the orders used here, else None."""
    if q == 4:
        add = [[a ^ b for b in range(4)] for a in range(4)]
        return add, _GF4_MUL
    if q in (2, 3, 5, 7):
        add = [[(a + b) % q for b in range(q)] for a in range(q)]
        mul = [[(a * b) % q for b in range(q)] for a in range(q)]
        return add, mul
    return None


def affine_plane(q: int) -> list[list[tuple[int, ...]]] | None:
    """The q + 1 parallel classes of AG(2, q): each a round of q tables of q players."""
    tables = _field(q)
    if tables is None:
        return None
    add, mul = tables

    def point(x: int, y: int) -> int:
        return x * q + y

    classes = []
    for slope in range(q):
        classes.append(
            [tuple(sorted(point(x, add[mul[slope][x]][b]) for x in range(q))) for b in range(q)]
        )
    classes.append([tuple(point(c, y) for y in range(q)) for c in range(q)])
    return classes


# --- schedules ----------------------------------------------------------------------------------


@dataclass
class Plan:
    """A schedule (rounds of tables of player indices) and the flags that explain it."""

    rounds: list[list[tuple[int, ...]]]
    repeats: int
    flags: list[str] = field(default_factory=list)
    # Found with the quick budget, which stopped the search before it ended on its own:
    # the full budget (the same search, carried on) may find fewer repeats.
    quick: bool = False
    # Swaps evaluated by the search (its work; zero where a design or nothing was searched).
    work: int = 0


def _pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def count_repeats(rounds: Iterable[Iterable[Sequence[int]]], met=None) -> int:
    """Repeat meetings: a pair meeting k times (history included) counts k - 1."""
    seen: dict[tuple[int, int], int] = dict(met or {})
    repeats = 0
    for tables in rounds:
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                key = _pair_key(a, b)
                if seen.get(key, 0):
                    repeats += 1
                seen[key] = seen.get(key, 0) + 1
    return repeats


class _Search:
    """Greedy construction and tabu improvement of a schedule over ``players``."""

    def __init__(
        self,
        players: Sequence[int],
        rounds: int,
        table_size: int,
        rng: random.Random,
        met: Mapping[tuple[int, int], int],
        short_counts: Mapping[int, int],
        allowed: Sequence[int] | None = None,
    ):
        self.players = list(players)
        self.index = {player: i for i, player in enumerate(self.players)}
        self.n = len(self.players)
        self.rounds = rounds
        # The stage's size first, then tables off size; an entrant sitting out (a bye,
        # where the rule set plays one size) sits at a table of one, which meets nobody,
        # so that byes rotate as tables off size do.
        seat = seating(self.n, table_size, allowed)
        self.full = table_size
        self.sizes = [*seat.sizes, *([1] * seat.byes)]
        self.rng = rng
        n = self.n
        self.history = [[0] * n for _ in range(n)]
        for (a, b), count in met.items():
            if a in self.index and b in self.index:
                i, j = self.index[a], self.index[b]
                self.history[i][j] = self.history[j][i] = count
        self.meet = [row[:] for row in self.history]
        self.short = [short_counts.get(player, 0) for player in self.players]
        self.initial_short = list(self.short)

    # Round construction ---------------------------------------------------------------

    def greedy_round(self) -> list[list[int]]:
        """One round: short seats to those who sat short least, then fewest meetings."""
        tables: list[list[int]] = [[] for _ in self.sizes]
        short_ids = [t for t, size in enumerate(self.sizes) if size != self.full]
        short_seats = sum(self.sizes[t] for t in short_ids)
        by_need = sorted(range(self.n), key=lambda i: (self.short[i], self.rng.random()))
        sitting_short = set(by_need[:short_seats])
        order = list(range(self.n))
        self.rng.shuffle(order)
        for i in order:
            allowed = (
                short_ids
                if i in sitting_short
                else [t for t in range(len(self.sizes)) if t not in short_ids]
            )
            best, best_cost = None, None
            for t in allowed:
                if len(tables[t]) >= self.sizes[t]:
                    continue
                cost = sum(self.meet[i][j] for j in tables[t])
                if best_cost is None or cost < best_cost:
                    best, best_cost = t, cost
                    if cost == 0:
                        break
            tables[best].append(i)
        for t in short_ids:
            for i in tables[t]:
                self.short[i] += 1
        return tables

    def _apply(self, tables: list[list[int]], sign: int) -> None:
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                self.meet[a][b] += sign
                self.meet[b][a] += sign

    def _cost(self) -> int:
        total = 0
        for i in range(self.n):
            row, base = self.meet[i], self.history[i]
            for j in range(i + 1, self.n):
                # Repeats made by the planned rounds (history's own repeats are sunk).
                extra = row[j] - base[j]
                if extra:
                    total += extra if base[j] else extra - 1
        return total

    # Tabu search ----------------------------------------------------------------------------

    def improve(
        self,
        schedule: list[list[list[int]]],
        budget: int,
        evaluations: int = 0,
    ) -> int:
        """Swap players within rounds to remove repeat meetings; returns the repeats left.

        ``evaluations`` caps the work (swaps evaluated; ``EVALUATION_BUDGET`` unless
        given); ``self.cut`` says whether that cap, rather than the search's own ends
        (the lower bound, a long stall, its move budget), stopped it. A smaller cap is
        the same search stopped earlier: its best is never better than the full one's.

        Each move swaps a player who repeats a meeting with a player of another table of
        the same round, the best swap over that whole neighbourhood; a swapped pair may
        not swap back for a few moves unless that reaches a new best (tabu with
        aspiration). After a long stall a few random swaps shake the schedule.
        """
        current = self._cost()
        best = current
        best_schedule = [[table[:] for table in tables] for tables in schedule]
        tabu: dict[tuple[int, int, int], int] = {}
        stall = 0
        self.evaluations = 0
        self.cut = False
        cap = evaluations or EVALUATION_BUDGET
        floor = self.floor(schedule)
        improved_at = 0
        patience = 4_000 + 400 * self.n
        for step in range(budget):
            if current <= floor:
                break
            if self.evaluations > cap:
                self.cut = cap < EVALUATION_BUDGET
                break
            if step - improved_at > patience:
                break  # long without a new best: the repeats left are likely unavoidable
            move = self._best_move(schedule, tabu, step, current, best)
            if move is None or stall > 60 + self.n:
                for _ in range(2 + self.n // 16):
                    self._perturb(schedule)
                current = self._cost()
                self.evaluations += self.n * self.n // 2
                stall = 0
                continue
            r, t1, p1, t2, p2, delta = move
            a, b = schedule[r][t1][p1], schedule[r][t2][p2]
            self._swap(schedule[r], t1, p1, t2, p2)
            current += delta
            tabu[(r, min(a, b), max(a, b))] = step + 4 + self.rng.randrange(8)
            if current < best:
                best, stall, improved_at = current, 0, step
                best_schedule = [[table[:] for table in tables] for tables in schedule]
            else:
                stall += 1
        if best < current:
            self._load(schedule, best_schedule)
        return best

    def _fair_with_swap(self, schedule, r: int, a: int, b: int) -> bool:
        """Whether short tables stay fair in every round if ``a`` and ``b`` swap in round r."""
        full = self.full
        counts = list(self.initial_short)
        self.evaluations += len(schedule) * self.n // 8
        for number, tables in enumerate(schedule):
            for table in tables:
                if len(table) != full:
                    for p in table:
                        if number == r and p in (a, b):
                            p = b if p == a else a
                        counts[p] += 1
            if max(counts) - min(counts) > 1:
                return False
        return True

    def _fairness(self, schedule):
        """``_fair_with_swap`` for one fixed schedule, each call in time of the rounds
        rather than rounds times players: the short seats counted once, after each round.

        Swapping ``a`` and ``b`` in round r moves one short seat from whichever of them
        sits short there to the other, in the counts after round r and every later one;
        the counts before r do not change. The caller adds the work of ``_fair_with_swap``
        to ``evaluations`` for each swap, so the search takes the same steps and gives the
        same plan.
        """
        full = self.full
        counts = list(self.initial_short)
        short_in: list[set[int]] = []
        # After each round: everyone's count, and each count held with how many hold it,
        # highest first.
        after: list[tuple[list[int], list[tuple[int, int]]]] = []
        fair_before = [True]
        for tables in schedule:
            short = {p for table in tables if len(table) != full for p in table}
            for p in short:
                counts[p] += 1
            short_in.append(short)
            held = sorted(collections.Counter(counts).items(), reverse=True)
            after.append((counts[:], held))
            fair_before.append(fair_before[-1] and held[0][0] - held[-1][0] <= 1)

        def fair(r: int, a: int, b: int) -> bool:
            if not fair_before[r]:
                return False
            if (a in short_in[r]) == (b in short_in[r]):
                return fair_before[len(schedule)]  # both or neither short: nothing moves
            down, up = (a, b) if a in short_in[r] else (b, a)
            for counts, held in after[r:]:
                low, high = counts[down], counts[up]
                # Everyone else keeps their count; these two hold low - 1 and high + 1.
                top, bottom = max(low - 1, high + 1), min(low - 1, high + 1)
                for value, number in held:
                    if number - (value == low) - (value == high) > 0:
                        top = max(top, value)
                        break
                for value, number in reversed(held):
                    if number - (value == low) - (value == high) > 0:
                        bottom = min(bottom, value)
                        break
                if top - bottom > 1:
                    return False
            return True

        return fair

    def floor(self, schedule) -> int:
        """A lower bound on repeats: meetings a player has beyond the n - 1 others."""
        meetings = [0] * self.n
        for tables in schedule:
            for table in tables:
                for p in table:
                    meetings[p] += len(table) - 1
        return sum(max(0, m - (self.n - 1)) for m in meetings) // 2

    def _load(self, schedule, source) -> None:
        for tables in schedule:
            self._apply(tables, -1)
        schedule[:] = [[table[:] for table in tables] for tables in source]
        for tables in schedule:
            self._apply(tables, +1)

    def _swap(self, tables, t1, p1, t2, p2) -> None:
        a, b = tables[t1][p1], tables[t2][p2]
        for x in tables[t1]:
            if x != a:
                self.meet[a][x] -= 1
                self.meet[x][a] -= 1
                self.meet[b][x] += 1
                self.meet[x][b] += 1
        for x in tables[t2]:
            if x != b:
                self.meet[b][x] -= 1
                self.meet[x][b] -= 1
                self.meet[a][x] += 1
                self.meet[x][a] += 1
        tables[t1][p1], tables[t2][p2] = b, a

    def _round_counts(self, tables) -> tuple[list[int], list[list[int | None]]]:
        """For one round as it stands: what each player's repeats fall by when they leave
        their table (``lost``, at most 0), and room for how many at each table they have
        met (``met_at[p][t]``, counted by ``_met_at`` when first asked). A swap's change
        in repeats is read from these."""
        meet, history = self.meet, self.history
        lost = [0] * self.n
        for table in tables:
            for p in table:
                row, base = meet[p], history[p]
                lost[p] = -sum(1 for x in table if x != p and row[x] - base[x] >= 1 and row[x] >= 2)
        return lost, [[None] * len(tables) for _ in range(self.n)]

    def _met_at(self, met_at, p: int, t: int, table) -> int:
        met_at[p][t] = len(table) - [self.meet[p][x] for x in table].count(0)
        return met_at[p][t]

    def _best_move(self, schedule, tabu, step, current, best):
        meet, history = self.meet, self.history
        chosen, chosen_delta, ties = None, None, 0
        # Whether a swap across table sizes keeps the short seats fair: its work is counted
        # for every such swap, as _fair_with_swap counts it, and the counts are made when
        # a swap that could be chosen first needs them.
        fair, fair_work = None, len(schedule) * self.n // 8
        for r, tables in enumerate(schedule):
            counted = None  # the round's counts, made when a player of it first repeats
            for t1, table in enumerate(tables):
                for p1, a in enumerate(table):
                    self.evaluations += 1
                    row, base = meet[a], history[a]
                    if not any(row[x] >= 2 and row[x] > base[x] for x in table if x != a):
                        continue
                    lost, met_at = counted = counted or self._round_counts(tables)
                    for t2, other in enumerate(tables):
                        if t2 == t1:
                            continue
                        crosses = len(other) != len(table)
                        # a leaves for the other table and b comes over: each loses the
                        # repeats of their table and meets again whom they met at the new
                        # one, but for each other (met or not, they do not meet there).
                        met = met_at[a][t2]
                        if met is None:
                            met = self._met_at(met_at, a, t2, other)
                        moves_a = lost[a] + met
                        for p2, b in enumerate(other):
                            self.evaluations += 1 + (fair_work if crosses else 0)
                            met = met_at[b][t1]
                            if met is None:
                                met = self._met_at(met_at, b, t1, table)
                            delta = moves_a + lost[b] + met - 2 * (row[b] >= 1)
                            if chosen_delta is not None and delta > chosen_delta:
                                continue
                            if crosses:
                                fair = fair or self._fairness(schedule)
                                if not fair(r, a, b):
                                    continue  # nobody sits short twice before all have once
                            key = (r, min(a, b), max(a, b))
                            if tabu.get(key, -1) > step and current + delta >= best:
                                continue
                            if chosen_delta is None or delta < chosen_delta:
                                chosen, chosen_delta, ties = (r, t1, p1, t2, p2, delta), delta, 1
                            else:
                                ties += 1
                                if self.rng.randrange(ties) == 0:
                                    chosen = (r, t1, p1, t2, p2, delta)
        return chosen

    def _perturb(self, schedule) -> None:
        r = self.rng.randrange(len(schedule))
        tables = schedule[r]
        if len(tables) < 2:
            return
        t1, t2 = self.rng.sample(range(len(tables)), 2)
        p1, p2 = self.rng.randrange(len(tables[t1])), self.rng.randrange(len(tables[t2]))
        if len(tables[t1]) != len(tables[t2]) and not self._fair_with_swap(
            schedule, r, tables[t1][p1], tables[t2][p2]
        ):
            return
        self._swap(tables, t1, p1, t2, p2)

    # Seats ----------------------------------------------------------------------------------

    def seat(self, schedule, seat_counts: Mapping[int, Sequence[int]]) -> list[list[tuple]]:
        """Order each table's seats so that everyone's seat positions stay balanced."""
        width = max(self.sizes)
        counts = [list(seat_counts.get(p, ())) + [0] * width for p in self.players]
        counts = [row[:width] for row in counts]
        seated = []
        for tables in schedule:
            round_tables = []
            for table in tables:
                if len(table) <= 5:
                    best = min(
                        itertools.permutations(table),
                        key=lambda order: (
                            sum(counts[p][pos] for pos, p in enumerate(order)),
                            order,
                        ),
                    )
                else:
                    best = tuple(sorted(table, key=lambda p: counts[p][0]))
                for pos, p in enumerate(best):
                    counts[p][pos] += 1
                round_tables.append(tuple(self.players[p] for p in best))
            seated.append(round_tables)
        return seated


# Work is counted in swaps evaluated, never in seconds, so that the same input gives the
# same schedule on any machine; this many keep one schedule to a few seconds here.
EVALUATION_BUDGET = 6_000_000
# The quick search: the same search stopped after this much work (about a sixth of a
# second here), for a round wanted before the full search has run. Most fields end well
# within it; those that do not (10, 13, 14 and 17 at tables of four over five rounds)
# are searched again with the full budget in a task, which replaces the quick schedule
# while none of its rounds is generated.
QUICK_EVALUATION_BUDGET = 150_000


def _budget(n: int, rounds: int) -> int:
    return max(500, min(20_000, 400_000 // max(1, n)))


def plan(
    n_players: int,
    rounds: int,
    table_size: int = 4,
    seed: int = 0,
    *,
    quick: bool = False,
) -> Plan:
    """Schedule ``rounds`` rounds for players ``0 … n_players - 1``, with flags.

    The search is deterministic for its arguments; a stage computes its plan once, ahead
    of the rounds, and stores it (``round_robin.compute_schedule``).
    """
    return replan(list(range(n_players)), rounds, table_size=table_size, seed=seed, quick=quick)


def replan(
    players: Sequence[int],
    rounds: int,
    *,
    table_size: int = 4,
    seed: int = 0,
    met: Mapping[tuple[int, int], int] | None = None,
    seat_counts: Mapping[int, Sequence[int]] | None = None,
    short_counts: Mapping[int, int] | None = None,
    quick: bool = False,
    allowed: Sequence[int] | None = None,
) -> Plan:
    """Schedule the remaining rounds for ``players`` around meetings already played.

    ``quick`` stops the search after ``QUICK_EVALUATION_BUDGET``: the plan says whether
    that stopped it (``Plan.quick``); if not, it is the full search's plan exactly.
    """
    if table_size not in (2, 3, 4, 5, 6):
        raise PairingError(say("Table round robins seat two to six at a table."))
    if rounds < 1:
        raise PairingError(say("Plan at least one round."))
    players = list(players)
    if len(set(players)) != len(players):
        raise PairingError(say("A player is listed twice."))
    met = {_pair_key(a, b): count for (a, b), count in (met or {}).items() if count}
    n = len(players)
    rng = random.Random(f"table-round-robin:{n}:{rounds}:{table_size}:{seed}")
    flags: list[str] = []
    exact = None
    q = table_size
    if not met and n == q * q and rounds <= q + 1:
        exact = affine_plane(q)
    elif not met:
        exact = known_design(n, rounds, table_size)
    search = _Search(players, rounds, table_size, rng, met, short_counts or {}, allowed)
    if any(size != table_size for size in search.sizes):
        exact = None  # the designs seat full tables only
    if exact is not None:
        order = list(range(n))
        rng.shuffle(order)  # relabel so that seeds do not always sit together
        schedule = [[[order[p] for p in table] for table in exact[r]] for r in range(rounds)]
        for tables in schedule:
            search._apply(tables, +1)
    else:
        # More rounds than a design has: its rounds first, the search fills in the rest.
        prefix = (known_design(n, rounds, table_size, partial=True) or []) if not met else []
        if any(size != table_size for size in search.sizes):
            prefix = []
        order = list(range(n))
        if prefix:
            rng.shuffle(order)
        schedule = []
        for number in range(rounds):
            if number < len(prefix):
                tables = [[order[p] for p in table] for table in prefix[number]]
            else:
                tables = search.greedy_round()
            search._apply(tables, +1)
            schedule.append(tables)
        search.improve(
            schedule, _budget(n, rounds), QUICK_EVALUATION_BUDGET if quick else EVALUATION_BUDGET
        )
    seated = search.seat(schedule, seat_counts or {})
    repeats = count_repeats(seated, met)
    if repeats:
        floor = _repeat_floor(n, rounds, table_size, search.sizes.count(1))
        if repeats <= floor:
            flags.append(
                say("repeat meeting: unavoidable ({count} pair meetings repeat)", count=repeats)
            )
        else:
            flags.append(
                say(
                    "repeat meeting: not avoided by the search ({count} pair meetings repeat)",
                    count=repeats,
                )
            )
    if len(set(search.sizes)) > 1:
        short = sum(1 for size in search.sizes if size != search.full)
        flags.append(
            say(
                "short tables: {short} of {tables} each round",
                short=short,
                tables=len(search.sizes),
            )
        )
    return Plan(
        rounds=seated,
        repeats=repeats,
        flags=flags,
        quick=getattr(search, "cut", False),
        work=getattr(search, "evaluations", 0),
    )


def repeat_floor(
    players: Sequence[int],
    rounds: Iterable[Iterable[Sequence[int]]],
    met: Mapping[tuple[int, int], int] | None = None,
) -> int:
    """Repeats no schedule of these tables can avoid: the meetings a player has in them
    beyond the others left to meet (those not met before), halved."""
    present = set(players)
    known = dict.fromkeys(players, 0)
    for (a, b), count in (met or {}).items():
        if count and a in present and b in present:
            known[a] += 1
            known[b] += 1
    planned = dict.fromkeys(players, 0)
    for tables in rounds:
        for table in tables:
            for p in table:
                planned[p] += len(table) - 1
    left = len(present) - 1
    return sum(max(0, planned[p] - (left - known[p])) for p in players) // 2


def _repeat_floor(n: int, rounds: int, table_size: int, byes: int = 0) -> int:
    """A lower bound on repeats: each round a player meets table_size - 1 others, but in
    the rounds they sit out (``byes`` a round, rotated: at most their share, rounded up)."""
    playing = rounds - -(-rounds * byes // n) if byes else rounds
    per_player = playing * (table_size - 1) - (n - 1)
    return max(0, per_player * n // 2)


def schedule(
    n_players: int, rounds: int, table_size: int = 4, seed: int = 0
) -> list[list[tuple[int, ...]]]:
    """The rounds only: each a list of tables, each a tuple of player indices."""
    return plan(n_players, rounds, table_size=table_size, seed=seed).rounds

"""Resolvable designs for tables of four: schedules where no two players meet twice.

Each design is a list of rounds (parallel classes), each a list of tables of player
indices. The first two come from finite geometry and are found at first use by small
exact-cover searches (milliseconds, always the same answer), then kept; the third is
data computed once by a tool in ``tools/``:

- 28 players, 9 rounds: the Hermitian unital of order 3 (the points of x⁴ + y⁴ + z⁴ = 0
  in the projective plane over GF(9), blocks cut by its secant lines), resolved into
  parallel classes: everyone meets everyone exactly once.
- 40 players, 13 rounds: the lines of the projective space PG(3, 3) packed into 13
  spreads: everyone meets everyone exactly once.
- 32 players, 10 rounds: unions of translates in GF(2)⁵ (the social golfer problem's
  8-4-10 case), kept as data: no pair of players meets twice.

Pure Python: no Django, no ORM.
"""

import functools
import itertools
from collections.abc import Iterator, Sequence

Design = list[list[tuple[int, ...]]]


def _exact_covers(size: int, subsets: Sequence[frozenset[int]]) -> Iterator[list[int]]:
    """Every way to pick disjoint ``subsets`` (by index) that together cover 0 … size-1.

    Depth first, always branching on the element with the fewest candidates left.
    """
    containing: dict[int, list[int]] = {e: [] for e in range(size)}
    for index, subset in enumerate(subsets):
        for element in subset:
            containing[element].append(index)

    def walk(covered: frozenset[int], chosen: list[int]) -> Iterator[list[int]]:
        if len(covered) == size:
            yield list(chosen)
            return
        best: list[int] | None = None
        for element in range(size):
            if element in covered:
                continue
            options = [i for i in containing[element] if covered.isdisjoint(subsets[i])]
            if best is None or len(options) < len(best):
                best = options
                if len(options) <= 1:
                    break
        for index in best or ():
            chosen.append(index)
            yield from walk(covered | subsets[index], chosen)
            chosen.pop()

    yield from walk(frozenset(), [])


def _resolve(points: int, blocks: list[tuple[int, ...]]) -> Design:
    """Split ``blocks`` (each point in the same number of them) into parallel classes."""
    block_sets = [frozenset(block) for block in blocks]
    classes = [frozenset(c) for c in _exact_covers(points, block_sets)]
    resolution = next(_exact_covers(len(blocks), classes))
    return [sorted(blocks[b] for b in sorted(classes[c])) for c in resolution]


# --- 28: the Hermitian unital of order 3 -------------------------------------------------


def _gf9():
    """GF(9) as pairs (a, b) = a + b·i with i² = -1 over GF(3)."""
    elements = [(a, b) for a in range(3) for b in range(3)]

    def add(x, y):
        return ((x[0] + y[0]) % 3, (x[1] + y[1]) % 3)

    def mul(x, y):
        return ((x[0] * y[0] - x[1] * y[1]) % 3, (x[0] * y[1] + x[1] * y[0]) % 3)

    return elements, add, mul


def _projective_points(elements, dimension: int, one, zero) -> list[tuple]:
    """Vectors whose first non-zero coordinate is one: one per projective point."""
    found = []
    for vector in itertools.product(elements, repeat=dimension):
        leading = next((c for c in vector if c != zero), None)
        if leading == one:
            found.append(vector)
    return found


@functools.lru_cache(maxsize=1)
def hermitian_unital_28() -> Design:
    elements, add, mul = _gf9()
    zero, one = (0, 0), (1, 0)

    def fourth_power(x):
        return mul(mul(x, x), mul(x, x))

    def total(values):
        result = zero
        for value in values:
            result = add(result, value)
        return result

    plane = _projective_points(elements, 3, one, zero)
    unital = [p for p in plane if total(fourth_power(c) for c in p) == zero]
    blocks = set()
    for line in plane:  # a line is a point of the dual plane
        on = tuple(
            i
            for i, p in enumerate(unital)
            if total(mul(a, b) for a, b in zip(line, p, strict=True)) == zero
        )
        if len(on) == 4:
            blocks.add(on)
    return _resolve(len(unital), sorted(blocks))


# --- 40: a packing of PG(3, 3) -----------------------------------------------------------


@functools.lru_cache(maxsize=1)
def pg33_packing_40() -> Design:
    q = 3
    points = _projective_points(range(q), 4, 1, 0)
    index = {p: i for i, p in enumerate(points)}

    def normal(vector):
        leading = next(c for c in vector if c)
        inverse = pow(leading, -1, q)
        return tuple((c * inverse) % q for c in vector)

    lines = set()
    for a, b in itertools.combinations(points, 2):
        span = {
            normal(tuple((x * s + y * t) % q for x, y in zip(a, b, strict=True)))
            for s in range(q)
            for t in range(q)
            if s or t
        }
        lines.add(tuple(sorted(index[p] for p in span)))
    return _resolve(len(points), sorted(lines))


# --- 32: translates in GF(2)^5 ------------------------------------------------------------

# Players are the vectors of GF(2)^5 (0 … 31; XOR adds them). Each round is the union of
# the eight translates t ^ w (w = 0 … 7, the span of the three low bits) of its base
# tables, and in the ten rounds no two players meet twice: the social golfer problem's
# 8-4-10 case. The bases were computed by ``tools/golfer_32x10.py`` (a CP-SAT model
# whose variables are these translate orbits, about 2 s) and are kept here as data.
GOLFER_32_BASES = (
    ((0, 2, 4, 6), (8, 14, 18, 20), (24, 25, 30, 31)),
    ((0, 3, 24, 27), (8, 9, 10, 11), (16, 19, 20, 23)),
    ((0, 8, 22, 28),),
    ((0, 12, 21, 26),),
    ((0, 7, 9, 14), (16, 18, 25, 27)),
    ((0, 1, 18, 19), (8, 12, 25, 29)),
    ((0, 11, 20, 25),),
    ((0, 13, 16, 30),),
    ((0, 10, 17, 29),),
    ((0, 15, 23, 31),),
)


def translate_orbits(bases: Sequence[Sequence[int]], shifts: int = 8) -> list[tuple[int, ...]]:
    """The tables t ^ w for every base table t and every w below ``shifts``."""
    return sorted({tuple(sorted(p ^ w for p in base)) for base in bases for w in range(shifts)})


@functools.lru_cache(maxsize=1)
def golfer_32() -> Design:
    return [translate_orbits(bases) for bases in GOLFER_32_BASES]


DESIGNS = {28: hermitian_unital_28, 32: golfer_32, 40: pg33_packing_40}


def known_design(
    n_players: int, rounds: int, table_size: int, *, partial: bool = False
) -> Design | None:
    """A repeat-free schedule of ``rounds`` rounds from a design above, where one fits;
    with ``partial``, as many of those rounds as the design has."""
    if table_size != 4 or n_players not in DESIGNS:
        return None
    design = DESIGNS[n_players]()
    if len(design) >= rounds or partial:
        return design[:rounds]
    return None

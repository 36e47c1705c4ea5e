"""Resolvable designs for tables of four: schedules where no two players meet twice.

Each design is a list of rounds (parallel classes), each a list of tables of player
indices. The first two come from finite geometry and small exact-cover searches (always
the same answer): the first is found at first use (milliseconds) and kept, the second's
search takes about a second, too long for a round wanted at once, so its answer is kept
here as data (a test checks it is the search's); the third is data computed once by a
tool in ``tools/``:

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


def pg33_packing_40() -> Design:
    """The packing of PG(3, 3), kept as data: its search (``pg33_packing_search``) takes
    about a second, too long for a round wanted at once."""
    return [list(spread) for spread in PG33_PACKING_40]


@functools.lru_cache(maxsize=1)
def pg33_packing_search() -> Design:
    """The 13 spreads of PG(3, 3)'s lines, by the exact-cover search (the data below)."""
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


# The 13 spreads ``pg33_packing_search`` finds (always the same), each 10 lines of 4 points.
PG33_PACKING_40 = (
    (
        (0, 1, 2, 3),
        (4, 13, 22, 31),
        (5, 16, 26, 36),
        (6, 19, 30, 38),
        (7, 15, 27, 39),
        (8, 18, 28, 32),
        (9, 21, 23, 34),
        (10, 14, 29, 35),
        (11, 17, 24, 37),
        (12, 20, 25, 33),
    ),
    (
        (0, 4, 5, 6),
        (1, 13, 16, 19),
        (2, 22, 26, 30),
        (3, 31, 36, 38),
        (7, 17, 29, 32),
        (8, 20, 24, 34),
        (9, 14, 25, 39),
        (10, 21, 27, 33),
        (11, 15, 28, 35),
        (12, 18, 23, 37),
    ),
    (
        (0, 10, 11, 12),
        (1, 15, 18, 21),
        (2, 32, 36, 37),
        (3, 24, 26, 28),
        (4, 16, 25, 34),
        (5, 19, 29, 39),
        (6, 14, 22, 33),
        (7, 20, 23, 35),
        (8, 17, 30, 31),
        (9, 13, 27, 38),
    ),
    (
        (0, 7, 8, 9),
        (1, 14, 17, 20),
        (2, 31, 35, 39),
        (3, 23, 25, 30),
        (4, 18, 27, 36),
        (5, 21, 28, 38),
        (6, 13, 24, 32),
        (10, 16, 22, 37),
        (11, 19, 26, 33),
        (12, 15, 29, 34),
    ),
    (
        (0, 13, 14, 15),
        (1, 5, 8, 11),
        (2, 24, 25, 29),
        (3, 32, 34, 39),
        (4, 19, 28, 37),
        (6, 16, 27, 35),
        (7, 18, 30, 33),
        (9, 20, 22, 36),
        (10, 17, 23, 38),
        (12, 21, 26, 31),
    ),
    (
        (0, 16, 17, 18),
        (1, 4, 7, 10),
        (2, 33, 34, 38),
        (3, 22, 27, 29),
        (5, 14, 24, 31),
        (6, 20, 28, 39),
        (8, 19, 23, 36),
        (9, 15, 26, 37),
        (11, 21, 25, 32),
        (12, 13, 30, 35),
    ),
    (
        (0, 37, 38, 39),
        (1, 6, 9, 12),
        (2, 23, 27, 28),
        (3, 13, 18, 20),
        (4, 17, 26, 35),
        (5, 15, 22, 32),
        (7, 21, 24, 36),
        (8, 16, 29, 33),
        (10, 19, 25, 31),
        (11, 14, 30, 34),
    ),
    (
        (0, 31, 32, 33),
        (1, 23, 26, 29),
        (2, 15, 16, 20),
        (3, 5, 7, 12),
        (4, 21, 30, 39),
        (6, 17, 25, 36),
        (8, 14, 27, 37),
        (9, 19, 24, 35),
        (10, 13, 28, 34),
        (11, 18, 22, 38),
    ),
    (
        (0, 22, 23, 24),
        (1, 31, 34, 37),
        (2, 6, 7, 11),
        (3, 14, 16, 21),
        (4, 20, 29, 38),
        (5, 18, 25, 35),
        (8, 13, 26, 39),
        (9, 17, 28, 33),
        (10, 15, 30, 36),
        (12, 19, 27, 32),
    ),
    (
        (0, 25, 26, 27),
        (1, 32, 35, 38),
        (2, 13, 17, 21),
        (3, 6, 8, 10),
        (4, 15, 24, 33),
        (5, 20, 30, 37),
        (7, 19, 22, 34),
        (9, 18, 29, 31),
        (11, 16, 23, 39),
        (12, 14, 28, 36),
    ),
    (
        (0, 19, 20, 21),
        (1, 22, 25, 28),
        (2, 4, 8, 12),
        (3, 33, 35, 37),
        (5, 17, 27, 34),
        (6, 15, 23, 31),
        (7, 14, 26, 38),
        (9, 16, 30, 32),
        (10, 18, 24, 39),
        (11, 13, 29, 36),
    ),
    (
        (0, 28, 29, 30),
        (1, 33, 36, 39),
        (2, 5, 9, 10),
        (3, 15, 17, 19),
        (4, 14, 23, 32),
        (6, 18, 26, 34),
        (7, 13, 25, 37),
        (8, 21, 22, 35),
        (11, 20, 27, 31),
        (12, 16, 24, 38),
    ),
    (
        (0, 34, 35, 36),
        (1, 24, 27, 30),
        (2, 14, 18, 19),
        (3, 4, 9, 11),
        (5, 13, 23, 33),
        (6, 21, 29, 37),
        (7, 16, 28, 31),
        (8, 15, 25, 38),
        (10, 20, 26, 32),
        (12, 17, 22, 39),
    ),
)


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

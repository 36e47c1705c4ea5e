"""Resolvable designs for tables of four: schedules where no two players meet twice.

Each design is a list of rounds (parallel classes), each a list of tables of player
indices. They come from finite geometry and are found at first use by small exact-cover
searches (milliseconds, always the same answer), then kept:

- 28 players, 9 rounds: the Hermitian unital of order 3 (the points of x⁴ + y⁴ + z⁴ = 0
  in the projective plane over GF(9), blocks cut by its secant lines), resolved into
  parallel classes: everyone meets everyone exactly once.
- 40 players, 13 rounds: the lines of the projective space PG(3, 3) packed into 13
  spreads: everyone meets everyone exactly once.
- 32 players, up to 9 rounds: the cosets of nine 2-dimensional subspaces of GF(2)⁵ that
  pairwise meet only in zero (a partial line spread of PG(4, 2); nine is the most there
  are), so no pair of players meets twice.

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


# --- 32: flats of GF(2)^5 ------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def binary_flats_32() -> Design:
    subspaces = sorted(
        {frozenset((a, b, a ^ b)) for a in range(1, 32) for b in range(1, 32) if a != b}
    )
    subspaces = [s for s in subspaces if len(s) == 3]

    def spread(chosen: list[frozenset[int]], start: int) -> list[frozenset[int]] | None:
        if len(chosen) == 9:
            return chosen
        for i in range(start, len(subspaces)):
            if all(subspaces[i].isdisjoint(c) for c in chosen):
                found = spread([*chosen, subspaces[i]], i + 1)
                if found:
                    return found
        return None

    rounds = []
    for directions in spread([], 0) or []:
        a, b = sorted(directions)[:2]
        cosets = {tuple(sorted((x, x ^ a, x ^ b, x ^ a ^ b))) for x in range(32)}
        rounds.append(sorted(cosets))
    return rounds


DESIGNS = {28: hermitian_unital_28, 32: binary_flats_32, 40: pg33_packing_40}


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

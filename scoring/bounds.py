"""Every number a game accepts, with where its bound comes from. Pure Python.

Two kinds of bound meet here. A column's range is what the database can store: on
PostgreSQL a value outside it is not refused but wraps (4,294,967,306 stored as -10), so
nothing outside it may reach a write. A game's range is what the table can produce
(RULES.md and the engine); it is always the tighter one, and it is what a referee or an
organizer is told. Serializers, forms, rule-set overrides and the database's own check
constraints all read these names, so a bound changes in one place.
"""

# --- what the columns hold (Django's documented ranges, as PostgreSQL stores them) ----

SMALLINT_MAX = 2**15 - 1  # PositiveSmallIntegerField
INTEGER_MAX = 2**31 - 1  # IntegerField, PositiveIntegerField
ID_MAX = 2**63 - 1  # BigAutoField: every primary key

# --- one play ---------------------------------------------------------------------------

# RULES.md, "In-play points": with one set the largest sum of the open ends is 35. With
# two sets every tile exists twice, so four open ends can all show doubles (6-6, 6-6,
# 5-5, 5-5 = 44): the largest multiple of five is 40 (seed 003's two-box game).
MAX_PLAY_POINTS = {1: 35, 2: 40}
MOST_PLAY_POINTS = max(MAX_PLAY_POINTS.values())
PLAY_POINTS_STEP = 5  # in-play points are multiples of five (RULES.md)

# seed 003: stacking with a double takes double the previous play's points.
MOST_STEAL_POINTS = 2 * MOST_PLAY_POINTS

# Each tile played scores at most once, and no hand plays more tiles than the sets hold:
# 28 with one double-six set, 56 with two. So no hand has more in-play entries than
# that, in one request or added up over the hand.
MOST_TILES = 56

# --- one hand ---------------------------------------------------------------------------

# Every pip of two double-six sets (RULES.md, "Shared mechanics": 168 per set). The
# engine's own check is tighter, per rule set (``engine.hand_capacity``).
MOST_PIPS = 2 * 168

# No game to a few thousand points lasts ten thousand hands; hand numbers stay far
# inside their column.
FIRST_HAND, LAST_HAND = 1, 10_000

# A hand is corrected a handful of times; versions only need to fit their column.
MOST_VERSIONS = INTEGER_MAX

# --- rule sets ----------------------------------------------------------------------------

# Club games run to 100-250 (RULES.md presets); seed 003 names 100-200 as agreed
# targets. A few thousand leaves room for long house games and no more.
TARGET_RANGE = (25, 5_000)

# RULES.md leaves the deduction to the organizer (default 10). No penalty costs more
# than a long game is worth.
PENALTY_RANGE = (1, 500)
PENALTY_POINTS_RANGE = (0, PENALTY_RANGE[1])  # the rule field: 0 means "say it each time"


def whole_number(value) -> bool:
    """An int that is not a bool: what JSON and the engine call a whole number."""
    return isinstance(value, int) and not isinstance(value, bool)


def within(value, bounds: tuple[int, int]) -> bool:
    """``value`` is a whole number inside ``bounds`` (both ends included)."""
    low, high = bounds
    return whole_number(value) and low <= value <= high


def digits(text, bounds: tuple[int, int]) -> int | None:
    """The whole number a form or query parameter spells in ASCII digits, if inside
    ``bounds``; None otherwise (``str.isdigit`` also accepts "²", which ``int`` refuses)."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text or len(text) > 20 or not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if bounds[0] <= number <= bounds[1] else None

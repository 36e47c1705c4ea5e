"""Whole numbers as people type them into a form field or a query string."""

# The widest integer any column holds (PostgreSQL's bigint); beyond it nothing can be stored.
MAX_INTEGER = 2**63 - 1


def whole_number(text, *, maximum: int = MAX_INTEGER) -> int | None:
    """``text`` as a whole number from 0 to ``maximum``, or None if it is anything else.

    Only ASCII digits count: ``str.isdigit`` also accepts "²" and other digits that
    ``int`` then refuses or reads in a script nobody typed on purpose.
    """
    text = str(text if text is not None else "").strip()
    if not text or not text.isascii() or not text.isdecimal() or len(text) > 19:
        return None
    number = int(text)
    return number if number <= maximum else None

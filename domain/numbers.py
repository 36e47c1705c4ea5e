"""Whole numbers as people type them into a form field or a query string, and figures
as a reader writes them."""

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


def decimal_text(text: str) -> str:
    """A figure written with a point ("96.67") as the active language writes it ("96,67"
    in Spanish); a whole number or a word is left as it is."""
    from django.utils import formats

    sign = formats.get_format("DECIMAL_SEPARATOR")
    if sign == "." or not text or text.count(".") != 1:
        return text
    whole, _, part = text.partition(".")
    if not part.isdecimal() or not whole.lstrip("-").isdecimal():
        return text
    return f"{whole}{sign}{part}"

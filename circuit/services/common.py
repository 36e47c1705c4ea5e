"""What the circuit services share: their errors and the checks they borrow from
tournaments (a series' template is an event's settings, checked the same way)."""

from django.utils.text import slugify

from domain.errors import Conflict, UserError
from domain.numbers import whole_number


class CircuitError(UserError):
    """Input a series, rating or ladder action cannot carry out (400)."""


class CircuitConflict(CircuitError, Conflict):
    """The series, rating or ladder is not in a state that allows this (409)."""


def unique_slug(model, name: str, fallback: str) -> str:
    base = slugify(name)[:70] or fallback
    slug, n = base, 2
    while model.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def clean_name(name) -> str:
    return " ".join(str(name or "").split())


def bounded(value, low: int, high: int) -> int | None:
    """A whole number within [low, high] from a form or JSON value, else None."""
    number = whole_number(value)
    if number is None or not low <= number <= high:
        return None
    return number

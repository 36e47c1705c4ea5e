"""How a page answers a service's refusal, in one place for every page view.

The API answers every ``DomainError`` with one handler (``config.api``); a page has three
ways to say one, and each is written here once:

* ``refusals_said(request)``: a write whose refusal becomes an error message on the
  page the view goes back to (the usual "do it, then back to the list" post);
* ``refusals_in(form)``: a form whose refusal is shown beside the field it is about,
  or above the form;
* ``refusals_answered(answer)``: a view whose refusals all get the same answer, such as
  the scoring panel, which shows the problem and the game as it stands.

Each tells the message in the reader's language (``refusal_text``). Nothing here knows
an app: the views pass what to answer with.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps

from django.contrib import messages

from domain.errors import DomainError
from domain.i18n import told


def refusal_text(error: DomainError) -> str:
    """A refusal as a page says it: its message in the reader's language."""
    return told(error.message)


@dataclass
class Refused:
    """What a ``with`` block of this module was refused: ``error``, or None when the
    block went through."""

    error: DomainError | None = None

    def __bool__(self) -> bool:
        return self.error is not None

    @property
    def text(self) -> str:
        return refusal_text(self.error) if self.error is not None else ""


@contextmanager
def refusals_kept() -> Iterator[Refused]:
    """Run the block; a refusal it raises ends it and is kept (``refused.error``) for the
    view to show where it chooses."""
    refused = Refused()
    try:
        yield refused
    except DomainError as error:
        refused.error = error


@contextmanager
def refusals_said(request) -> Iterator[Refused]:
    """Run the block; a refusal it raises ends it and is said as an error message on the
    next page shown (the view goes back where it goes either way)."""
    with refusals_kept() as refused:
        yield refused
    if refused:
        messages.error(request, refused.text)


@contextmanager
def refusals_in(form) -> Iterator[Refused]:
    """Run the block; a refusal it raises ends it and is shown in ``form``: beside the
    field it is about when the form has that field, above the form otherwise."""
    with refusals_kept() as refused:
        yield refused
    if refused:
        field = refused.error.field
        form.add_error(field if field in form.fields else None, refused.text)


def refusals_answered(answer: Callable[..., object]) -> Callable:
    """A page view's decorator: a refusal the view raises is answered by
    ``answer(request, error, *args, **kwargs)`` with the view's own arguments."""

    def decorate(view):
        @wraps(view)
        def answered(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except DomainError as error:
                return answer(request, error, *args, **kwargs)

        return answered

    return decorate

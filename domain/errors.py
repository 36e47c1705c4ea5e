"""The ways a service refuses a request, whatever app it lives in.

A ``UserError`` is input that cannot be carried out as given (the API answers 400); a
``Conflict`` is a request that the state of things forbids right now (409); ``TooMany``
is one more try after too many wrong ones (429, with when to try again). Each app's
own errors subclass one of them, so one exception handler answers them all in the
documented shape and no view has to catch them.
"""

from collections.abc import Callable

NON_FIELD = "non_field_errors"


class DomainError(Exception):
    """A refusal told in a person's words, with the field at fault."""

    def __init__(self, message: str, field: str = NON_FIELD):
        super().__init__(message)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return str(self.message)

    def body(self, tell: Callable[[str], str]) -> dict:
        """The refusal as the API documents it, each message told through ``tell``."""
        message = tell(self.message)
        return {"detail": message, "errors": {self.field: [message]}}


class UserError(DomainError, ValueError):
    """Input that cannot be carried out as given: the caller should change it."""


class Conflict(DomainError):
    """The request is fine, but the current state forbids it (finished, stale, taken)."""


class TooMany(DomainError):
    """Too many wrong tries of something guessable: refused, whatever is given, until
    ``retry_after`` seconds have passed."""

    def __init__(self, message: str, field: str = NON_FIELD, *, retry_after: int):
        super().__init__(message, field)
        self.retry_after = retry_after

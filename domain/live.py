"""The one live answer: what changed for this viewer since what they hold.

Every reader of a live part asks ``live_answer(question, viewer)``: the tournament page's
poll, its stream's feeds, the hall screen, the standings API's kept answer and a game's
own page. The question's type says who answers it. Each app registers the answerer of
its own questions in its ``AppConfig.ready`` (``register(Question, answer)``): the entry
point sits in the lowest layer and knows no app, so a game played outside any event is
answered by scoring alone, and a tournament's live state by tournaments. A question of a
type nobody registered is a programming error and raises.

An answerer takes the question and the viewer, and the reader's own options as keywords
(the tournament's answer takes ``kept`` and ``database``); it returns its own answer, or
None when the viewer may not see what the question is about.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser


def signed_in(request) -> bool:
    """Whether the request may belong to someone signed in, told without a query: the
    live parts' answers kept for everyone go only to requests without a session."""
    return settings.SESSION_COOKIE_NAME in request.COOKIES


@dataclass(frozen=True)
class Viewer:
    """Who asks: the user, and whether the request may belong to someone signed in (told
    without a query: a session cookie). ``drafts``: whether what is still in draft is
    shown to those who may see it (a tournament's staff; the hall screen never shows it)."""

    user: object = AnonymousUser()
    signed_in: bool = False
    drafts: bool = True

    @classmethod
    def of(cls, request, *, drafts: bool = True) -> "Viewer":
        return cls(request.user, signed_in(request), drafts)

    @property
    def public(self) -> bool:
        """Whether this viewer sees the public view for sure, without asking who they are."""
        return not (self.signed_in and self.drafts)


Answerer = Callable[..., Any]

# The answerer of each type of question, as the apps registered them.
_answerers: dict[type, Answerer] = {}


class UnansweredQuestion(LookupError):
    """A question of a type no app registered an answerer for."""


def register(kind: type, answerer: Answerer) -> None:
    """``answerer`` answers the questions of type ``kind`` (from an app's ``ready``; the
    same pair again changes nothing, another answerer for the same type is refused)."""
    known = _answerers.get(kind)
    if known is not None and known is not answerer:
        raise ValueError(f"{kind.__qualname__} is already answered by {known.__qualname__}.")
    _answerers[kind] = answerer


def answerer_of(kind: type) -> Answerer:
    """The answerer registered for questions of type ``kind``."""
    try:
        return _answerers[kind]
    except KeyError:
        raise UnansweredQuestion(
            f"No live answerer for {kind.__qualname__}: its app registers one in ready()."
        ) from None


def live_answer(question, viewer: Viewer, **how) -> Any:
    """What changed for ``viewer`` since what ``question`` holds, as the answerer of the
    question's type tells it (``how``: that answerer's own options); None when the viewer
    may not see what it is about."""
    return answerer_of(type(question))(question, viewer, **how)

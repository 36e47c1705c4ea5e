"""The one live answer (domain.live): each question is answered by the answerer its app
registered for its type, and a question nobody answers is refused loudly."""

from dataclasses import dataclass

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory

from domain import live
from domain.live import UnansweredQuestion, Viewer, live_answer
from scoring.live import GameQuestion, answer_game
from tournaments.read.answers import Question, answer_tournament


@dataclass(frozen=True)
class Asked:
    what: str


@pytest.fixture
def registry(monkeypatch):
    """The registry as the apps left it, restored after the test."""
    monkeypatch.setattr(live, "_answerers", dict(live._answerers))
    return live._answerers


def test_the_apps_register_the_answer_to_each_of_their_questions():
    assert live.answerer_of(Question) is answer_tournament
    assert live.answerer_of(GameQuestion) is answer_game


def test_a_registered_answerer_is_what_answers(registry):
    def answer(question, viewer, **how):
        return (question.what, viewer.drafts, how)

    live.register(Asked, answer)
    assert live_answer(Asked("the tables"), Viewer(drafts=False)) == ("the tables", False, {})
    # The reader's own options reach the answerer as they were given.
    assert live_answer(Asked("x"), Viewer(), kept=False) == ("x", True, {"kept": False})


def test_a_question_nobody_answers_is_refused(registry):
    with pytest.raises(UnansweredQuestion, match="Asked"):
        live_answer(Asked("anything"), Viewer())

    @dataclass(frozen=True)
    class Narrower(GameQuestion):
        pass

    # An answerer answers its own type, not the types made from it.
    with pytest.raises(UnansweredQuestion):
        live_answer(Narrower(1), Viewer())


def test_a_type_keeps_the_answerer_it_was_given(registry):
    def first(question, viewer):
        return "first"

    live.register(Asked, first)
    live.register(Asked, first)  # the same again, as a second ready() would
    with pytest.raises(ValueError, match="already answered"):
        live.register(Asked, lambda question, viewer: "second")
    assert live_answer(Asked("x"), Viewer()) == "first"


def test_a_viewer_of_a_request_is_signed_in_only_with_a_session_cookie():
    bare = RequestFactory().get("/")
    bare.user = AnonymousUser()
    cookie = RequestFactory().get("/")
    cookie.user = AnonymousUser()
    cookie.COOKIES[settings.SESSION_COOKIE_NAME] = "anything"
    assert Viewer.of(bare) == Viewer(bare.user, signed_in=False, drafts=True)
    assert Viewer.of(bare).public
    assert not Viewer.of(cookie).public
    # A view that never shows drafts is the public one whoever asks.
    assert Viewer.of(cookie, drafts=False).public

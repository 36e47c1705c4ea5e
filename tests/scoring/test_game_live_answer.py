"""A game's live part answered by the one live answer (scoring.live through domain.live):
one cache read while the game is unchanged and everyone may see it, private and held
games never kept, the part rendered once per revision and language."""

from unittest import mock

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from domain import live
from domain.live import Viewer, live_answer
from scoring import live as game_live
from scoring.live import GameAnswer, GameQuestion, answer_game
from scoring.receivers import live_key
from scoring.services import create_game
from tests.factories import PlayerFactory, UserFactory, start_game
from tests.tournaments import test_live

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def owner():
    return UserFactory(username="owner")


def a_game(owner, *, public: bool = True):
    """A game played outside any event, refereed by its owner."""
    return start_game(by=owner, public=public, referee=owner)


def one_hand(game, by, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        test_live.one_hand(game, by)
    game.refresh_from_db()


def test_scoring_registers_the_answer_to_a_game_question():
    assert live.answerer_of(GameQuestion) is answer_game


def test_the_game_page_and_its_poll_ask_the_registered_answerer(client, owner, monkeypatch):
    game = a_game(owner)
    asked = []

    def stand_in(question, viewer):
        asked.append((question, viewer))
        return GameAnswer(question.game_id, "7", "<section>stand-in</section>", None, False)

    monkeypatch.setitem(live._answerers, GameQuestion, stand_in)
    response = client.get(f"/games/{game.pk}/?since=3", **HTMX)
    assert response.content == b"<section>stand-in</section>"
    assert response["ETag"] == f'"game-{game.pk}-7"'
    question, viewer = asked[0]
    assert question == GameQuestion(game.pk, "3")
    assert not viewer.signed_in and not viewer.user.is_authenticated
    # The whole page asks for the state alone; it renders the sheet itself.
    monkeypatch.setitem(live._answerers, GameQuestion, lambda question, viewer: None)
    assert client.get(f"/games/{game.pk}/").status_code == 404


def test_an_unchanged_public_game_is_answered_from_one_cache_read(client, owner):
    game = a_game(owner)
    assert client.get(f"/games/{game.pk}/").status_code == 200  # keeps the revision
    question = GameQuestion(game.pk, str(game.revision))
    with (
        CaptureQueriesContext(connection) as queries,
        mock.patch.object(game_live.cache, "get", wraps=cache.get) as reads,
    ):
        answer = live_answer(question, Viewer())
    assert len(queries) == 0
    assert reads.call_count == 1
    assert answer.from_cache and answer.html is None and answer.game is None
    polled = client.get(f"/games/{game.pk}/?since={game.revision}", **HTMX)
    assert polled.status_code == 204 and "ETag" not in polled


def test_a_changed_game_is_rendered_once_per_revision_and_language(
    client, owner, django_capture_on_commit_callbacks
):
    game = a_game(owner)
    held = str(game.revision)
    one_hand(game, owner, django_capture_on_commit_callbacks)
    url = f"/games/{game.pk}/?since={held}"
    with mock.patch.object(game_live, "render_to_string", wraps=game_live.render_to_string) as r:
        first = client.get(url, **HTMX)
        again = client.get(url, **HTMX)
        assert r.call_count == 1
        spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es", **HTMX)
        assert r.call_count == 2
    assert first.status_code == 200 and again.content == first.content
    assert first["ETag"] == f'"game-{game.pk}-{game.revision}"'
    assert spanish.content != first.content
    with translation.override("en"):
        answer = answer_game(GameQuestion(game.pk, held), Viewer())
    assert answer.html == first.content.decode() and answer.revision == str(game.revision)
    # Once it holds the revision now, the poll is told nothing changed.
    assert client.get(f"/games/{game.pk}/?since={game.revision}", **HTMX).status_code == 204


def test_a_private_game_is_never_kept_and_is_not_answered_to_others(client, owner):
    game = a_game(owner, public=False)
    owned = answer_game(GameQuestion(game.pk, "0"), Viewer(owner, signed_in=True))
    assert owned is not None and owned.game == game
    assert cache.get(live_key(game.pk)) is None
    assert answer_game(GameQuestion(game.pk, str(game.revision)), Viewer()) is None
    assert client.get(f"/games/{game.pk}/?since={game.revision}", **HTMX).status_code == 404
    client.force_login(owner)
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200 and page["ETag"] == f'"game-{game.pk}-{game.revision}"'
    with CaptureQueriesContext(connection) as queries:
        polled = client.get(f"/games/{game.pk}/?since={game.revision}", **HTMX)
    assert polled.status_code == 204
    assert len(queries) > 0  # checked against the database, every time
    assert cache.get(live_key(game.pk)) is None


def test_a_held_game_is_never_kept_for_its_pollers(client, owner):
    seats = [PlayerFactory() for _ in range(4)]
    game = create_game(ruleset_key="cutthroat", seats=seats, by=owner, held=True)
    answer = answer_game(GameQuestion(game.pk, ""), Viewer(owner, signed_in=True))
    assert answer is not None and answer.html is not None  # its owner sees it
    assert cache.get(live_key(game.pk)) is None
    assert client.get(f"/games/{game.pk}/?since={game.revision}", **HTMX).status_code == 404


def test_a_game_changed_is_forgotten_by_its_pollers(
    client, owner, django_capture_on_commit_callbacks
):
    game = a_game(owner)
    client.get(f"/games/{game.pk}/")
    assert cache.get(live_key(game.pk)) == str(game.revision)
    held = str(game.revision)
    one_hand(game, owner, django_capture_on_commit_callbacks)
    assert cache.get(live_key(game.pk)) is None
    answer = live_answer(GameQuestion(game.pk, held), Viewer())
    assert not answer.from_cache and answer.html is not None
    assert cache.get(live_key(game.pk)) == str(game.revision)


def test_no_such_game_is_answered_none():
    assert live_answer(GameQuestion(999_999, "1"), Viewer()) is None

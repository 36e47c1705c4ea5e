"""Writes that refuse an outsider before reading the body: a bad body must not tell an
outsider more than "not yours" (the access walk's findings, one test each)."""

import pytest

from scoring.services import start_game
from tests.factories import PlayerFactory, UserFactory, client_for

pytestmark = pytest.mark.django_db


def test_recording_a_hand_refuses_a_non_referee_before_reading_the_body():
    referee = UserFactory()
    public = start_game(
        ruleset_key="cutthroat", seats=[PlayerFactory() for _ in range(4)], referees=[referee]
    )
    private = start_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory() for _ in range(4)],
        referees=[referee],
        public=False,
    )
    outsider = client_for(UserFactory())

    assert outsider.post(f"/api/v1/games/{public.pk}/hands/", {}, format="json").status_code == 403
    assert outsider.post(f"/api/v1/games/{private.pk}/hands/", {}, format="json").status_code == 404
    assert (
        client_for(None).post(f"/api/v1/games/{private.pk}/hands/", {}, format="json").status_code
        == 404
    )
    assert (
        client_for(referee).post(f"/api/v1/games/{public.pk}/hands/", {}, format="json").status_code
        == 400
    )

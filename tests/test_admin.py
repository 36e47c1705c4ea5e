"""The admin pages open for a superuser."""

import pytest

from tests.factories import SuperuserFactory, start_game


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/admin/",
        "/admin/scoring/game/",
        "/admin/scoring/hand/",
        "/admin/scoring/scoreevent/",
        "/admin/players/player/",
        "/admin/accounts/idempotencykey/",
    ],
)
def test_admin_lists_open(client, path):
    start_game("cutthroat", 4)
    client.force_login(SuperuserFactory())
    assert client.get(path).status_code == 200


@pytest.mark.django_db
def test_admin_game_page_opens(client):
    game = start_game("partners", 4)
    client.force_login(SuperuserFactory())
    assert client.get(f"/admin/scoring/game/{game.pk}/change/").status_code == 200

"""config/middleware.py: a NUL character in a query string or a page's form is a 400."""

import pytest
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db


def test_a_nul_in_a_page_form_is_refused_and_nothing_is_registered(client):
    organizer = UserFactory(username="organizer")
    tournament, _ = make_event(organizer, slug="copa")
    before = Entrant.objects.filter(tournament=tournament).count()
    client.force_login(organizer)
    response = client.post("/t/copa/manage/register/", {"text": "Ana\x00\nBeto"})
    assert response.status_code == 400
    assert "NUL" in response.content.decode()
    assert Entrant.objects.filter(tournament=tournament).count() == before


def test_a_nul_in_a_form_field_name_is_refused(client):
    assert client.post("/accounts/login/", {"user\x00name": "ana"}).status_code == 400


def test_a_nul_in_a_query_string_is_refused_on_pages_and_on_the_api(client):
    organizer = UserFactory(username="organizer")
    make_event(organizer, slug="copa")
    assert client.get("/t/copa/", {"stage": "1\x00"}).status_code == 400
    response = APIClient().get("/api/v1/tournaments/copa/standings/", {"stage": "\x00"})
    assert response.status_code == 400
    assert response.json() == {"detail": "Text may not contain NUL characters.", "errors": {}}


def test_the_api_takes_json_only_so_a_form_body_is_refused_whole():
    client = APIClient()
    client.force_authenticate(UserFactory())
    for body in ({"name": "Copa\x00", "ruleset": "dcs"}, {"name": "Copa", "ruleset": "dcs"}):
        response = client.post("/api/v1/tournaments/", body, format="multipart")
        assert response.status_code == 415
        assert response.json()["detail"]
    nul = client.post("/api/v1/tournaments/", {"name": "Copa\x00", "ruleset": "dcs"})
    assert nul.status_code == 400 and "NUL" in nul.json()["detail"]


def test_ordinary_text_passes(client):
    organizer = UserFactory(username="organizer")
    make_event(organizer, slug="copa")
    assert client.get("/t/copa/", {"stage": "1"}).status_code == 200

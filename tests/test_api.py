"""config/api.py: every refusal and failure on the API answers the documented JSON shape."""

import pytest
from django.db import DataError, IntegrityError
from django.test import Client
from rest_framework.test import APIClient

from config.api import exception_handler
from domain.errors import Conflict, UserError
from domain.say import say
from scoring.api.views import RulesetListView
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def broken(*args, **kwargs):
    raise RuntimeError("a bug")


def test_an_unexpected_failure_on_the_api_answers_json(monkeypatch):
    monkeypatch.setattr(RulesetListView, "get", broken)
    response = APIClient(raise_request_exception=False).get("/api/v1/rulesets/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "detail": "Something went wrong on our side; try again.",
        "errors": {},
    }


def test_an_unexpected_failure_on_a_page_keeps_the_html_page(monkeypatch):
    monkeypatch.setattr("tournaments.read.selectors.visible_tournaments", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_the_server_error_is_told_in_the_request_language(monkeypatch):
    monkeypatch.setattr(RulesetListView, "get", broken)
    response = APIClient(raise_request_exception=False).get(
        "/api/v1/rulesets/", HTTP_ACCEPT_LANGUAGE="es"
    )
    assert response.status_code == 500
    assert response.json()["detail"] == "Algo falló de nuestro lado; inténtelo de nuevo."


@pytest.mark.parametrize("authenticated", [False, True])
def test_a_body_over_the_upload_limit_is_a_json_413(settings, authenticated):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    client = APIClient(raise_request_exception=False)
    if authenticated:
        client.force_authenticate(UserFactory())
    body = {"ended": "block", "pips": {"A": 1, "B": 2, "C": 3}, "note": "x" * 5_000}
    response = client.post(
        "/api/v1/rulesets/cutthroat/score/", body, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "The request is too large.", "errors": {}}


def test_a_form_over_the_upload_limit_on_a_page_is_not_json(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    response = Client(raise_request_exception=False).post(
        "/accounts/login/", {"username": "x" * 5_000, "password": "y"}
    )
    assert response.status_code == 400
    assert not response["Content-Type"].startswith("application/json")


def test_an_unknown_api_path_is_a_json_404():
    response = APIClient().get("/api/v1/nothing-here/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "errors": {}}


def test_an_unknown_page_keeps_the_html_404():
    response = Client().get("/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_user_error_is_a_400_naming_its_field():
    response = exception_handler(UserError(say("Seat {seat} is empty.", seat="B"), "pips"), {})
    assert response.status_code == 400
    assert response.data == {"detail": "Seat B is empty.", "errors": {"pips": ["Seat B is empty."]}}


def test_a_conflict_is_a_409():
    response = exception_handler(Conflict(say("The round has started.")), {})
    assert response.status_code == 409
    assert response.data["errors"] == {"non_field_errors": ["The round has started."]}


def test_a_view_renames_the_field_and_adds_details():
    class View:
        def refusal_field(self, error):
            return "seats"

        def refusal_details(self, error):
            return {"game": {"id": 7}}

    response = exception_handler(UserError("Too few players.", "players"), {"view": View()})
    assert response.data == {
        "detail": "Too few players.",
        "errors": {"seats": ["Too few players."]},
        "game": {"id": 7},
    }


def test_a_value_the_database_refuses_is_a_400_not_a_500():
    response = exception_handler(DataError("integer out of range"), {})
    assert response.status_code == 400
    assert set(response.data) == {"detail", "errors"}
    assert response.data["errors"]["non_field_errors"]


def test_a_row_the_database_refuses_is_a_409_and_logged(caplog):
    response = exception_handler(IntegrityError("duplicate key"), {})
    assert response.status_code == 409
    assert (
        response.data["detail"] == "This clashes with what is already stored; nothing was changed."
    )
    assert "refused" in caplog.text


@pytest.mark.postgres
@pytest.mark.parametrize("seed", [2**31, 2**32 + 5, 2**63 - 1])
def test_numbers_a_column_cannot_hold_never_end_in_a_500_on_postgresql(seed):
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(UserFactory())
    created = client.post("/api/v1/tournaments/", {"name": "Copa", "ruleset": "dcs"}, format="json")
    slug = created.json()["slug"]
    for body in ({"name": "Ana", "seed": seed}, {"name": "Ana\x00"}):
        response = client.post(f"/api/v1/tournaments/{slug}/entrants/", body, format="json")
        # Whether a number fits its column is the fields' to say (a 400); it must never
        # reach the caller as a server error.
        assert response.status_code < 500
        if response.status_code >= 400:
            assert set(response.json()) >= {"detail", "errors"}

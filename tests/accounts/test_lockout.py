"""Repeated wrong passwords lock a login out (django-axes), with a page that says why."""

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"


@pytest.fixture
def ana(settings):
    settings.AXES_FAILURE_LIMIT = 3
    return UserFactory(username="ana", password=PASSWORD)


def attempt(username, password, *, address="203.0.113.7", path="/accounts/login/", lang="en"):
    client = Client(REMOTE_ADDR=address, HTTP_ACCEPT_LANGUAGE=lang)
    response = client.post(path, {"username": username, "password": password})
    return client, response


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_wrong_passwords_lock_out_even_the_right_one(ana):
    for _ in range(2):
        _, response = attempt("ana", "guess")
        assert response.status_code == 200  # the form again, with its error
    _, third = attempt("ana", "guess")
    assert third.status_code == 429
    client, right = attempt("ana", PASSWORD)
    assert right.status_code == 429
    assert not signed_in(client)
    page = right.content.decode()
    assert "Logging in is locked after 3 wrong passwords." in page
    assert "Try again in 60 minutes" in page


def test_the_lock_out_page_speaks_the_visitors_language(ana):
    for _ in range(3):
        attempt("ana", "guess")
    _, response = attempt("ana", PASSWORD, lang="es")
    assert response.status_code == 429
    assert "contraseñas equivocadas" in response.content.decode()


def test_others_are_unaffected_and_forging_forwarded_for_does_not_help(ana):
    UserFactory(username="beto", password=PASSWORD)
    for _ in range(3):
        attempt("ana", "guess", address="203.0.113.7")
    # Ana stays locked at that address whatever it claims to forward.
    client = Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert (
        client.post("/accounts/login/", {"username": "ana", "password": PASSWORD}).status_code
        == 429
    )
    # Another referee behind the same venue address, and Ana from her own, still log in.
    beto, response = attempt("beto", PASSWORD, address="203.0.113.7")
    assert response.status_code == 302 and signed_in(beto)
    own, response = attempt("ana", PASSWORD, address="198.51.100.3")
    assert response.status_code == 302 and signed_in(own)


def test_the_admin_login_is_locked_out_too(ana):
    ana.is_staff = True
    ana.save()
    for _ in range(3):
        attempt("ana", "guess", path="/admin/login/")
    client, response = attempt("ana", PASSWORD, path="/admin/login/")
    assert response.status_code == 429
    assert not signed_in(client)


@pytest.mark.parametrize(
    ("command", "args"),
    [("axes_reset", []), ("axes_reset_username", ["ana"]), ("axes_reset_ip", ["203.0.113.7"])],
)
def test_the_unlock_commands_let_the_right_password_in(ana, command, args):
    for _ in range(3):
        attempt("ana", "guess")
    assert attempt("ana", PASSWORD)[1].status_code == 429
    call_command(command, *args)
    client, response = attempt("ana", PASSWORD)
    assert response.status_code == 302
    assert signed_in(client)


def test_a_success_forgets_earlier_failures(ana):
    for _ in range(2):
        attempt("ana", "guess")
    assert attempt("ana", PASSWORD)[1].status_code == 302
    for _ in range(2):
        attempt("ana", "guess")
    assert attempt("ana", PASSWORD)[1].status_code == 302


def test_api_tokens_keep_working_for_a_locked_out_account(ana):
    for _ in range(3):
        attempt("ana", "guess")
    token = Token.objects.create(user=ana)
    api = APIClient(REMOTE_ADDR="203.0.113.7")
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api.get("/api/v1/games/")
    assert response.status_code == 200
    assert response.wsgi_request.user == ana

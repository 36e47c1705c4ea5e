"""Repeated wrong passwords lock a login out (django-axes), with a page that says why."""

import http.client
import re
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests import test_wsgi
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


# --- under the production servers ----------------------------------------------------------


@pytest.fixture(scope="module")
def production_env(tmp_path_factory):
    """The README's production environment, migrated once for the servers below, with
    the lock-out after three wrong passwords."""
    return test_wsgi.prepared(tmp_path_factory.mktemp("lockout"), AXES_FAILURE_LIMIT="3")


class Browser:
    """A visitor of a running server, keeping its cookies by hand (the production
    cookies are Secure, and the test speaks plain HTTP)."""

    def __init__(self, base: str):
        self.address = urlsplit(base).netloc
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: str = "", headers=None):
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if body:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection(self.address, timeout=20)
        try:
            connection.request(method, path, body=body, headers={**sent, **(headers or {})})
            response = connection.getresponse()
            page = response.read().decode()
        finally:
            connection.close()
        for value in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(value).items():
                self.cookies[name] = morsel.value
        return response.status, page

    def log_in(self, username: str, password: str, forwarded: str) -> int:
        """The login form sent as a browser would, claiming to forward ``forwarded``."""
        _, form = self.request("GET", "/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        fields = {"username": username, "password": password, "csrfmiddlewaretoken": token}
        status, _ = self.request(
            "POST", "/accounts/login/", urlencode(fields), {"X-Forwarded-For": forwarded}
        )
        return status


@pytest.mark.gunicorn
@pytest.mark.parametrize("server", ["gunicorn", "uvicorn"])
def test_the_lock_out_holds_under_each_production_server_whatever_is_forwarded(
    production_env, tmp_path, server
):
    username = f"ana-{server}"
    test_wsgi.manage(
        {**production_env, "DJANGO_SUPERUSER_PASSWORD": PASSWORD},
        *("createsuperuser", "--noinput", "--username", username, "--email", "a@example.org"),
    )
    port = test_wsgi.free_port()
    command = test_wsgi.gunicorn(port) if server == "gunicorn" else test_wsgi.readme_uvicorn(port)
    with test_wsgi.serving(command, port, production_env, tmp_path / "server.log") as base:
        # Each wrong password claims another address: with no proxy in front (NUM_PROXIES
        # 0) the claims count for nothing, and the three failures share one address.
        tries = [Browser(base).log_in(username, "guess", forwarded=f"10.0.0.{n}") for n in range(3)]
        assert tries == [200, 200, 429]
        assert Browser(base).log_in(username, PASSWORD, forwarded="10.0.0.99") == 429
        assert Browser(base).log_in(username, PASSWORD, forwarded="") == 429

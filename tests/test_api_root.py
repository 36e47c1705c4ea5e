"""The API root, the OpenAPI schema and the docs page, all served locally."""

import re

import pytest

from tests.factories import UserFactory


@pytest.mark.django_db
def test_api_root_lists_schema_and_docs(client):
    response = client.get("/api/v1/")
    assert response.status_code == 200
    body = response.json()
    assert body["schema"].endswith("/api/schema/")
    assert body["docs"].endswith("/api/docs/")


@pytest.mark.django_db
def test_schema_is_openapi_3(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "capicu API"


@pytest.mark.django_db
def test_docs_page_loads_swagger_from_our_own_static_files(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    # Every address the page loads is our own: no CDN, no other host. (Checked per
    # address: the page also carries a random CSRF token, which may spell anything.)
    addresses = re.findall(r"""(?:src|href)=["']([^"']+)["']|["'](https?://[^"']+)["']""", html)
    loaded = [a or b for a, b in addresses]
    assert loaded and all(url.startswith("/") and not url.startswith("//") for url in loaded)
    assert not any("cdn" in url.lower() for url in loaded)
    assert "/static/drf_spectacular_sidecar/" in html


@pytest.mark.django_db
def test_unknown_api_path_is_json_404(client):
    response = client.get("/api/v1/nothing-here/")
    assert response.status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    "url", ["/api/v1/ratings/", "/api/v1/ratings/x/y/", "/api/nothing/", "/api/", "/api/v2/"]
)
def test_every_unknown_api_path_answers_a_json_404(client, settings, debug, url):
    # Also with DEBUG on, where Django would otherwise show its own HTML page.
    settings.DEBUG = debug
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"] == "No encontrado."


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_to_an_unknown_api_path_is_a_json_404_without_a_csrf_token(method):
    from django.test import Client

    # A browser session without its CSRF token: still told "not found", in JSON.
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory())
    response = getattr(client, method)("/api/v1/players/null,null/merge/", {"other": 1})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_an_api_path_without_its_slash_still_moves_to_it(client):
    response = client.get("/api/v1/games")
    assert response.status_code == 301 and response["Location"] == "/api/v1/games/"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/series/a.b/standings.csv",
        "/api/v1/tournaments/%C3%B1%20x/export/entrants.csv",
        "/api/v1/nothing",
    ],
)
def test_an_api_path_that_matches_no_route_is_not_found_at_once(client, url):
    # Not moved to the same path with a slash, which names nothing either.
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"


def test_schema_generates_without_warnings():
    import subprocess
    import sys
    from pathlib import Path

    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "spectacular",
            "--validate",
            "--fail-on-warn",
            "--file",
            "/dev/null",
        ],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr

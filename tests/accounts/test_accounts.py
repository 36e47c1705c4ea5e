"""Tokens, logins and stored Idempotency-Key answers."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.idempotency import fingerprint, purge
from accounts.models import IdempotencyKey
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()


def test_referee_token_prints_a_stable_token():
    user = UserFactory(username="ana")
    key = run("referee_token", "ana")
    assert key == Token.objects.get(user=user).key
    assert run("referee_token", "ana") == key


def test_referee_token_revokes_and_rotates():
    UserFactory(username="ana")
    first = run("referee_token", "ana")
    assert run("referee_token", "ana", "--rotate") != first
    assert run("referee_token", "ana", "--revoke") == "Revoked ana's token."
    assert not Token.objects.exists()


def test_referee_token_creates_a_user_only_when_asked():
    with pytest.raises(CommandError, match="no user 'beto'"):
        run("referee_token", "beto")
    assert len(run("referee_token", "beto", "--create-user")) == 40


def test_a_revoked_token_no_longer_writes(client):
    user = UserFactory(username="ana")
    key = run("referee_token", "ana")
    response = client.post(
        "/api/v1/games/",
        {"ruleset": "dcs", "seats": ["a", "b", "c", "d"]},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {key}",
    )
    assert response.status_code == 201
    run("referee_token", user.username, "--revoke")
    response = client.post(
        "/api/v1/games/",
        {"ruleset": "dcs", "seats": ["a", "b", "c", "d"]},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {key}",
    )
    assert response.status_code == 401


def test_fingerprint_ignores_key_order_but_not_values():
    a = fingerprint("POST", "/x/", b'{"a": 1, "b": 2}')
    assert a == fingerprint("POST", "/x/", b'{"b": 2, "a": 1}')
    assert a != fingerprint("POST", "/x/", b'{"a": 1, "b": 3}')
    assert a != fingerprint("PUT", "/x/", b'{"a": 1, "b": 2}')


def test_keys_are_kept_a_day_then_purged():
    user = UserFactory()
    old = IdempotencyKey.objects.create(
        user=user, key="old", fingerprint="f", status_code=201, response={}
    )
    IdempotencyKey.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=25))
    IdempotencyKey.objects.create(
        user=user, key="new", fingerprint="f", status_code=201, response={}
    )
    assert purge() == 1
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["new"]
    assert run("purge_idempotency_keys") == "Deleted 0 key(s)."
    with pytest.raises(CommandError):
        run("purge_idempotency_keys", "--hours", "2")


def test_login_page_signs_a_referee_in(client):
    UserFactory(username="ana")
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert b'<label for="id_username">' in page.content
    response = client.post(
        "/accounts/login/", {"username": "ana", "password": "correct-horse-battery"}
    )
    assert response.status_code == 302
    bad = client.post("/accounts/login/", {"username": "ana", "password": "nope"})
    assert b"do not match" in bad.content


def test_logout_signs_out(client):
    client.force_login(UserFactory())
    assert client.post("/accounts/logout/").status_code == 302

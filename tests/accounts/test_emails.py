"""A user's email setting: on the account page, and one click from any email (a signed
link that works without signing in; GET asks, POST unsubscribes, as RFC 8058 wants)."""

import pytest
from django.test import Client

from accounts.models import Preference
from accounts.services import unsubscribe_token, wants_emails
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_unsubscribe_link_asks_on_get_and_unsubscribes_on_post_without_signing_in():
    ana = UserFactory(username="ana")
    path = f"/accounts/unsubscribe/{unsubscribe_token(ana)}/"
    mail_client = Client(enforce_csrf_checks=True)  # a mail client has no session or CSRF token
    asked = mail_client.get(path)
    assert asked.status_code == 200 and "Stop every email" in asked.content.decode()
    assert wants_emails(ana)  # a link scanner's GET changes nothing
    done = mail_client.post(path, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and "will not email you" in done.content.decode()
    assert not wants_emails(ana)
    assert Preference.objects.get(user=ana).emails is False


def test_a_forged_or_stale_unsubscribe_link_changes_nothing(client):
    ana = UserFactory(username="ana")
    token = unsubscribe_token(ana)
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert client.post(f"/accounts/unsubscribe/{forged}/").status_code == 404
    ana.email = "ana@new.example.org"
    ana.save()
    assert client.post(f"/accounts/unsubscribe/{token}/").status_code == 404  # for the old address
    assert wants_emails(ana)


def test_the_account_page_turns_emails_off_and_on(client):
    ana = UserFactory(username="ana")
    client.force_login(ana)
    page = client.get("/accounts/").content.decode()
    assert "Emails are on." in page
    off = client.post("/accounts/", {"emails": "off"}, follow=True).content.decode()
    assert "Emails are off" in off and not wants_emails(ana)
    client.post("/accounts/", {"emails": "on"})
    assert wants_emails(ana)
    client.logout()
    assert client.post("/accounts/", {"emails": "off"}).status_code == 302  # to the login
    assert wants_emails(ana)

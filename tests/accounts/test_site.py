"""Every email link starts with the site's public address: SITE_URL where it is set, the
request's own address in development, never a fixed port."""

import pytest
from django.core import mail
from django.http import HttpResponse
from django.test import RequestFactory

from accounts.site import SiteAddressMiddleware, public_url
from players import registration
from tests.factories import UserFactory
from tests.players.conftest import event


def _answered(host: str) -> str:
    request = RequestFactory().get("/", HTTP_HOST=host)
    return SiteAddressMiddleware(lambda r: HttpResponse(public_url("/t/copa/")))(
        request
    ).content.decode()


def test_the_public_address_is_the_setting_when_it_is_set(settings):
    settings.SITE_URL = "https://domino.example.org/"
    assert public_url("/t/copa/") == "https://domino.example.org/t/copa/"
    assert _answered("localhost:8123") == "https://domino.example.org/t/copa/"


def test_without_the_setting_a_link_starts_with_the_requests_own_address(settings):
    settings.SITE_URL = ""
    settings.ALLOWED_HOSTS = ["localhost", "capicu.lan"]
    assert _answered("localhost:8123") == "http://localhost:8123/t/copa/"
    assert _answered("capicu.lan") == "http://capicu.lan/t/copa/"
    # A task after the request (the eager worker of development) keeps the last address.
    assert public_url("/x/") == "http://capicu.lan/x/"


@pytest.mark.django_db(transaction=True)
def test_an_email_sent_while_answering_links_to_the_address_the_player_used(client, settings):
    settings.SITE_URL = ""
    settings.ALLOWED_HOSTS = ["capicu.lan"]
    organizer = UserFactory(username="organizer")
    tournament = event(organizer)
    registration.open_registration(tournament, by=organizer)
    ana = UserFactory(username="ana", first_name="Ana", last_name="Rivera")
    client.force_login(ana)
    client.post(f"/t/{tournament.slug}/register/", {"action": "enter"}, HTTP_HOST="capicu.lan:8080")
    (sent,) = mail.outbox
    assert "http://capicu.lan:8080/" in sent.body and ":8000" not in sent.body
    settings.SITE_URL = "https://domino.example.org"
    mail.outbox.clear()
    bea = UserFactory(username="bea", first_name="Bea", last_name="Cruz")
    client.force_login(bea)
    client.post(f"/t/{tournament.slug}/register/", {"action": "enter"}, HTTP_HOST="capicu.lan:8080")
    (sent,) = mail.outbox
    assert "https://domino.example.org/" in sent.body and "capicu.lan" not in sent.body

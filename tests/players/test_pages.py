"""The players' pages for every role: anonymous visitors, players, strangers signed in,
organizers and superusers; nothing answers 500 whatever is sent."""

import re
from datetime import UTC, timedelta

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from players import identity, registration
from players.models import Application, ClaimCode, MergeRequest, Player
from tests.factories import SuperuserFactory, UserFactory
from tests.players.conftest import entered_before, event
from tests.test_pages import make_event
from tournaments import services
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_search_and_player_page_for_anyone(organizer):
    make_event(organizer, slug="copa", players=4)
    anonymous = signed_in(None)
    page = anonymous.get("/players/?q=PLAYER 0")
    assert page.status_code == 200 and "Player 01" in page.content.decode()
    assert "No player matches" in anonymous.get("/players/?q=zzz").content.decode()
    player = Player.objects.get(display_name="Player 01")
    page = anonymous.get(f"/players/{player.pk}/").content.decode()
    assert "Copa Capicú" in page and "For organizers" not in page
    assert anonymous.get("/players/999999/").status_code == 404


def test_organizers_give_claim_codes_and_merge_from_the_player_page(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="José Pérez")
    services.register_entrants(
        event(organizer, slug="two"), by=organizer, text="Jose Peres", choices={"jose peres|": 0}
    )
    jose, other = Player.objects.order_by("pk")
    client = signed_in(organizer)
    page = client.get(f"/players/{jose.pk}/").content.decode()
    assert "For organizers" in page and "Perhaps the same person" in page and "Jose Peres" in page
    given = client.post(f"/players/{jose.pk}/claim-code/", follow=True).content.decode()
    code = re.search(r"Claim code for José Pérez: (\w+)", given)[1]
    # Shown once: the page never shows it again, and only its digest is stored.
    assert code not in client.get(f"/players/{jose.pk}/").content.decode()
    assert code not in ClaimCode.objects.get(player=jose).digest
    answer = client.post(f"/players/{jose.pk}/merge/", {"other": other.pk}, follow=True)
    assert "is now one player with" in answer.content.decode()
    assert not Player.objects.filter(pk=other.pk).exists()
    # The merged player's address leads to the one kept.
    assert signed_in(None).get(f"/players/{other.pk}/").url == f"/players/{jose.pk}/"
    bad = client.post(f"/players/{jose.pk}/merge/", {"other": "nope"}, follow=True)
    assert "Give the number of a player." in bad.content.decode()
    assert client.post(f"/players/{jose.pk}/nonsense/").status_code == 404


def test_strangers_and_anonymous_cannot_look_after_players(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana")
    ana = Player.objects.get()
    assert signed_in(UserFactory()).post(f"/players/{ana.pk}/claim-code/").status_code == 403
    assert signed_in(None).post(f"/players/{ana.pk}/claim-code/").status_code == 302
    assert signed_in(SuperuserFactory()).post(f"/players/{ana.pk}/claim-code/").status_code == 302
    assert ClaimCode.objects.filter(player=ana).exists()


def test_a_claim_code_shows_the_players_events_on_the_account_page(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    claim = identity.issue_claim_code(Player.objects.get(), by=organizer)
    ana = UserFactory(username="ana")
    client = signed_in(ana)
    assert "not linked to a player yet" in client.get("/accounts/").content.decode()
    page = client.post("/players/claim/", {"code": claim.code}, follow=True).content.decode()
    assert "Your account is now" in page and "Viernes Cut-Throat" in page
    wrong = client.post("/players/claim/", {"code": "WRONG"}, follow=True).content.decode()
    assert "already linked" in wrong or "not known" in wrong


@override_settings(CLAIM_CODE_TRIES=1)
def test_the_claim_page_says_when_too_many_codes_were_wrong(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    claim = identity.issue_claim_code(Player.objects.get(), by=organizer)
    client = signed_in(UserFactory())
    client.post("/players/claim/", {"code": "WRONGWRONG"})
    page = client.post("/players/claim/", {"code": claim.code}, follow=True)
    assert page.status_code == 200
    assert "Too many wrong claim codes from this account" in page.content.decode()
    assert Player.objects.get().user is None
    spanish = client.post(
        "/players/claim/", {"code": claim.code}, follow=True, HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Demasiados códigos erróneos" in spanish


def test_a_player_enters_checks_in_and_sees_their_table(organizer, tournament):
    now = timezone.now()
    registration.open_registration(
        tournament, by=organizer, check_in_opens_at=now - timedelta(minutes=1)
    )
    players = [UserFactory(username=f"p{n}", first_name=f"Pe{n}") for n in range(4)]
    anonymous = signed_in(None).get("/t/viernes/register/").content.decode()
    assert "Log in to enter" in anonymous
    for person in players:
        page = (
            signed_in(person)
            .post("/t/viernes/register/", {"action": "enter"}, follow=True)
            .content.decode()
        )
        assert "You are entered." in page
    client = signed_in(players[0])
    page = client.post("/t/viernes/register/", {"action": "check-in"}, follow=True).content.decode()
    assert "You are checked in" in page
    assert client.get("/t/viernes/check-in/").status_code == 200
    stage = services.add_stage(tournament, by=organizer, name="RR", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    page = client.get("/t/viernes/register/").content.decode()
    assert "Round 1: table 1" in page
    assert client.post("/t/viernes/register/", {"action": "what"}, follow=True).status_code == 200


def test_check_in_page_asks_anonymous_visitors_to_log_in(organizer, tournament):
    assert signed_in(None).get("/t/viernes/check-in/").status_code == 302
    page = signed_in(UserFactory()).get("/t/viernes/check-in/").content.decode()
    assert "You have no entry in this event." in page
    assert signed_in(None).get("/t/nope/register/").status_code == 404


def test_organizers_open_registration_and_approve(organizer, tournament):
    client = signed_in(organizer)
    page = client.get("/t/viernes/manage/registration/").content.decode()
    assert "Open registration" in page
    answer = client.post(
        "/t/viernes/manage/registration/",
        {"action": "save", "capacity": "8", "requires_approval": "on",
         "opens_at": "2026-01-01T18:00", "closes_at": "2025-01-01T18:00"},
    )  # fmt: skip
    assert answer.status_code == 200 and "must close after it opens" in answer.content.decode()
    answer = client.post(
        "/t/viernes/manage/registration/",
        {"action": "save", "capacity": "8", "requires_approval": "on"},
    )
    assert answer.status_code == 302
    found = registration.registration_of(tournament)
    assert found.capacity == 8 and found.requires_approval
    applicant = UserFactory(username="ana")
    entry = registration.enter(tournament, by=applicant)
    page = client.get("/t/viernes/manage/registration/").content.decode()
    assert "<svg" in page and "/t/viernes/check-in/" in page and "Approve" in page
    client.post("/t/viernes/manage/registration/", {"action": "approve", "application": entry.pk})
    entry.refresh_from_db()
    assert entry.status == Application.Status.ENTERED
    bad = client.post(
        "/t/viernes/manage/registration/", {"action": "approve", "application": "x"}, follow=True
    )
    assert "Choose an entry of this event." in bad.content.decode()


def test_time_zone_of_the_event_reads_the_times(organizer):
    tournament = event(organizer, slug="pr")
    tournament.time_zone = "America/Puerto_Rico"
    tournament.save()
    signed_in(organizer).post(
        "/t/pr/manage/registration/", {"action": "save", "opens_at": "2026-12-01T18:00"}
    )
    opens = registration.registration_of(tournament).opens_at
    assert opens.astimezone(UTC).hour == 22


def test_others_cannot_open_registration(organizer, tournament):
    assert signed_in(UserFactory()).get("/t/viernes/manage/registration/").status_code == 403
    assert signed_in(None).get("/t/viernes/manage/registration/").status_code == 302
    assert signed_in(SuperuserFactory()).get("/t/viernes/manage/registration/").status_code == 200


def test_the_paste_preview_lets_the_organizer_choose(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="José Pérez")
    jose = Player.objects.get()
    event(organizer, slug="two")
    client = signed_in(organizer)
    text = "Jose Peres\nCarmen Ortiz\nJosé Pérez & x"
    page = client.post("/t/two/manage/paste/", {"text": text}).content.decode()
    assert "Who is this?" in page and "new player" in page and "Line 3" in page
    page = client.post("/t/two/manage/paste/", {"text": "Jose Peres\nCarmen Ortiz"}).content
    assert b"Register them all" in page
    direct = client.post(
        "/t/two/manage/register/", {"text": "Jose Peres\nCarmen Ortiz"}, follow=True
    ).content.decode()
    assert "Choose for Jose Peres" in direct
    by_number = client.post(
        "/t/two/manage/paste/",
        {"text": "Jose Peres\nCarmen Ortiz", "confirm": "1", "choice-jose peres|": str(jose.pk)},
        follow=True,
    ).content.decode()
    assert "choose one of the players offered" in by_number and Entrant.objects.count() == 1
    token = re.search(r'name="choice-jose peres\|" value="([^"]+)"', page.decode())[1]
    done = client.post(
        "/t/two/manage/paste/",
        {"text": "Jose Peres\nCarmen Ortiz", "confirm": "1", "choice-jose peres|": token},
        follow=True,
    )
    assert "Registered 2 entrants." in done.content.decode()
    assert Player.objects.count() == 2
    assert signed_in(UserFactory()).post("/t/two/manage/paste/", {"text": "A"}).status_code == 403


# --- one player identity, owned by the person ------------------------------------------


def test_an_organizer_of_one_of_their_events_cannot_look_after_a_player(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    mallory = UserFactory(username="mallory")
    mine = event(mallory, slug="mal")
    services.register_entrants(mine, by=mallory, text="Puppet")
    entered_before(mine, ana)
    puppet = Player.objects.get(display_name="Puppet")
    client = signed_in(mallory)
    assert "For organizers" not in client.get(f"/players/{ana.pk}/").content.decode()
    assert client.post(f"/players/{ana.pk}/claim-code/").status_code == 403
    assert client.post(f"/players/{ana.pk}/merge/", {"other": puppet.pk}).status_code == 403
    refused = client.post(f"/players/{puppet.pk}/merge/", {"other": ana.pk}, follow=True)
    assert "every event this player entered" in refused.content.decode()
    assert Player.objects.count() == 2 and not ClaimCode.objects.exists()


def test_a_merge_asked_from_the_player_page_is_confirmed_from_the_account_page(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    person = UserFactory(username="ana")
    identity.claim_player(identity.issue_claim_code(ana, by=organizer).code, by=person)
    other_org = UserFactory(username="other-org")
    services.register_entrants(
        event(other_org, slug="two"), by=other_org, text="Ana Riviera",
        choices={"ana riviera|": 0},
    )  # fmt: skip
    old = Player.objects.get(display_name="Ana Riviera")
    mine = signed_in(person)
    page = mine.get(f"/players/{old.pk}/").content.decode()
    assert "Is this you too?" in page and "For organizers" not in page
    asked = mine.post(f"/players/{old.pk}/ask-merge/", follow=True).content.decode()
    assert "Asked: Ana Riviera becomes one player with yours" in asked
    assert "Ana Riviera into Ana Rivera" in asked and "Confirm the merge" not in asked
    theirs = signed_in(other_org)
    account = theirs.get("/accounts/").content.decode()
    assert "Confirm the merge" in account and "asked by ana" in account
    request_pk = MergeRequest.objects.get().pk
    assert (
        signed_in(organizer).post(f"/players/merge-requests/{request_pk}/confirm/").status_code
        == 404
    )
    done = theirs.post(f"/players/merge-requests/{request_pk}/confirm/", follow=True)
    assert "Ana Riviera is now one player with Ana Rivera." in done.content.decode()
    assert mine.get(f"/players/{old.pk}/").url == f"/players/{ana.pk}/"
    record = mine.get("/accounts/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Who did what to your player" in record
    for kind in ("Players merged", "Merge confirmed", "Merge asked for", "Claim code given"):
        assert kind in record
    assert "by other-org" in record and "by org" in record
    assert "Who did what" not in signed_in(UserFactory()).get("/accounts/").content.decode()
    unlinked = mine.post("/players/unlink/", follow=True).content.decode()
    assert "no longer Ana Rivera" in unlinked

"""Staff and credentials: a role only by consent (or an account the event created), a
table's referee only from the event's staff, tokens only for the event's own accounts."""

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from scoring.services import record_hand
from tests.factories import SuperuserFactory, UserFactory, client_for, event_referee
from tests.test_pages import make_event
from tournaments import services
from tournaments.models import EventAccount, Invitation, Staff, Tournament
from tournaments.permissions import role_in
from tournaments.services.staff import event_accounts_allowed

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def private_event(organizer):
    """An attacker's private event: four names, one stage, round 1 paired."""
    tournament, round_ = make_event(organizer, players=4, public=False, slug="trap")
    return tournament, round_.matches.get()


# --- the reported takeover, step by step -------------------------------------------------


@pytest.mark.parametrize("victim_kind", ["user", "superuser", "organizer_elsewhere"])
def test_the_takeover_path_is_refused_at_step_two_and_step_three(
    organizer, private_event, victim_kind, client
):
    tournament, match = private_event
    if victim_kind == "superuser":
        victim = SuperuserFactory(username="victim")
    else:
        victim = UserFactory(username="victim")
    if victim_kind == "organizer_elsewhere":
        make_event(victim, slug="other")
    Token.objects.create(user=victim)
    old_key = Token.objects.get(user=victim).key
    attacker = client_for(organizer)

    # Step 2: naming the victim as a table's referee gives them no role and no table.
    step2 = attacker.post(
        f"/api/v1/matches/{match.pk}/referee/", {"referee": victim.username}, format="json"
    )
    assert step2.status_code == 400
    assert "invite them first" in step2.json()["detail"]
    assert not Staff.objects.filter(tournament=tournament, user=victim).exists()
    match.refresh_from_db()
    assert match.referee_id is None
    assert not match.game.referees.filter(pk=victim.pk).exists()

    # Step 3: the organizer's token form neither issues nor revokes the victim's token.
    client.force_login(organizer)
    issued = client.post("/t/trap/manage/token/", {"user": victim.pk}, follow=True)
    assert issued.context["new_credentials"] is None
    revoked = client.post("/t/trap/manage/token/", {"user": victim.pk, "revoke": "1"})
    assert revoked.status_code == 302
    assert Token.objects.get(user=victim).key == old_key

    # Even once the victim has accepted a role here, their credentials are their own.
    if victim_kind != "superuser":
        invitation = services.invite_staff(
            tournament, by=organizer, username=victim.username, role="referee"
        )
        services.accept_invitation(invitation, by=victim)
        client.post("/t/trap/manage/token/", {"user": victim.pk})
        client.post("/t/trap/manage/token/", {"user": victim.pk, "revoke": "1"})
        assert Token.objects.get(user=victim).key == old_key
        with pytest.raises(services.TournamentError):
            services.issue_token(tournament, victim, by=organizer, rotate=True)


def test_a_nonexistent_and_an_outside_user_get_the_same_refusal(organizer, private_event):
    _, match = private_event
    UserFactory(username="outsider")
    attacker = client_for(organizer)
    answers = [
        attacker.post(
            f"/api/v1/matches/{match.pk}/referee/", {"referee": name}, format="json"
        ).json()["detail"]
        for name in ("outsider", "nobody-by-this-name")
    ]
    assert answers[0].replace("outsider", "X") == answers[1].replace("nobody-by-this-name", "X")


def test_only_the_events_organizers_assign_referees_through_the_api(organizer, private_event):
    tournament, match = private_event
    referee = event_referee(tournament)
    stranger = client_for(UserFactory())
    assert (
        stranger.post(
            f"/api/v1/matches/{match.pk}/referee/", {"referee": referee.username}, format="json"
        ).status_code
        == 404  # a private event is not even seen
    )
    done = client_for(organizer).post(
        f"/api/v1/matches/{match.pk}/referee/", {"referee": referee.username}, format="json"
    )
    assert done.status_code == 200 and done.json()["referee"] == referee.username


# --- invitations ---------------------------------------------------------------------------


def test_an_invitation_grants_nothing_until_accepted(organizer, private_event):
    tournament, match = private_event
    invited = UserFactory(username="invited")
    invitation = services.invite_staff(tournament, by=organizer, username="invited", role="referee")
    api = client_for(invited)
    assert api.get("/api/v1/tournaments/trap/").status_code == 404
    assert not role_in(invited, tournament)
    with pytest.raises(services.TournamentError):
        services.assign_referee(match, invited, by=organizer)
    listed = api.get("/api/v1/invitations/").json()
    assert [(i["tournament"], i["role"]) for i in listed] == [("trap", "referee")]

    accepted = api.post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert accepted.status_code == 200 and accepted.json()["role"] == "referee"
    assert not Invitation.objects.exists()
    assert api.get("/api/v1/tournaments/trap/").status_code == 200
    services.assign_referee(match, invited, by=organizer)
    record_hand(
        match.game, by=invited, number=1, ended="block", pips={"A": 1, "B": 2, "C": 3, "D": 4}
    )


def test_only_the_invited_user_answers_an_invitation(organizer, private_event):
    tournament, _ = private_event
    UserFactory(username="invited")
    invitation = services.invite_staff(
        tournament, by=organizer, username="invited", role="organizer"
    )
    other = client_for(UserFactory(username="other"))
    assert other.post(f"/api/v1/invitations/{invitation.pk}/accept/").status_code == 404
    with pytest.raises(services.TournamentError):
        services.accept_invitation(invitation, by=organizer)  # not the organizer's to accept
    assert not Staff.objects.filter(tournament=tournament, user__username="invited").exists()
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_declining_or_withdrawing_leaves_no_role(organizer, private_event):
    tournament, _ = private_event
    one = UserFactory(username="one")
    UserFactory(username="two")
    first = services.invite_staff(tournament, by=organizer, username="one", role="referee")
    second = services.invite_staff(tournament, by=organizer, username="two", role="referee")
    assert client_for(one).post(f"/api/v1/invitations/{first.pk}/decline/").status_code == 204
    services.decline_invitation(second, by=organizer)  # the organizer withdraws it
    assert not Invitation.objects.exists()
    assert Staff.objects.filter(tournament=tournament).count() == 1  # the organizer alone


def test_invitations_through_the_staff_endpoint(organizer, private_event):
    UserFactory(username="ana")
    api = client_for(organizer)
    unknown = api.post(
        "/api/v1/tournaments/trap/staff/", {"username": "ghost", "role": "referee"}, format="json"
    )
    assert unknown.status_code == 400 and unknown.json()["errors"]["username"]
    bad_role = api.post(
        "/api/v1/tournaments/trap/staff/", {"username": "ana", "role": "king"}, format="json"
    )
    assert bad_role.status_code == 400
    made = api.post(
        "/api/v1/tournaments/trap/staff/", {"username": "ana", "role": "organizer"}, format="json"
    )
    assert made.status_code == 201
    listing = api.get("/api/v1/tournaments/trap/staff/").json()
    assert [m["username"] for m in listing["staff"]] == ["organizer"]
    assert [i["username"] for i in listing["invitations"]] == ["ana"]
    assert client_for(UserFactory()).get("/api/v1/tournaments/trap/staff/").status_code == 404
    assert client_for(None).get("/api/v1/invitations/").status_code == 401


def test_invitations_on_the_pages(client, organizer, private_event):
    tournament, _ = private_event
    ana = UserFactory(username="ana")
    client.force_login(organizer)
    client.post("/t/trap/manage/invite/", {"username": "ana", "role": "referee"})
    page = client.get("/t/trap/manage/").content.decode()
    assert "Invited, not yet accepted" in page and "ana (referee)" in page
    assert not Staff.objects.filter(user=ana).exists()

    client.force_login(ana)
    account = client.get("/accounts/")
    assert "organizer invites you to be referee of Copa Capicú." in account.content.decode()
    assert client.get("/t/trap/").status_code == 404  # nothing granted yet
    invitation = Invitation.objects.get(user=ana)
    client.post(f"/invitations/{invitation.pk}/accept/")
    assert Staff.objects.filter(tournament=tournament, user=ana, role="referee").exists()
    assert client.get("/t/trap/").status_code == 200


def test_removing_a_referee_takes_their_tables_away(organizer, private_event):
    tournament, match = private_event
    referee = event_referee(tournament)
    services.assign_referee(match, referee, by=organizer)
    services.remove_staff(tournament, referee, by=organizer, role="referee")
    match.refresh_from_db()
    assert match.referee_id is None
    assert not match.game.referees.filter(pk=referee.pk).exists()
    with pytest.raises(PermissionDenied):
        record_hand(
            match.game, by=referee, number=1, ended="block", pips={"A": 1, "B": 2, "C": 3, "D": 4}
        )


# --- credentials --------------------------------------------------------------------------


def test_the_event_sets_tokens_only_for_accounts_it_created(client, organizer, private_event):
    tournament, _ = private_event
    client.force_login(organizer)
    created = client.post("/t/trap/manage/create-referee/", {"username": "mesa1"}, follow=True)
    assert created.context["new_credentials"]["token"]
    mesa1 = Staff.objects.get(tournament=tournament, user__username="mesa1").user
    assert EventAccount.objects.filter(user=mesa1, tournament=tournament).exists()
    first = Token.objects.get(user=mesa1).key
    client.post("/t/trap/manage/token/", {"user": mesa1.pk})
    assert Token.objects.get(user=mesa1).key != first
    client.post("/t/trap/manage/token/", {"user": mesa1.pk, "revoke": "1"})
    assert not Token.objects.filter(user=mesa1).exists()

    # An account with a role in another event (held from before event accounts could not
    # be invited) is no longer this event's to set a token for; it may still revoke it.
    other = make_event(UserFactory(username="other-org"), slug="other")[0]
    Staff.objects.create(tournament=other, user=mesa1, role="referee")
    assert not services.credentials_managed_here(tournament, mesa1)
    with pytest.raises(services.TournamentError):
        services.issue_token(tournament, mesa1, by=organizer)
    page = client.get("/t/trap/manage/").content.decode()
    assert f'name="user" value="{mesa1.pk}"' not in page  # no token buttons for it


def test_another_events_organizer_cannot_touch_an_event_account(organizer, private_event):
    tournament, _ = private_event
    mesa, _ = services.create_referee(tournament, by=organizer, username="mesa2")
    intruder = UserFactory(username="intruder")
    elsewhere = make_event(intruder, slug="elsewhere")[0]
    with pytest.raises(services.TournamentError):
        services.issue_token(elsewhere, mesa, by=intruder)
    with pytest.raises(PermissionDenied):
        services.issue_token(tournament, mesa, by=intruder)


def test_a_promoted_or_superuser_event_account_is_out_of_reach(organizer, private_event):
    tournament, _ = private_event
    mesa, _ = services.create_referee(tournament, by=organizer, username="mesa3")
    mesa.is_superuser = True
    mesa.save()
    assert not services.credentials_managed_here(tournament, mesa)
    mesa.is_superuser = False
    mesa.save()
    Staff.objects.create(tournament=tournament, user=mesa, role="organizer")  # set by hand
    assert not services.credentials_managed_here(tournament, mesa)


def test_everyone_manages_their_own_token(client):
    user = UserFactory(username="ana")
    client.force_login(user)
    assert "You have no API token." in client.get("/accounts/").content.decode()
    shown = client.post("/accounts/", {"token": "issue"}, follow=True)
    key = Token.objects.get(user=user).key
    assert key in shown.content.decode()
    assert key not in client.get("/accounts/").content.decode()  # shown once
    client.post("/accounts/", {"token": "rotate"})
    assert Token.objects.get(user=user).key != key
    client.post("/accounts/", {"token": "revoke"})
    assert not Token.objects.filter(user=user).exists()

    api = client_for(user)
    made = api.post("/api/v1/account/token/")
    assert made.status_code == 201
    token_client = APIClient()
    token_client.credentials(HTTP_AUTHORIZATION=f"Token {made.json()['token']}")
    assert token_client.get("/api/v1/invitations/").status_code == 200
    assert api.delete("/api/v1/account/token/").status_code == 204
    assert not Token.objects.filter(user=user).exists()
    assert client_for(None).post("/api/v1/account/token/").status_code == 401


def test_a_tournament_created_by_its_organizer_stays_theirs(organizer):
    assert Tournament.objects.count() == 0
    tournament, _ = make_event(organizer, slug="own")
    assert list(tournament.staff.values_list("user__username", "role")) == [
        ("organizer", "organizer")
    ]


# --- event-created accounts stay the event's --------------------------------------------


def test_an_event_account_creates_no_event_ladder_or_series(organizer, private_event):
    tournament, _ = private_event
    mesa, _ = services.create_referee(tournament, by=organizer, username="mesa4")
    api = client_for(mesa)
    refused = [
        api.post("/api/v1/tournaments/", {"name": "Mine", "ruleset": "cutthroat"}, format="json"),
        api.post(
            "/api/v1/ladders/", {"name": "Mine", "ruleset": "cutthroat", "table_size": 2},
            format="json",
        ),
        api.post(
            "/api/v1/series/",
            {"name": "Mine", "ruleset": "cutthroat", "table_size": 4, "stage_format": "swiss",
             "stage_settings": {"rounds": 1}, "series_points": {"1": 10}, "best_of": 1},
            format="json",
        ),
    ]  # fmt: skip
    assert [answer.status_code for answer in refused] == [403, 403, 403]
    assert Tournament.objects.count() == 1
    person = client_for(UserFactory(username="person"))
    made = person.post("/api/v1/tournaments/", {"name": "Mine", "ruleset": "cutthroat"})
    assert made.status_code == 201  # an account of one's own still creates events


def test_an_event_account_cannot_be_invited_and_is_answered_as_an_unknown_name(
    organizer, private_event
):
    services.create_referee(private_event[0], by=organizer, username="mesa5")
    UserFactory(username="gone", is_active=False)
    other_org = UserFactory(username="other-org")
    make_event(other_org, slug="other")
    api = client_for(other_org)
    answers = [
        api.post(
            "/api/v1/tournaments/other/staff/", {"username": name, "role": "referee"}, format="json"
        )
        for name in ("mesa5", "gone", "nobody-at-all")
    ]
    assert {answer.status_code for answer in answers} == {400}
    assert {answer.json()["detail"] for answer in answers} == {
        "No user by that name can be invited."
    }
    assert not Invitation.objects.exists()
    # Not in its own event either: it referees there already, and nothing more.
    with pytest.raises(services.TournamentError, match="No user by that name"):
        services.invite_staff(private_event[0], by=organizer, username="mesa5", role="organizer")


def test_an_event_account_cannot_accept_an_invitation_sent_before_the_rule(
    organizer, private_event
):
    mesa, _ = services.create_referee(private_event[0], by=organizer, username="mesa6")
    other = make_event(UserFactory(username="other-org"), slug="other")[0]
    invitation = Invitation.objects.create(tournament=other, user=mesa, role="organizer")
    answer = client_for(mesa).post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert answer.status_code == 409
    assert not Staff.objects.filter(tournament=other, user=mesa).exists()
    # From the account page too: refused in words, back on the account page.
    page = Client()
    page.force_login(mesa)
    refused = page.post(f"/invitations/{invitation.pk}/accept/", follow=True)
    assert refused.status_code == 200
    assert refused.redirect_chain[-1][0].endswith("/accounts/")
    assert any(m.level_tag == "error" for m in refused.context["messages"])
    assert not Staff.objects.filter(tournament=other, user=mesa).exists()


def test_the_creating_event_always_revokes_its_accounts_token(client, organizer, private_event):
    tournament, _ = private_event
    mesa, _ = services.create_referee(tournament, by=organizer, username="mesa7")
    Token.objects.create(user=mesa)
    # Roles and invitations another event gave it (before the rule) do not take it away.
    other = make_event(UserFactory(username="other-org"), slug="other")[0]
    Staff.objects.create(tournament=other, user=mesa, role="organizer")
    Invitation.objects.create(tournament=other, user=mesa, role="referee")
    client.force_login(organizer)
    client.post("/t/trap/manage/token/", {"user": mesa.pk, "revoke": "1"})
    assert not Token.objects.filter(user=mesa).exists()
    # The other event never may.
    Token.objects.create(user=mesa)
    with pytest.raises(services.TournamentError):
        services.revoke_token(
            other, mesa, by=other.staff.get(role="organizer", user__username="other-org").user
        )
    assert Token.objects.filter(user=mesa).exists()


def test_an_event_creates_referee_accounts_for_its_tables_and_a_few_spares(
    client, organizer, private_event, settings
):
    settings.EVENT_ACCOUNTS_SPARE = 2
    tournament, _ = private_event  # round 1: four names, one table
    assert event_accounts_allowed(tournament) == 3
    for n in range(3):
        services.create_referee(tournament, by=organizer, username=f"mesa{n}")
    client.force_login(organizer)
    page = client.post("/t/trap/manage/create-referee/", {"username": "mesa9"}, follow=True)
    assert "This event has created 3 referee accounts" in page.content.decode()
    assert not EventAccount.objects.filter(user__username="mesa9").exists()
    assert EventAccount.objects.filter(tournament=tournament).count() == 3


def test_staff_invitations_are_capped_per_sender(organizer, private_event, settings):
    settings.INVITATIONS_PER_SENDER_PER_HOUR = 2
    for name in ("one", "two", "three"):
        UserFactory(username=name)
    api = client_for(organizer)
    sent = [
        api.post("/api/v1/tournaments/trap/staff/", {"username": name, "role": "referee"})
        for name in ("one", "nobody", "three")
    ]
    assert [answer.status_code for answer in sent] == [201, 400, 429]
    assert sent[2]["Retry-After"] and "too many invitations" in sent[2].json()["detail"]
    assert list(Invitation.objects.values_list("user__username", flat=True)) == ["one"]


# --- the account page: every role, and leaving one -----------------------------------------


def test_the_account_page_lists_roles_and_a_user_leaves_one(client, organizer, private_event):
    tournament, match = private_event
    referee = event_referee(tournament)
    services.assign_referee(match, referee, by=organizer)
    client.force_login(referee)
    page = client.get("/accounts/").content.decode()
    assert "Your roles" in page and "Copa Capicú" in page and "Referee" in page
    role = Staff.objects.get(user=referee)
    client.post(f"/accounts/roles/{role.pk}/leave/")
    assert not Staff.objects.filter(user=referee).exists()
    match.refresh_from_db()
    assert match.referee_id is None  # and with the role, its tables
    assert "You organize and referee no event." in client.get("/accounts/").content.decode()

    # The last organizer stays; another user's role is not found.
    client.force_login(organizer)
    own = Staff.objects.get(user=organizer)
    answer = client.post(f"/accounts/roles/{own.pk}/leave/", follow=True)
    assert "A tournament keeps at least one organizer." in answer.content.decode()
    assert Staff.objects.filter(pk=own.pk).exists()
    client.force_login(UserFactory(username="stranger"))
    assert client.post(f"/accounts/roles/{own.pk}/leave/").status_code == 404


def test_an_event_account_is_told_what_it_is_on_its_account_page(client, organizer, private_event):
    mesa, _ = services.create_referee(private_event[0], by=organizer, username="mesa8")
    client.force_login(mesa)
    page = client.get("/accounts/").content.decode()
    assert "This account was created by Copa Capicú for its referees" in page


def test_an_event_account_cannot_claim_a_player(organizer, private_event):
    from players.identity import issue_claim_code

    tournament, match = private_event
    player = match.seats.first().entrant.player
    code = issue_claim_code(player, by=organizer).code
    mesa, _ = services.create_referee(tournament, by=organizer, username="mesa9")
    refused = client_for(mesa).post("/api/v1/account/claim/", {"code": code}, format="json")
    assert refused.status_code == 409 and "referees that event only" in refused.json()["detail"]
    player.refresh_from_db()
    assert player.user_id is None

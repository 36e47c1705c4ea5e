"""Suspensions under the code of conduct: an organizer suspends a player of their event for
dates and a scope (their events, or a series they run); entries and check-ins in that
scope are refused while it lasts; the audit list keeps it; only the organizer who recorded
it and the player see it."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from circuit.models import Series, SeriesEvent
from players import registration
from scoring.models import OfficialAct
from tests.factories import UserFactory, client_for, event_referee
from tests.players.conftest import event
from tournaments import sanctions, services, suspensions
from tournaments.models import Suspension
from tournaments.services import TournamentConflict, TournamentError

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate


def entrant_of(tournament, organizer, name="Ana Rivera"):
    services.register_entrants(tournament, by=organizer, text=name)
    return tournament.entrants.get(name=name)


def suspend(entrant, by, *, first=-1, last=30, series=None):
    today = TODAY()
    return suspensions.suspend(
        entrant,
        by=by,
        starts_on=today + timedelta(days=first),
        ends_on=today + timedelta(days=last),
        reason="Coaching during a match",
        series=series,
    )


def test_a_suspended_player_cannot_enter_or_check_in_to_the_organizers_events(organizer):
    first = event(organizer)
    ana = entrant_of(first, organizer)
    suspension = suspend(ana, organizer)
    assert suspension.scope == "organizer" and suspension.player == ana.player
    second = event(organizer, slug="sabado", name="Sábado")
    with pytest.raises(TournamentConflict) as refused:
        services.register_entrant(second, by=organizer, player=ana.player)
    assert "Ana Rivera is suspended from this event's competitions until" in str(
        refused.value.message
    )
    assert not second.entrants.exists()
    with pytest.raises(TournamentConflict):
        services.check_in(ana, by=organizer, checked_in=True, override=True)
    ana.refresh_from_db()
    assert not ana.checked_in
    # Another organizer's event is outside the scope.
    other = UserFactory(username="other-org")
    elsewhere = event(other, slug="otro", name="Otro")
    services.register_entrant(elsewhere, by=other, player=ana.player)
    assert elsewhere.entrants.count() == 1


def test_a_suspension_counts_only_on_its_days_and_until_lifted(organizer):
    tournament = event(organizer)
    ana = entrant_of(tournament, organizer)
    suspend(ana, organizer, first=-10, last=-1)  # over
    suspend(ana, organizer, first=1, last=5)  # not yet
    services.check_in(ana, by=organizer, checked_in=True, override=True)
    now = timezone.now()
    assert suspensions.suspension_for(ana.player, tournament, now + timedelta(days=2))
    services.check_in(ana, by=organizer, checked_in=False)
    current = suspend(ana, organizer)
    with pytest.raises(TournamentConflict):
        services.check_in(ana, by=organizer, checked_in=True, override=True)
    suspensions.lift(current, by=organizer, tournament=tournament)
    services.check_in(ana, by=organizer, checked_in=True, override=True)
    ana.refresh_from_db()
    assert ana.checked_in
    kinds = [act.kind for act in sanctions.audit_acts(tournament)]
    assert kinds.count("suspended") == 3 and kinds.count("suspension_lifted") == 1
    with pytest.raises(TournamentConflict):
        suspensions.lift(current, by=organizer, tournament=tournament)


def test_self_registration_is_refused_too(organizer):
    first = event(organizer)
    registration.open_registration(first, by=organizer)
    carla = UserFactory(username="carla", first_name="Carla", last_name="Soto")
    entry = registration.enter(first, by=carla)
    suspend(entry.entrant, organizer)
    second = event(organizer, slug="sabado", name="Sábado")
    registration.open_registration(second, by=organizer)
    with pytest.raises(TournamentConflict):
        registration.enter(second, by=carla)
    assert not second.entrants.exists()


def test_a_series_suspension_covers_that_series_only(organizer):
    first = event(organizer)
    ana = entrant_of(first, organizer)
    series = Series.objects.create(
        name="Viernes", slug="viernes-serie", ruleset_key="cutthroat", table_size=4,
        created_by=organizer,
    )  # fmt: skip
    in_series = event(organizer, slug="viernes-2", name="Viernes 2")
    SeriesEvent.objects.create(series=series, tournament=in_series, number=1)
    suspend(ana, organizer, series=series)
    with pytest.raises(TournamentConflict):
        services.register_entrant(in_series, by=organizer, player=ana.player)
    outside = event(organizer, slug="suelto", name="Suelto")
    services.register_entrant(outside, by=organizer, player=ana.player)
    # Only a series the organizer runs.
    theirs = Series.objects.create(
        name="Ajena", slug="ajena", ruleset_key="cutthroat", table_size=4, created_by=None
    )
    with pytest.raises(TournamentError):
        suspend(ana, organizer, series=theirs)


def test_only_the_events_organizer_suspends_and_bad_input_changes_nothing(organizer):
    tournament = event(organizer)
    ana = entrant_of(tournament, organizer)
    referee = event_referee(tournament)
    for who in (referee, UserFactory()):
        with pytest.raises(PermissionDenied):
            suspend(ana, who)
    today = TODAY()
    for starts, ends, reason in (
        (today, today - timedelta(days=1), "x"),
        ("yesterday", today, "x"),
        (today, today, "  "),
        (today.replace(year=1999), today, "x"),
    ):
        with pytest.raises(TournamentError):
            suspensions.suspend(ana, by=organizer, starts_on=starts, ends_on=ends, reason=reason)
    assert not Suspension.objects.exists()
    assert not OfficialAct.objects.filter(kind="suspended").exists()
    suspension = suspend(ana, organizer)
    with pytest.raises(PermissionDenied):
        suspensions.lift(suspension, by=referee, tournament=tournament)
    # A co-organizer of the event did not record it: only its organizer lifts it.
    co_organizer = event_referee(tournament, role="organizer")
    with pytest.raises(TournamentError):
        suspensions.lift(suspension, by=co_organizer, tournament=tournament)
    suspension.refresh_from_db()
    assert suspension.lifted_at is None


def test_the_database_keeps_dates_in_order(organizer):
    tournament = event(organizer)
    ana = entrant_of(tournament, organizer)
    today = TODAY()
    with pytest.raises(IntegrityError), transaction.atomic():
        Suspension.objects.create(
            player=ana.player, scope="organizer", organizer=organizer,
            starts_on=today, ends_on=today - timedelta(days=1), reason="x",
        )  # fmt: skip


# --- the API and the pages ------------------------------------------------------------------


def test_the_api_records_lists_and_lifts(organizer):
    tournament = event(organizer)
    ana = entrant_of(tournament, organizer)
    url = f"/api/v1/tournaments/{tournament.slug}/entrants/{ana.pk}/suspensions/"
    api = client_for(organizer)
    today = TODAY()
    body = {
        "starts_on": today.isoformat(),
        "ends_on": (today + timedelta(days=7)).isoformat(),
        "reason": "Stalling",
    }
    made = api.post(url, body, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["scope"] == "organizer" and made.json()["player_name"] == "Ana Rivera"
    assert [s["id"] for s in api.get(url).json()] == [made.json()["id"]]
    bad = api.post(url, {**body, "ends_on": "2000-01-01"}, format="json")
    assert bad.status_code == 400
    assert api.post(url, {"reason": "x"}, format="json").status_code == 400
    referee = event_referee(tournament)
    assert client_for(referee).post(url, body, format="json").status_code == 403
    assert client_for(referee).get(url).status_code == 403
    assert Suspension.objects.count() == 1
    lifted = api.post(url, {"lift": made.json()["id"]}, format="json")
    assert lifted.status_code == 200 and lifted.json()["lifted_at"]


def test_the_page_records_a_suspension_seen_only_by_its_organizer_and_the_player(organizer, client):
    tournament = event(organizer)
    registration.open_registration(tournament, by=organizer)
    carla = UserFactory(username="carla", first_name="Carla", last_name="Soto")
    entrant = registration.enter(tournament, by=carla).entrant
    client.force_login(organizer)
    page = f"/t/{tournament.slug}/manage/entrants/{entrant.pk}/suspension/"
    assert client.get(page).status_code == 200
    today = TODAY()
    refused = client.post(
        page, {"starts_on": today.isoformat(), "ends_on": "nope", "reason": "Abuse"}
    )
    assert refused.status_code == 400 and "Give a date as YYYY-MM-DD." in refused.content.decode()
    done = client.post(
        page,
        {"starts_on": today.isoformat(), "ends_on": today.isoformat(), "reason": "Abuse"},
        follow=True,
    )
    assert "Carla Soto is suspended." in done.content.decode()
    manage = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert page in manage
    audit = client.get(f"/t/{tournament.slug}/manage/audit/").content.decode()
    assert "Suspension: Carla Soto" in audit
    player_page = f"/players/{entrant.player_id}/"
    assert "Suspensions (code of conduct)" in client.get(player_page).content.decode()
    client.force_login(carla)
    assert "Abuse" in client.get(player_page).content.decode()
    own = client.get("/accounts/").content.decode()
    assert "Suspensions (code of conduct)" in own and "Abuse" in own
    client.force_login(UserFactory())
    assert "Suspensions (code of conduct)" not in client.get(player_page).content.decode()
    client.logout()
    assert "Abuse" not in client.get(player_page).content.decode()

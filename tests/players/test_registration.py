"""Players enter themselves: the window, capacity and waiting list, approval, partners,
self check-in, and the emails that tell them (sent after commit, retried, never lost)."""

from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.utils import timezone

from jobs import runner
from players import registration
from players.identity import PlayerConflict
from players.models import Application, IdentityAct, Notice, Player
from tests.factories import SuperuserFactory, UserFactory, client_for
from tests.players.conftest import event
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)
Status = Application.Status


def user(name: str, **extra):
    first, _, last = name.partition(" ")
    return UserFactory(username=first.lower(), first_name=first, last_name=last, **extra)


def test_a_player_enters_themselves_and_is_told(organizer, tournament):
    registration.open_registration(tournament, by=organizer)
    ana = user("Ana Rivera")
    entry = registration.enter(tournament, by=ana)
    assert entry.status == Status.ENTERED
    assert entry.entrant.name == "Ana Rivera" and entry.entrant.player.user == ana
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    assert mail.outbox[0].subject == "capicu: your entry is confirmed"  # fixed wording
    assert "“Viernes Cut-Throat”" in mail.outbox[0].body  # the organizer's text, quoted
    assert Notice.objects.get().sent_at is not None
    # The new player linked to her account is in her identity record.
    [act] = IdentityAct.objects.filter(account=ana)
    assert (act.kind, act.by, act.player_id) == ("link", ana, entry.entrant.player_id)
    with pytest.raises(PlayerConflict):
        registration.enter(tournament, by=ana)


def test_registration_keeps_its_window(organizer, tournament):
    now = timezone.now()
    registration.open_registration(tournament, by=organizer, opens_at=now + timedelta(hours=1))
    with pytest.raises(PlayerConflict):
        registration.enter(tournament, by=user("Ana Rivera"))
    registration.open_registration(
        tournament, by=organizer, opens_at=now - timedelta(hours=2),
        closes_at=now - timedelta(hours=1),
    )  # fmt: skip
    with pytest.raises(PlayerConflict):
        registration.enter(tournament, by=user("Beto Cruz"))
    assert not tournament.entrants.exists()


def test_a_known_name_is_not_taken_without_saying_so(organizer, tournament):
    services.register_entrants(event(organizer, slug="old"), by=organizer, text="Ana Rivera")
    registration.open_registration(tournament, by=organizer)
    newcomer = user("Ana Rivera")
    with pytest.raises(PlayerConflict):
        registration.enter(tournament, by=newcomer)
    entry = registration.enter(tournament, by=newcomer, new_player=True)
    assert entry.player.homonym == 1 and Player.objects.count() == 2


def test_past_capacity_a_waiting_list_moves_up_when_someone_withdraws(organizer, tournament):
    registration.open_registration(tournament, by=organizer, capacity=2)
    ana, beto, cira, dino = (user(n) for n in ("Ana R", "Beto C", "Cira O", "Dino F"))
    first = registration.enter(tournament, by=ana)
    registration.enter(tournament, by=beto)
    third = registration.enter(tournament, by=cira)
    fourth = registration.enter(tournament, by=dino)
    assert (third.status, fourth.status) == (Status.WAITING, Status.WAITING)
    mail.outbox.clear()

    registration.withdraw_entry(first, by=ana)
    first.refresh_from_db(), third.refresh_from_db(), fourth.refresh_from_db()
    assert first.status == Status.WITHDRAWN and first.entrant.withdrawn
    assert third.status == Status.ENTERED and fourth.status == Status.WAITING
    assert [m.to for m in mail.outbox] == [["cira@example.org"]]
    assert "waiting list" in mail.outbox[0].body

    # An organizer's withdrawal frees a place the same way.
    services.withdraw(third.entrant, by=organizer)
    fourth.refresh_from_db()
    assert fourth.status == Status.ENTERED


def test_a_larger_capacity_moves_the_list_up(organizer, tournament):
    registration.open_registration(tournament, by=organizer, capacity=1)
    registration.enter(tournament, by=user("Ana R"))
    waiting = registration.enter(tournament, by=user("Beto C"))
    registration.open_registration(tournament, by=organizer, capacity=2)
    waiting.refresh_from_db()
    assert waiting.status == Status.ENTERED


def test_entries_wait_for_approval_when_asked(organizer, tournament):
    registration.open_registration(tournament, by=organizer, requires_approval=True)
    ana, beto = user("Ana R"), user("Beto C")
    one, two = registration.enter(tournament, by=ana), registration.enter(tournament, by=beto)
    assert one.status == two.status == Status.APPROVAL and not tournament.entrants.exists()
    assert registration.decide(one, by=organizer, approve=True).status == Status.ENTERED
    assert registration.decide(two, by=organizer, approve=False).status == Status.DECLINED
    with pytest.raises(Exception, match="not"):
        registration.decide(two, by=ana, approve=True)


def test_a_partner_accepts_and_the_team_is_entered(organizer):
    league = event(organizer, slug="parejas", ruleset="partners")
    registration.open_registration(league, by=organizer)
    ana, beto = user("Ana Rivera"), user("Beto Cruz")
    entry = registration.enter(league, by=ana, partner="beto")
    assert entry.status == Status.PARTNER and not league.entrants.exists()
    assert not mail.outbox  # Beto has not agreed to anything in this event yet
    with pytest.raises(PlayerConflict):
        registration.answer_partner(entry, by=ana, accept=True)
    entry = registration.answer_partner(entry, by=beto, accept=True)
    assert entry.status == Status.ENTERED
    assert league.entrants.get().name == "Ana Rivera & Beto Cruz"
    assert {m.to[0] for m in mail.outbox[-2:]} == {"ana@example.org", "beto@example.org"}


def test_a_partner_who_declines_ends_the_entry(organizer):
    league = event(organizer, slug="parejas", ruleset="partners")
    registration.open_registration(league, by=organizer)
    ana, beto = user("Ana R"), user("Beto C")
    entry = registration.enter(league, by=ana, partner="beto")
    assert registration.answer_partner(entry, by=beto, accept=False).status == Status.DECLINED
    # Ana may try again with another partner.
    user("Cira O")
    assert registration.enter(league, by=ana, partner="cira").status == Status.PARTNER


def test_self_check_in_only_inside_its_window(organizer, tournament):
    now = timezone.now()
    registration.open_registration(
        tournament, by=organizer, check_in_opens_at=now + timedelta(minutes=30)
    )
    ana = user("Ana R")
    entry = registration.enter(tournament, by=ana)
    with pytest.raises(PlayerConflict, match="Check-in is open from"):
        registration.self_check_in(tournament, by=ana)
    registration.open_registration(
        tournament, by=organizer, check_in_opens_at=now - timedelta(minutes=1),
        check_in_closes_at=now + timedelta(minutes=30),
    )  # fmt: skip
    assert registration.self_check_in(tournament, by=ana).checked_in
    entry.entrant.refresh_from_db()
    assert entry.entrant.checked_in
    with pytest.raises(PlayerConflict):
        registration.self_check_in(tournament, by=user("Beto C"))  # no entry


def test_a_failing_mail_server_never_loses_the_entry_and_the_sweep_sends_later(
    organizer, tournament
):
    registration.open_registration(tournament, by=organizer)
    with mock.patch("players.tasks.EmailMessage.send", side_effect=OSError("mail server away")):
        entry = registration.enter(tournament, by=user("Ana R"))
    assert entry.status == Status.ENTERED and tournament.entrants.count() == 1
    notice = Notice.objects.get()
    assert notice.sent_at is None and notice.attempts >= 1 and "away" in notice.last_error
    assert not mail.outbox
    Notice.objects.filter(pk=notice.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert runner.sweep() == 1  # what beat runs every 30 s
    notice.refresh_from_db()
    assert notice.sent_at is not None and len(mail.outbox) == 1


def test_players_get_their_table_when_the_round_is_published(organizer, tournament):
    registration.open_registration(tournament, by=organizer)
    players = [user(n) for n in ("Ana R", "Beto C", "Cira O", "Dino F")]
    for person in players:
        registration.enter(tournament, by=person)
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    mail.outbox.clear()
    services.publish_round(round_, by=organizer)
    assert sorted(m.to[0] for m in mail.outbox) == sorted(p.email for p in players)
    assert all(m.subject == "capicu: your table is published" for m in mail.outbox)
    assert all("you play at table 1" in m.body for m in mail.outbox)
    assert "“Ana R”" in mail.outbox[0].body


def test_emails_are_written_in_the_players_language(organizer, tournament):
    from accounts.services import set_language

    registration.open_registration(tournament, by=organizer)
    ana = user("Ana R")
    set_language(ana, "es")
    registration.enter(tournament, by=ana)
    # (The subject's Spanish comes with the merged catalogue; the body's is known already.)
    assert "Su inscripción, llegada y mesas:" in mail.outbox[0].body


def test_merging_carries_a_players_own_entries_along(organizer, tournament):
    from players.identity import merge_players

    registration.open_registration(tournament, by=organizer)
    ana = user("Ana Rivera")
    entry = registration.enter(tournament, by=ana)
    services.register_entrants(
        event(organizer, slug="old"), by=organizer, text="Ana Riviera",
        choices={"ana riviera|": 0},
    )  # fmt: skip
    old = Player.objects.get(display_name="Ana Riviera")
    # Ana's player is linked to her account: only a superuser merges it (players.identity).
    merge_players(old, entry.player, by=SuperuserFactory())
    entry.refresh_from_db()
    assert entry.player == old and old.entries.count() == 2
    old.refresh_from_db()
    assert old.user == ana


def test_players_get_their_table_when_a_bracket_seats_them_later(organizer, tournament):
    """A bracket's next table is seated when the games before it finish, in a round
    already published: its players are told their table then."""
    import random

    from tournaments.demo import play

    registration.open_registration(tournament, by=organizer)
    players = [user(f"J{n} Rivera") for n in range(8)]
    for person in players:
        registration.enter(tournament, by=person)
    stage = services.add_stage(
        tournament, by=organizer, name="Bracket", format="single_elimination",
        settings={"advance": 2},
    )  # fmt: skip
    services.update_tournament(tournament, by=organizer, status="running")
    services.publish_round(services.generate_round(stage, by=organizer), by=organizer)
    first = list(stage.rounds.get(number=1).matches.exclude(game=None))
    assert len(first) == 2
    mail.outbox.clear()
    for match in first:
        play(match.game, organizer, random.Random(match.pk))
    for match in first:
        services.advance_bracket(match)  # the task after each game did it already: no-op
    final = stage.rounds.get(number=2).matches.get()
    finalists = {seat.entrant.player.user.email for seat in final.seats.all()}
    assert len(finalists) == 4
    told = [m.to[0] for m in mail.outbox if "Round 2 is published" in m.body]
    assert sorted(told) == sorted(finalists)  # each finalist once


# --- nobody is emailed by someone else's act alone ---------------------------------------

LURE = "Capicu security: your account expires, sign in at https://evil.example now"


def published(tournament, organizer):
    """Round 1 of ``tournament`` paired and published (its tables told)."""
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    services.publish_round(services.generate_round(stage, by=organizer), by=organizer)


def test_pasting_known_players_into_an_event_emails_none_of_them(organizer, tournament):
    registration.open_registration(tournament, by=organizer)
    players = [user(n) for n in ("Ana R", "Beto C", "Cira O")]
    for person in players:
        registration.enter(tournament, by=person)  # linked players, known by name
    mallory = user("Mallory M")
    trap = event(mallory, slug="trap", name=LURE)
    registration.open_registration(trap, by=mallory)
    registration.enter(trap, by=mallory)
    services.register_entrants(trap, by=mallory, text="Ana R\nBeto C\nCira O")
    mail.outbox.clear()

    published(trap, mallory)
    assert [m.to for m in mail.outbox] == [["mallory@example.org"]]  # she entered herself
    told = mail.outbox[0]
    assert told.subject == "capicu: your table is published"
    assert "https://" not in told.body.split("--")[0] and "https[:]//evil.example" in told.body
    assert "Event, as its organizer named it: “Capicu security" in told.body


def test_a_player_who_claimed_their_entry_is_emailed_about_it(organizer, tournament):
    from players.identity import claim_player, issue_claim_code

    services.register_entrants(tournament, by=organizer, text="Ana R\nBeto C\nCira O\nDino F")
    ana = user("Ana R")
    claim_player(
        issue_claim_code(Player.objects.get(display_name="Ana R"), by=organizer).code, by=ana
    )
    mail.outbox.clear()
    published(tournament, organizer)
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]

    # An event that enters her player after she linked it is not hers to hear from.
    other = event(UserFactory(username="other-org"), slug="other")
    services.register_entrants(other, by=other.created_by, text="Ana R\nBeto C\nCira O\nDino F")
    mail.outbox.clear()
    published(other, other.created_by)
    assert not mail.outbox


def test_a_partner_invitation_loop_sends_no_email_and_is_capped(organizer, settings):
    settings.INVITATIONS_PER_SENDER_PER_HOUR = 3
    league = event(organizer, slug="parejas", ruleset="partners")
    registration.open_registration(league, by=organizer)
    user("Ana R")
    api = client_for(user("Mallory M"))
    for _ in range(3):
        entry = api.post("/api/v1/tournaments/parejas/applications/", {"partner": "ana"})
        assert entry.status_code == 201, entry.json()
        assert api.post(f"/api/v1/applications/{entry.json()['id']}/withdraw/").status_code == 200
    again = api.post("/api/v1/tournaments/parejas/applications/", {"partner": "ana"})
    assert again.status_code == 429 and again["Retry-After"]
    assert Application.objects.count() == 3 and not mail.outbox


def test_one_invitation_waits_between_two_people(organizer):
    first = event(organizer, slug="parejas", ruleset="partners")
    second = event(organizer, slug="parejas-2", ruleset="partners")
    for league in (first, second):
        registration.open_registration(league, by=organizer)
    ana, mallory = user("Ana R"), user("Mallory M")
    registration.enter(first, by=mallory, partner="ana")
    api = client_for(mallory)
    again = api.post("/api/v1/tournaments/parejas-2/applications/", {"partner": "ana"})
    assert again.status_code == 409 and "already waiting" in again.json()["detail"]
    back = client_for(ana).post(
        "/api/v1/tournaments/parejas-2/applications/", {"partner": "mallory"}
    )
    assert back.status_code == 409
    assert Application.objects.count() == 1


def test_a_pending_invitation_does_not_hold_the_invited_player_back(organizer):
    league = event(organizer, slug="parejas", ruleset="partners")
    registration.open_registration(league, by=organizer)
    ana, beto, mallory = user("Ana R"), user("Beto C"), user("Mallory M")
    unwanted = registration.enter(league, by=mallory, partner="ana")
    own = registration.enter(league, by=ana, partner="beto")
    assert own.status == Status.PARTNER
    assert registration.answer_partner(own, by=beto, accept=True).status == Status.ENTERED
    answer = client_for(ana).post(f"/api/v1/applications/{unwanted.pk}/accept/")
    assert answer.status_code == 409
    unwanted.refresh_from_db()
    assert unwanted.status == Status.PARTNER and league.entrants.count() == 1


def test_the_entry_page_lets_an_invited_player_enter_with_someone_else(client, organizer):
    league = event(organizer, slug="parejas", ruleset="partners")
    registration.open_registration(league, by=organizer)
    ana, beto, mallory = user("Ana R"), user("Beto C"), user("Mallory M")
    registration.enter(league, by=mallory, partner="ana")
    client.force_login(ana)
    page = client.get("/t/parejas/register/").content.decode()
    assert "Mallory M asks you to be their partner." in page and "Enter this event" in page
    client.post("/t/parejas/register/", {"action": "enter", "partner": "beto"})
    own = Application.objects.get(user=ana)
    assert own.status == Status.PARTNER and own.partner_user == beto


def test_naming_an_unknown_or_uninvitable_partner_gets_one_answer(organizer):
    league = event(organizer, slug="parejas", ruleset="partners")
    registration.open_registration(league, by=organizer)
    services.create_referee(league, by=organizer, username="mesa1")
    user("Gone G", is_active=False)
    api = client_for(user("Mallory M"))
    answers = [
        api.post("/api/v1/tournaments/parejas/applications/", {"partner": name})
        for name in ("mesa1", "gone", "nobody-at-all")
    ]
    assert {a.status_code for a in answers} == {400}
    assert {a.json()["detail"] for a in answers} == {"No user by that name can be invited."}
    assert not Application.objects.exists()


def test_an_event_account_cannot_enter_an_event(organizer, tournament):
    registration.open_registration(tournament, by=organizer)
    mesa, _ = services.create_referee(tournament, by=organizer, username="mesa1")
    other = event(UserFactory(username="other-org"), slug="other")
    registration.open_registration(other, by=other.created_by, capacity=1)
    for slug in ("viernes", "other"):
        refused = client_for(mesa).post(f"/api/v1/tournaments/{slug}/applications/", {})
        assert refused.status_code == 409 and "referees that event only" in refused.json()["detail"]
    assert not Application.objects.exists() and not Player.objects.filter(user=mesa).exists()


def test_emails_stop_for_whoever_turns_them_off_and_carry_a_one_click_link(
    client, organizer, tournament
):
    registration.open_registration(tournament, by=organizer)
    ana = user("Ana R")
    registration.enter(tournament, by=ana)
    told = mail.outbox[0]
    link = told.extra_headers["List-Unsubscribe"].strip("<>")
    assert told.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link in told.body
    path = link.removeprefix("http://127.0.0.1:8000")
    assert "Stop every email" in client.get(path).content.decode()  # GET only asks
    assert client.post(path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    mail.outbox.clear()
    second = event(organizer, slug="otro")
    registration.open_registration(second, by=organizer)
    assert registration.enter(second, by=ana).status == Status.ENTERED
    assert not mail.outbox and Notice.objects.count() == 1


def test_emails_are_capped_per_recipient_and_per_sender(organizer, settings):
    settings.NOTICES_PER_RECIPIENT_PER_HOUR = 1
    settings.NOTICES_PER_SENDER_PER_HOUR = 2
    events = [event(organizer, slug=f"e{n}") for n in range(2)]
    for each in events:
        registration.open_registration(each, by=organizer)
    ana = user("Ana R")
    for each in events:
        registration.enter(each, by=ana)
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]  # one an hour for her
    registration.enter(events[0], by=user("Beto C"))
    registration.enter(events[0], by=user("Cira O"))
    # The organizer's events caused two emails this hour: Cira's is not written.
    assert [m.to[0] for m in mail.outbox] == ["ana@example.org", "beto@example.org"]
    assert Application.objects.filter(status=Status.ENTERED).count() == 4


def test_an_email_to_someone_who_turned_emails_off_meanwhile_is_not_sent(organizer, tournament):
    from django.db import transaction

    from accounts.services import set_emails

    registration.open_registration(tournament, by=organizer)
    ana = user("Ana R")
    with transaction.atomic():
        registration.enter(tournament, by=ana)
        assert Notice.objects.count() == 1  # written with the entry...
        set_emails(ana, False)
    assert not mail.outbox and not Notice.objects.exists()  # ...and dropped unsent

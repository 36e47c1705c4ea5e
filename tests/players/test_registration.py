"""Players enter themselves: the window, capacity and waiting list, approval, partners,
self check-in, and the emails that tell them (sent after commit, retried, never lost)."""

from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import Player
from players import registration
from players.identity import PlayerConflict
from players.models import Application, Notice
from players.tasks import sweep_notices
from tests.factories import UserFactory
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
    assert "Viernes Cut-Throat" in mail.outbox[0].subject
    assert Notice.objects.get().sent_at is not None
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
    assert mail.outbox[-1].to == ["beto@example.org"]
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
    with mock.patch("players.tasks.send_mail", side_effect=OSError("mail server away")):
        entry = registration.enter(tournament, by=user("Ana R"))
    assert entry.status == Status.ENTERED and tournament.entrants.count() == 1
    notice = Notice.objects.get()
    assert notice.sent_at is None and notice.attempts >= 1 and "away" in notice.last_error
    assert not mail.outbox
    Notice.objects.filter(pk=notice.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert sweep_notices() == 1
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
    assert all("table 1" in m.subject for m in mail.outbox)
    assert "Ana R" in mail.outbox[0].body


def test_emails_are_written_in_the_players_language(organizer, tournament):
    from accounts.services import set_language

    registration.open_registration(tournament, by=organizer)
    ana = user("Ana R")
    set_language(ana, "es")
    registration.enter(tournament, by=ana)
    assert mail.outbox[0].subject == "Está inscrito en Viernes Cut-Throat"


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
    merge_players(old, entry.player, by=organizer)
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
    told = [m.to[0] for m in mail.outbox if "round 2" in m.subject]
    assert sorted(told) == sorted(finalists)  # each finalist once

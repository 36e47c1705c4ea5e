"""The event day: check-in that decides who is seated, late arrivals, and a bracket's
walkovers."""

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tests.factories import UserFactory, event_referee
from tests.tournaments.test_services import NAMES, play_out
from tournaments import clock
from tournaments.models import Match, MatchSeat, Round
from tournaments.services import (
    TournamentConflict,
    TournamentError,
    add_stage,
    advance_bracket,
    assign_referee,
    check_in,
    create_tournament,
    generate_round,
    publish_round,
    register_entrants,
    set_check_in,
    withdraw,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def event(organizer, players: int, *, table_size: int = 4, time_zone: str = "UTC"):
    tournament = create_tournament(
        by=organizer,
        name="Copa",
        ruleset_key="cutthroat",
        table_size=table_size,
        time_zone=time_zone,
    )
    register_entrants(tournament, by=organizer, text="\n".join(NAMES[:players]))
    return tournament


def seated(round_: Round) -> set[int]:
    return set(MatchSeat.objects.filter(round=round_).values_list("entrant_id", flat=True))


def check_in_all_but(tournament, organizer, *absent):
    for entrant in tournament.entrants.all():
        if entrant.name not in absent:
            check_in(entrant, by=organizer)


def test_a_stage_that_requires_check_in_seats_only_those_checked_in(organizer):
    tournament = event(organizer, 9)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer, NAMES[8])
    round_ = generate_round(stage, by=organizer)
    absent = tournament.entrants.get(name=NAMES[8])
    assert absent.pk not in seated(round_)
    assert len(seated(round_)) == 8
    assert round_.matches.count() == 2


def test_without_the_requirement_everyone_is_seated_checked_in_or_not(organizer):
    tournament = event(organizer, 8)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = generate_round(stage, by=organizer)
    assert len(seated(round_)) == 8


def test_a_late_arrival_joins_from_the_next_round_and_an_absent_player_sits_out(organizer):
    tournament = event(organizer, 8, table_size=2)
    stage = add_stage(
        tournament, by=organizer, name="Swiss", format="swiss", settings={"rounds": 3}
    )
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer, NAMES[7], NAMES[6])
    late = tournament.entrants.get(name=NAMES[7])
    first = generate_round(stage, by=organizer)
    assert len(seated(first)) == 6 and late.pk not in seated(first)
    publish_round(first, by=organizer)
    referee = event_referee(tournament)
    rng = random.Random(4)
    for match in first.matches.filter(bye=False):
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, rng)
    # The late one arrives; one who played round 1 leaves the hall.
    check_in(late, by=organizer)
    gone = tournament.entrants.get(pk=next(iter(seated(first))))
    check_in(gone, by=organizer, checked_in=False)
    second = generate_round(stage, by=organizer)
    assert late.pk in seated(second)
    assert gone.pk not in seated(second)
    assert len(seated(second)) == 6


def test_check_in_is_refused_outside_its_window_unless_the_organizer_overrides(organizer):
    tournament = event(organizer, 4, time_zone="America/Puerto_Rico")
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    now = timezone.now()
    set_check_in(
        stage,
        by=organizer,
        required=True,
        opens=now + timedelta(hours=1),
        closes=now + timedelta(hours=3),
    )
    entrant = tournament.entrants.first()
    with pytest.raises(TournamentConflict) as early:
        check_in(entrant, by=organizer)
    # Said on the event's clock (UTC-4), not the server's.
    local = (now + timedelta(hours=1)).astimezone(clock.zone(tournament))
    assert local.strftime("%H:%M") in early.value.message
    assert "America/Puerto_Rico" in early.value.message
    assert check_in(entrant, by=organizer, override=True).checked_in
    # Marking someone absent is never refused.
    assert not check_in(entrant, by=organizer, checked_in=False).checked_in
    set_check_in(stage, by=organizer, required=True, closes=now - timedelta(minutes=1))
    with pytest.raises(TournamentConflict) as late:
        check_in(entrant, by=organizer)
    assert "closed" in late.value.message
    set_check_in(stage, by=organizer, required=True, opens=now - timedelta(hours=1))
    assert check_in(entrant, by=organizer).checked_in


def test_a_window_is_only_checked_where_the_stage_requires_check_in(organizer):
    tournament = event(organizer, 4)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=False, closes=timezone.now() - timedelta(hours=1))
    assert check_in(tournament.entrants.first(), by=organizer).checked_in


def test_a_window_must_open_before_it_closes(organizer):
    tournament = event(organizer, 4)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    now = timezone.now()
    with pytest.raises(TournamentError) as error:
        set_check_in(stage, by=organizer, required=True, opens=now, closes=now)
    assert error.value.field == "check_in_closes"
    with pytest.raises(TournamentError):
        set_check_in(stage, by=organizer, required=True, opens=datetime(2026, 5, 1, 9, 0))
    with pytest.raises(TournamentError):
        set_check_in(stage, by=organizer, required="yes")
    outsider = UserFactory(username="outsider")
    with pytest.raises(Exception):  # noqa: B017 - the permission registry's refusal
        set_check_in(stage, by=outsider, required=True)


def test_times_are_read_and_shown_on_the_events_clock(organizer):
    tournament = event(organizer, 2, time_zone="Europe/Madrid")
    moment = clock.read_local("2026-07-01T09:30", tournament)
    assert moment.astimezone(UTC).hour == 7  # summer time, UTC+2
    assert clock.local_text(moment, tournament) == "2026-07-01 09:30 (Europe/Madrid)"
    assert clock.input_value(moment, tournament) == "2026-07-01T09:30"
    assert clock.read_local("", tournament) is None
    for bad in ("tomorrow", "2026-13-01 10:00", "9" * 40):
        with pytest.raises(ValueError):
            clock.read_local(bad, tournament)


def test_a_withdrawn_entrants_bracket_table_is_a_walkover_with_no_game(organizer):
    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    gone = tournament.entrants.get(name=NAMES[3])  # seed 4 meets seed 1
    withdraw(gone, by=organizer)
    first = generate_round(stage, by=organizer)
    walkover = Match.objects.get(round=first, seats__entrant=gone)
    assert walkover.game is None and not walkover.bye
    seats = {s.entrant_id: s.did_not_play for s in walkover.seats.all()}
    assert seats[gone.pk] == MatchSeat.DidNotPlay.WITHDRAWN
    winner = next(pk for pk, why in seats.items() if not why)
    publish_round(first, by=organizer)
    other = Match.objects.get(round=first, game__isnull=False)
    referee = event_referee(tournament)
    assign_referee(other, referee, by=organizer)
    play_out(other.game, referee, random.Random(1))
    advance_bracket(other)
    final = Match.objects.get(round__stage=stage, slot="R2-1")
    assert winner in set(final.seats.values_list("entrant_id", flat=True))
    assert final.game is not None


def test_an_absent_entrant_in_a_bracket_that_requires_check_in_gives_a_walkover(organizer):
    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer)
    first = generate_round(stage, by=organizer)
    publish_round(first, by=organizer)
    referee = event_referee(tournament)
    for match in first.matches.all():
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, random.Random(match.pk))
    winners = [s.entrant for m in first.matches.all() for s in m.seats.all() if s.won]
    # One winner leaves before the final is seated: the final is a walkover.
    check_in(winners[0], by=organizer, checked_in=False)
    for match in first.matches.all():
        advance_bracket(match)
    final = Match.objects.get(round__stage=stage, slot="R2-1")
    assert final.game is None
    why = {s.entrant_id: s.did_not_play for s in final.seats.all()}
    assert why == {winners[0].pk: "no_show", winners[1].pk: ""}

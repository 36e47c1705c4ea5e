"""Schedules searched ahead and stored; pairing reads them and never searches under the
locks; late arrivals re-planned; every table size; brackets advanced after the commit."""

import itertools

import pytest
from django.test import Client

from tests.factories import UserFactory, client_for, event_referee
from tournaments.models import Match, MatchSeat, Round, ScheduleEntry, StageSchedule
from tournaments.pairing import PairingError
from tournaments.services import (
    TournamentConflict,
    add_stage,
    assign_referee,
    create_tournament,
    generate_round,
    publish_round,
    register_entrant,
    register_entrants,
)
from tournaments.services import pairing as adapter
from tournaments.services import rounds as rounds_service

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def event(organizer, players, *, table_size=4, ruleset="cutthroat", **overrides):
    tournament = create_tournament(
        by=organizer,
        name="Copa",
        ruleset_key=ruleset,
        table_size=table_size,
        overrides=overrides,
    )
    register_entrants(
        tournament, by=organizer, text="\n".join(f"Player {i:02d}" for i in range(players))
    )
    return tournament


def meetings(stage) -> dict[tuple[int, int], int]:
    seen: dict[tuple[int, int], int] = {}
    for match in Match.objects.filter(round__stage=stage, bye=False).prefetch_related("seats"):
        ids = sorted(seat.entrant_id for seat in match.seats.all())
        for pair in itertools.combinations(ids, 2):
            seen[pair] = seen.get(pair, 0) + 1
    return seen


def test_adding_a_stage_stores_its_schedule_and_the_page_shows_it(
    organizer, django_capture_on_commit_callbacks
):
    tournament = event(organizer, 12)
    with django_capture_on_commit_callbacks(execute=True):
        stage = add_stage(
            tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 4}
        )
    state = StageSchedule.objects.get(stage=stage)
    assert state.status == StageSchedule.Status.READY
    assert (state.entrants, state.first_round, state.rounds) == (12, 1, 4)
    assert ScheduleEntry.objects.filter(stage=stage).count() == 4
    browser = Client()
    browser.force_login(organizer)
    page = browser.get(f"/t/{tournament.slug}/manage/")
    assert "Schedule ready: 4 rounds for 12 entrants" in page.content.decode()
    polled = browser.get(f"/t/{tournament.slug}/stages/{stage.pk}/schedule/")
    assert polled.status_code == 200
    assert "hx-trigger" not in polled.content.decode()  # ready: nothing left to poll
    browser.force_login(UserFactory())
    outsider = browser.get(f"/t/{tournament.slug}/stages/{stage.pk}/schedule/")
    assert outsider.status_code in (403, 404)


def test_every_round_reads_the_stored_schedule_without_searching(
    organizer, monkeypatch, django_capture_on_commit_callbacks
):
    tournament = event(organizer, 10)
    with django_capture_on_commit_callbacks(execute=True):
        stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")

    def no_search(need):
        raise AssertionError("searched again")

    monkeypatch.setattr(adapter, "compute_schedule", no_search)
    monkeypatch.setattr("tournaments.pairing.round_robin.compute_schedule", no_search)
    for _ in range(3):
        publish_round(generate_round(stage, by=organizer), by=organizer)
    assert Round.objects.filter(stage=stage).count() == 3


def test_pairing_never_searches_while_holding_the_locks(organizer, monkeypatch):
    tournament = event(organizer, 10)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    events = []
    lock, search, generate = (
        rounds_service._lock_tournament,
        adapter.compute_schedule,
        rounds_service._generate,
    )

    def locking(tournament):
        events.append("lock")
        return lock(tournament)

    def searching(need):
        events.append("search")
        return search(need)

    def generating(stage, **kwargs):
        try:
            return generate(stage, **kwargs)
        finally:
            events.append("unlocked")

    monkeypatch.setattr(rounds_service, "_lock_tournament", locking)
    monkeypatch.setattr(adapter, "compute_schedule", searching)
    monkeypatch.setattr(rounds_service, "_generate", generating)
    generate_round(stage, by=organizer)
    assert events == ["search", "lock", "unlocked"]


def test_round_one_flags_speak_of_its_own_tables(organizer):
    tournament = event(organizer, 10)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = generate_round(stage, by=organizer)
    codes = [flag["code"] for flag in round_.flags]
    assert "rematch" not in codes
    assert not any("repeat" in flag["message"] for flag in round_.flags)
    # Ten at tables of four: two tables of three this round, said in plain words.
    assert any(
        flag["message"].startswith("short tables this round: 2 of 3") for flag in round_.flags
    )


def test_a_late_arrival_joins_the_next_round_without_repeat_meetings_two_a_table(organizer):
    tournament = event(organizer, 7, table_size=2)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    for _ in range(2):
        publish_round(generate_round(stage, by=organizer), by=organizer)
    late = register_entrant(tournament, by=organizer, name="Late Comer")
    while True:
        try:
            round_ = generate_round(stage, by=organizer)
        except TournamentConflict:
            break
        publish_round(round_, by=organizer)
        seated = set(MatchSeat.objects.filter(round=round_).values_list("entrant_id", flat=True))
        assert late.pk in seated  # joins from the next round on
    assert Round.objects.filter(stage=stage).count() == 7  # eight entrants: seven rounds
    assert all(count == 1 for count in meetings(stage).values())
    flags = [f for r in Round.objects.filter(stage=stage) for f in r.flags]
    assert not [f for f in flags if f["code"] == "rematch"]
    byes = MatchSeat.objects.filter(round__stage=stage, match__bye=True)
    assert len(set(byes.values_list("entrant_id", flat=True))) == byes.count()


def test_a_late_arrival_at_tables_of_four_is_planned_around(organizer):
    # Fifteen (one table of three) and a sixteenth from round 2: four tables of four.
    tournament = event(organizer, 15)
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 4}
    )
    publish_round(generate_round(stage, by=organizer), by=organizer)
    late = register_entrant(tournament, by=organizer, name="Late Comer")
    for _ in range(3):
        later = generate_round(stage, by=organizer)
        publish_round(later, by=organizer)
        assert MatchSeat.objects.filter(round=later, entrant=late).exists()
    assert all(count == 1 for count in meetings(stage).values())


def test_a_two_sided_round_robin_plays_the_rounds_it_is_set_to(organizer):
    tournament = event(organizer, 8, table_size=2)
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 3}
    )
    for _ in range(3):
        publish_round(generate_round(stage, by=organizer), by=organizer)
    with pytest.raises(TournamentConflict):
        generate_round(stage, by=organizer)


@pytest.mark.parametrize("size", [5, 6])
@pytest.mark.parametrize(
    ("format", "options"),
    [("round_robin", {"rounds": 3}), ("swiss", {"rounds": 3}), ("pools", {"pools": 2})],
)
def test_two_box_at_five_or_six_a_table_plays_every_format(organizer, size, format, options):
    tournament = event(organizer, 4 * size, table_size=size, ruleset="two_box")
    stage = add_stage(tournament, by=organizer, name="Stage", format=format, settings=options)
    round_ = generate_round(stage, by=organizer)
    sizes = [m.seats.count() for m in round_.matches.all()]
    assert sum(sizes) == 4 * size
    assert max(sizes) == size


def test_a_pairing_error_in_advancing_a_bracket_does_not_fail_the_referees_hand(
    organizer, monkeypatch, django_capture_on_commit_callbacks
):
    tournament = event(organizer, 4, table_size=2, target=25)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    referee = event_referee(tournament)
    match = round_.matches.order_by("table_number").first()
    assign_referee(match, referee, by=organizer)

    def broken(*args, **kwargs):
        raise PairingError("The bracket cannot be paired.")

    monkeypatch.setattr(adapter, "pair", broken)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(referee).post(
            f"/api/v1/games/{match.game_id}/hands/",
            {"number": 1, "ended": "domino", "domino_by": "A", "pips": {"A": 0, "B": 30}},
            format="json",
        )
    assert response.status_code == 201, response.json()
    match.refresh_from_db()
    assert match.game.status == "finished"
    assert match.needs_attention
    assert "could not move the winners on" in match.attention_reason


def test_advancing_a_bracket_twice_seats_nobody_twice(organizer):
    from tests.tournaments.test_services import play_out

    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    referee = event_referee(tournament)
    import random

    rng = random.Random(1)
    for match in round_.matches.all():
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, rng)
    from tournaments.tasks import advance_bracket

    first = round_.matches.first()
    advance_bracket(first.pk)
    advance_bracket(first.pk)
    assert Match.objects.filter(round__stage=stage, slot="R2-1").count() == 1


def test_the_sweep_moves_on_winners_an_outage_left_waiting(organizer):
    from tests.tournaments.test_services import play_out
    from tournaments.tasks import sweep_brackets

    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    referee = event_referee(tournament)
    import random

    rng = random.Random(2)
    for match in round_.matches.all():
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, rng)  # in a test nothing commits: no task ran
    assert not Match.objects.filter(round__stage=stage, slot="R2-1").exists()
    assert sweep_brackets() == 1
    assert Match.objects.filter(round__stage=stage, slot="R2-1").exists()

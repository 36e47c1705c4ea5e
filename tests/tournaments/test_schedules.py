"""Schedules searched ahead and stored; pairing reads them and never searches under the
locks; late arrivals re-planned; every table size; brackets advanced after the commit."""

import itertools
import random

import pytest
from django.test import Client

from jobs import runner
from tests.factories import UserFactory, client_for, event_referee
from tournaments.demo import play
from tournaments.models import Match, MatchSeat, Round, ScheduleEntry, StageSchedule
from tournaments.pairing import PairingError
from tournaments.read.selectors import standing_lines
from tournaments.read.standings_store import rebuild_standings
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

    def no_search(need, **kwargs):
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
        rounds_service.lock_tournament,
        adapter.compute_schedule,
        rounds_service._generate,
    )

    def locking(tournament):
        events.append("lock")
        return lock(tournament)

    def searching(need, **kwargs):
        events.append("search")
        return search(need, **kwargs)

    def generating(stage, **kwargs):
        try:
            return generate(stage, **kwargs)
        finally:
            events.append("unlocked")

    monkeypatch.setattr(rounds_service, "lock_tournament", locking)
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
    """Every table of the round is seated, played to its end and counted: a table of five
    or six keeps its result on its seats and in the standings."""
    tournament = event(organizer, 4 * size, table_size=size, ruleset="two_box")
    stage = add_stage(tournament, by=organizer, name="Stage", format=format, settings=options)
    round_ = generate_round(stage, by=organizer)
    sizes = [m.seats.count() for m in round_.matches.all()]
    assert sum(sizes) == 4 * size
    assert max(sizes) == size
    publish_round(round_, by=organizer)
    # Seeded by the table, not the row's id, so that every database plays the same hands
    # (the demo's hands do not settle a two-box block tied on pips).
    for match in round_.matches.filter(bye=False):
        play(match.game, organizer, random.Random(f"{format}-{size}-{match.table_number}"))
    seats = MatchSeat.objects.filter(round=round_)
    assert not seats.filter(total=None).exists()
    assert set(seats.values_list("sides", flat=True)) == set(sizes)
    rebuild_standings(tournament.pk)
    lines, total = standing_lines(tournament, stage=stage)
    assert total == 4 * size
    assert all(line.games_played == 1 for line in lines)
    # Each entrant's points against are the others' totals at its table over its
    # opponents, exactly (a table of six shares them out in fifths).
    for seat in seats.select_related("match"):
        line = next(line for line in lines if line.entrant_id == seat.entrant_id)
        against = seat.opponents_total / (seat.sides - 1)
        assert line.metrics["points_against"] == pytest.approx(round(against, 2))


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
    assert runner.sweep() == 1  # what beat runs every 30 s
    assert Match.objects.filter(round__stage=stage, slot="R2-1").exists()


@pytest.fixture
def small_budgets(monkeypatch):
    """The quick and full searches with smaller caps (the same search, faster tests): at
    13 players, tables of four, five rounds, the quick one stops with more repeats."""
    from tournaments.pairing import table_round_robin

    monkeypatch.setattr(table_round_robin, "QUICK_EVALUATION_BUDGET", 3_000)
    monkeypatch.setattr(table_round_robin, "EVALUATION_BUDGET", 60_000)


@pytest.fixture
def asked(monkeypatch) -> list:
    """Whether each schedule search asked for is the quick one (True) or the full one."""
    from tournaments.pairing import table_round_robin

    searches = []
    replan = table_round_robin.replan

    def spying(*args, **kwargs):
        searches.append(kwargs.get("quick"))
        return replan(*args, **kwargs)

    monkeypatch.setattr(table_round_robin, "replan", spying)
    return searches


def rr_stage(organizer, players=13, rounds=5):
    tournament = event(organizer, players)
    stage = add_stage(  # no task runs here: nothing commits in a test
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": rounds}
    )
    StageSchedule.objects.create(stage=stage)  # the task is asked for and has not run yet
    return tournament, stage


def test_generating_a_round_with_nothing_stored_searches_with_the_quick_budget(
    organizer, small_budgets, monkeypatch, asked
):
    _tournament, stage = rr_stage(organizer)
    assert not ScheduleEntry.objects.filter(stage=stage).exists()
    generate_round(stage, by=organizer)
    assert asked == [True]
    entries = ScheduleEntry.objects.filter(stage=stage)
    assert entries.count() == 5
    assert all(entry.quick for entry in entries)  # the task's full search may replace it
    assert all(3_000 < entry.work < 10_000 for entry in entries)
    # Until the task runs, the page says it is waiting for it.
    assert StageSchedule.objects.get(stage=stage).status == StageSchedule.Status.QUEUED


def test_without_a_worker_a_change_of_the_field_waits_for_the_quick_search_only(
    organizer, small_budgets, monkeypatch, asked, django_capture_on_commit_callbacks
):
    """Where tasks run in the request (no broker), a check-in or a registration stores
    the quick schedule and leaves the full search to the round's generation: no tap
    waits for it, and the round is still paired from the full search's plan."""
    monkeypatch.setattr(runner, "in_process", lambda: True)
    tournament, stage = rr_stage(organizer, players=12)
    with django_capture_on_commit_callbacks(execute=True):
        register_entrant(tournament, by=organizer, name="Late Comer")
    assert asked == [True]  # thirteen at tables of four: the quick budget stops it
    state = StageSchedule.objects.get(stage=stage)
    assert (state.status, state.entrants, state.quick) == ("deferred", 13, True)
    assert all(entry.quick for entry in ScheduleEntry.objects.filter(stage=stage))
    browser = Client()
    browser.force_login(organizer)
    page = browser.get(f"/t/{tournament.slug}/stages/{stage.pk}/schedule/").content.decode()
    assert (
        f"Schedule ready to use: 5 rounds for 13 entrants; repeat meetings: {state.repeats}. "
        "Generating the round searches for fewer." in page
    )
    assert "hx-trigger" not in page  # nothing runs meanwhile: nothing to poll

    round_ = generate_round(stage, by=organizer)
    assert asked == [True, False]  # the full search, before the round is paired
    entries = ScheduleEntry.objects.filter(stage=stage)
    assert entries.count() == 5 and not any(entry.quick for entry in entries)
    tables = [
        [seat.entrant_id for seat in match.seats.order_by("position")]
        for match in round_.matches.order_by("table_number")
    ]
    assert tables == entries.get(round_number=1).tables
    quick_repeats = state.repeats
    state.refresh_from_db()
    assert state.status == "ready" and not state.quick
    assert state.repeats < quick_repeats


def test_the_task_replaces_the_quick_schedule_by_the_full_one_before_any_round(
    organizer, small_budgets, monkeypatch
):
    tournament, stage = rr_stage(organizer)
    browser = Client()
    browser.force_login(organizer)
    seen = []
    search = adapter.compute_schedule

    def watching(need, **kwargs):
        if not kwargs.get("quick"):  # the full search: the quick plan is stored and shown
            state = StageSchedule.objects.get(stage=stage)
            quick = ScheduleEntry.objects.filter(stage=stage)
            page = browser.get(f"/t/{tournament.slug}/stages/{stage.pk}/schedule/")
            seen.append(
                (
                    state.status,
                    state.repeats,
                    sorted(quick.values_list("quick", flat=True)),
                    page.content.decode(),
                )
            )
        return search(need, **kwargs)

    monkeypatch.setattr(adapter, "compute_schedule", watching)
    assert adapter.plan_stage(stage.pk) == StageSchedule.Status.READY
    ((status, quick_repeats, flags, page),) = seen
    assert status == StageSchedule.Status.IMPROVING
    assert flags == [True] * 5
    assert f"Schedule ready to use: 5 rounds for 13 entrants; repeat meetings: {quick_repeats}" in (
        page
    )
    assert "hx-trigger" in page  # still polled while the full search runs
    state = StageSchedule.objects.get(stage=stage)
    assert state.repeats < quick_repeats
    assert not state.quick
    entries = ScheduleEntry.objects.filter(stage=stage)
    assert entries.count() == 5  # the quick plan's entries are gone
    assert not any(entry.quick for entry in entries)
    first = entries.get(round_number=1)
    round_ = generate_round(stage, by=organizer)
    tables = [
        [seat.entrant_id for seat in match.seats.order_by("position")]
        for match in round_.matches.order_by("table_number")
    ]
    assert tables == first.tables
    page = browser.get(f"/t/{tournament.slug}/stages/{stage.pk}/schedule/").content.decode()
    assert f"Schedule ready: 5 rounds for 13 entrants; repeat meetings: {state.repeats}." in page
    assert "hx-trigger" not in page


def test_a_round_generated_during_the_full_search_keeps_its_tables(
    organizer, small_budgets, monkeypatch
):
    """The full search never replaces a round already generated: the rounds left are
    searched in full around the meetings played, kept only if they repeat fewer."""
    from tournaments.pairing.round_robin import plan_repeats, stored_plan

    _tournament, stage = rr_stage(organizer)
    generated = []
    search = adapter.compute_schedule

    def organizer_presses(need, **kwargs):
        if not kwargs.get("quick") and not generated:
            generated.append(generate_round(stage, by=organizer))  # from the quick plan
        return search(need, **kwargs)

    monkeypatch.setattr(adapter, "compute_schedule", organizer_presses)
    adapter.ensure_schedules(stage, _needs(stage), quick=True)
    quick = {e.key: adapter._as_engine_entry(e) for e in ScheduleEntry.objects.filter(stage=stage)}
    (need_one,) = _needs(stage)
    quick_plan = stored_plan(need_one, quick)
    assert adapter.plan_stage(stage.pk) == StageSchedule.Status.READY
    (round_,) = generated
    tables = [
        [seat.entrant_id for seat in match.seats.order_by("position")]
        for match in round_.matches.order_by("table_number")
    ]
    assert tables == quick_plan[need_one.key]["tables"]  # round 1 is the quick plan's
    assert ScheduleEntry.objects.get(stage=stage, key=need_one.key).tables == tables
    # Round 2 on: what the next round reads is settled (searched in full) and repeats no
    # more than the quick plan's rounds left did.
    (need_two,) = _needs(stage)
    assert need_two.first_round == 2
    rows = {e.key: adapter._as_engine_entry(e) for e in ScheduleEntry.objects.filter(stage=stage)}
    rest = stored_plan(need_two, rows)
    assert rest is not None and not any(entry["quick"] for entry in rest.values())
    quick_rest = stored_plan(need_two, quick)
    assert plan_repeats(need_two, rest) <= plan_repeats(need_two, quick_rest)
    state = StageSchedule.objects.get(stage=stage)
    assert (state.first_round, state.rounds, state.quick) == (2, 4, False)


def _needs(stage):
    stage = type(stage).objects.select_related("tournament").get(pk=stage.pk)
    needs, _number, _total = adapter._needs_now(stage)
    return needs


@pytest.mark.parametrize(
    ("status", "quick", "says", "polled"),
    [
        ("queued", False, "waiting to be computed", True),
        ("computing", False, "Schedule: computing 5 rounds for 13 entrants", True),
        ("improving", True, "Schedule ready to use: 5 rounds for 13 entrants", True),
        ("ready", False, "Schedule ready: 5 rounds for 13 entrants; repeat meetings: 7.", False),
        ("ready", True, "paired from the quick search's schedule before the full", False),
    ],
)
def test_the_manage_page_says_where_the_search_stands(organizer, status, quick, says, polled):
    tournament, stage = rr_stage(organizer)
    StageSchedule.objects.filter(stage=stage).update(
        status=status, quick=quick, entrants=13, rounds=5, repeats=7, unavoidable=False
    )
    browser = Client()
    browser.force_login(organizer)
    page = browser.get(f"/t/{tournament.slug}/stages/{stage.pk}/schedule/").content.decode()
    assert says in page.replace("&#x27;", "'")
    assert ("hx-trigger" in page) == polled


def test_a_quick_schedule_left_in_use_is_said_to_be_one(organizer, small_budgets, monkeypatch):
    """If rounds keep being generated during the full searches, the task stops after a
    few passes and says the rounds left come from the quick search."""
    _tournament, stage = rr_stage(organizer)
    search = adapter.compute_schedule
    monkeypatch.setattr(adapter, "MAX_PASSES", 1)

    def organizer_presses(need, **kwargs):
        if not kwargs.get("quick") and not stage.rounds.exists():
            generate_round(stage, by=organizer)
        return search(need, **kwargs)

    monkeypatch.setattr(adapter, "compute_schedule", organizer_presses)
    assert adapter.plan_stage(stage.pk) == StageSchedule.Status.READY
    state = StageSchedule.objects.get(stage=stage)
    assert (state.status, state.first_round, state.rounds, state.quick) == ("ready", 2, 4, True)
    (need,) = _needs(stage)
    assert adapter.stored(stage, [need.key])[need.key]["quick"]

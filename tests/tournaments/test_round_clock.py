"""The round clock (RULES.md, "Round clock"): a stage's time limit, started at publication
or by an organizer; when time is called the hand in play (and N more) is finished, then the
highest total wins and equal top totals follow the rule set's tie rule."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from scoring import engine
from scoring.models import Game, OfficialAct
from scoring.rulesets import ScoringError, get_ruleset
from scoring.services import record_hand, time_limit
from tests.factories import UserFactory, client_for, event_referee
from tournaments import round_clock, services
from tournaments.models import Round
from tournaments.services import TournamentConflict, TournamentError

CUTTHROAT = get_ruleset("cutthroat", players=4)
PLAY_ON = get_ruleset("cutthroat", players=4, overrides={"play_on_tie_at_target": True})
NO_PLAY_ON = get_ruleset("cutthroat", players=4, overrides={"play_on_tie_at_target": False})


# --- the pure rule ---------------------------------------------------------------------


def test_before_time_is_called_the_target_decides():
    outcome = engine.decide_game_on_time(
        CUTTHROAT, {"A": 90, "B": 40}, hands_since_call=0, hands_after_time=0
    )
    assert not outcome.finished


def test_the_hand_in_play_ends_the_game_and_the_highest_total_wins():
    totals = {"A": 90, "B": 40, "C": 120, "D": 15}
    outcome = engine.decide_game_on_time(CUTTHROAT, totals, hands_since_call=1, hands_after_time=0)
    assert outcome.finished and outcome.winner == "C"


def test_n_more_hands_are_played_after_the_one_in_play():
    totals = {"A": 90, "B": 40}
    for since in (1, 2):
        assert not engine.decide_game_on_time(
            CUTTHROAT, totals, hands_since_call=since, hands_after_time=2
        ).finished
    done = engine.decide_game_on_time(CUTTHROAT, totals, hands_since_call=3, hands_after_time=2)
    assert done.finished and done.winner == "A"


def test_equal_top_totals_play_on_where_the_rule_set_says():
    totals = {"A": 90, "B": 90, "C": 10, "D": 0}
    on = engine.decide_game_on_time(PLAY_ON, totals, hands_since_call=1, hands_after_time=0)
    assert not on.finished and set(on.tied) == {"A", "B"}
    drawn = engine.decide_game_on_time(NO_PLAY_ON, totals, hands_since_call=1, hands_after_time=0)
    assert drawn.finished and drawn.winner is None and set(drawn.tied) == {"A", "B"}


@given(
    st.dictionaries(st.sampled_from("ABCD"), st.integers(-50, 240), min_size=2),
    st.integers(0, 5),
    st.integers(0, 5),
)
def test_after_the_allowed_hands_only_a_single_leader_ends_the_game(totals, since, after):
    outcome = engine.decide_game_on_time(
        CUTTHROAT, totals, hands_since_call=since, hands_after_time=after
    )
    top = max(totals.values())
    leaders = [side for side, total in totals.items() if total == top]
    if since >= 1 + after:
        # Cutthroat plays on at a tie: only a single leader ends the game.
        assert outcome.finished == (len(leaders) == 1)
        assert outcome.winner == (leaders[0] if len(leaders) == 1 else None)
    else:
        assert outcome == engine.decide_game(CUTTHROAT, totals)


# --- the services ------------------------------------------------------------------------


@pytest.fixture
def organizer():
    return UserFactory(username="clock-organizer")


def timed_event(organizer, *, minutes=30, hands=0, starts="publish", publish=True):
    tournament = services.create_tournament(
        by=organizer, name="Copa Reloj", ruleset_key="cutthroat", table_size=4
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Player {i:02d}" for i in range(8))
    )
    stage = services.add_stage(tournament, by=organizer, name="Swiss", format="round_robin")
    round_clock.set_stage_clock(
        stage, by=organizer, minutes=minutes, hands_after_time=hands, starts=starts
    )
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    if publish:
        services.publish_round(round_, by=organizer)
    round_.refresh_from_db()
    return tournament, round_


def call_time(round_):
    """Move the round's deadline (and its games') a second into the past."""
    past = timezone.now() - timedelta(seconds=1)
    Round.objects.filter(pk=round_.pk).update(clock_deadline=past)
    Game.objects.filter(match__round=round_).update(time_limit_at=past)
    round_.refresh_from_db()


def block(game, by, number, pips):
    return record_hand(game, by=by, number=number, ended="block", pips=pips)


@pytest.mark.django_db
def test_publishing_starts_the_clock_and_every_table_gets_the_deadline(organizer):
    _, round_ = timed_event(organizer, minutes=25, hands=1)
    assert round_.clock_started_at is not None
    assert round_.clock_deadline - round_.clock_started_at == timedelta(minutes=25)
    games = Game.objects.filter(match__round=round_)
    assert games.count() == 2
    assert {(g.time_limit_at, g.hands_after_time) for g in games} == {(round_.clock_deadline, 1)}
    state = round_clock.state_of(round_)
    assert state.state == "running" and 0 < state.seconds_left <= 25 * 60
    act = OfficialAct.objects.get(kind="round_clock")
    assert act.detail["action"] == "start" and act.actor == organizer


@pytest.mark.django_db
def test_the_hand_in_play_ends_the_game_once_time_is_called(organizer):
    _, round_ = timed_event(organizer)
    game = round_.matches.order_by("table_number").first().game
    block(game, organizer, 1, {"A": 8, "B": 15, "C": 22, "D": 12})
    call_time(round_)
    assert round_clock.state_of(round_).state == "called"
    outcome = block(game, organizer, 2, {"A": 20, "B": 5, "C": 22, "D": 12})
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.time_called_hand == 1
    top = max(game.totals.values())
    assert game.totals[game.winner] == top and top < CUTTHROAT.target
    act = game.official_acts.get(kind="time_called")
    assert act.hand_number == 2 and act.detail["winner"] == game.winner
    assert outcome.game.status == Game.Status.FINISHED


@pytest.mark.django_db
def test_n_more_hands_then_the_game_ends(organizer):
    _, round_ = timed_event(organizer, hands=1)
    game = round_.matches.first().game
    call_time(round_)
    block(game, organizer, 1, {"A": 8, "B": 15, "C": 22, "D": 12})
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS and game.time_called_hand == 0
    block(game, organizer, 2, {"A": 8, "B": 15, "C": 22, "D": 12})
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == "A"


@pytest.mark.django_db
def test_a_tie_at_the_top_plays_on_under_play_on_tie(organizer):
    _, round_ = timed_event(organizer)
    game = round_.matches.first().game
    Game.objects.filter(pk=game.pk).update(
        overrides={**game.overrides, "play_on_tie_at_target": True}
    )
    call_time(round_)
    # A and B block with the same low count: nobody scores (no award on a tied block).
    block(game, organizer, 1, {"A": 5, "B": 5, "C": 22, "D": 12})
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    block(game, organizer, 2, {"A": 5, "B": 15, "C": 22, "D": 12})
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == "A"


@pytest.mark.django_db
def test_an_organizer_starts_pauses_resumes_and_extends_the_clock(organizer):
    _, round_ = timed_event(organizer, minutes=10, starts="organizer")
    assert round_.clock_started_at is None
    assert round_clock.state_of(round_).state == "waiting"
    round_clock.start(round_, by=organizer)
    with pytest.raises(TournamentConflict):
        round_clock.start(round_, by=organizer)
    round_clock.pause(round_, by=organizer)
    round_.refresh_from_db()
    assert round_.clock_deadline is None and 0 < round_.clock_left <= 600
    assert not Game.objects.filter(match__round=round_, time_limit_at__isnull=False).exists()
    round_clock.extend(round_, by=organizer, minutes=5)
    round_.refresh_from_db()
    assert 300 < round_.clock_left <= 900
    round_clock.resume(round_, by=organizer)
    round_.refresh_from_db()
    assert round_.clock_left is None and round_clock.state_of(round_).state == "running"
    assert (
        Game.objects.filter(match__round=round_, time_limit_at=round_.clock_deadline).count() == 2
    )
    actions = list(
        OfficialAct.objects.filter(kind="round_clock")
        .order_by("pk")
        .values_list("detail__action", flat=True)
    )
    assert actions == ["start", "pause", "extend", "resume"]


@pytest.mark.django_db
def test_extending_after_the_call_lets_unfinished_tables_play_on(organizer):
    _, round_ = timed_event(organizer)
    game = round_.matches.first().game
    call_time(round_)
    round_clock.extend(round_, by=organizer, minutes=5)
    block(game, organizer, 1, {"A": 8, "B": 15, "C": 22, "D": 12})
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS and game.time_called_hand is None


@pytest.mark.django_db
def test_refusals_change_nothing(organizer):
    _, round_ = timed_event(organizer, starts="organizer", publish=False)
    with pytest.raises(TournamentConflict):
        round_clock.start(round_, by=organizer)  # a draft round
    stranger = UserFactory()
    with pytest.raises(PermissionDenied):
        round_clock.set_stage_clock(round_.stage, by=stranger, minutes=5)
    for bad in (0, 601, "ten", True, -3):
        with pytest.raises(TournamentError):
            round_clock.set_stage_clock(round_.stage, by=organizer, minutes=bad)
    with pytest.raises(TournamentError):
        round_clock.set_stage_clock(round_.stage, by=organizer, minutes=5, hands_after_time=11)
    round_.stage.refresh_from_db()
    assert round_.stage.settings["round_minutes"] == 30
    assert not OfficialAct.objects.filter(kind="round_clock").exists()
    with pytest.raises(ScoringError):
        time_limit([], ends_at=None, hands_after_time=-1)


@pytest.mark.django_db
def test_an_untimed_stage_has_no_clock(organizer):
    _, round_ = timed_event(organizer, minutes=None)
    assert round_.clock_started_at is None
    assert round_clock.state_of(round_).state == "off"
    with pytest.raises(TournamentConflict):
        round_clock.start(round_, by=organizer)


# --- the API -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_sets_the_limit_runs_the_clock_and_shows_it(organizer):
    tournament, round_ = timed_event(organizer, starts="organizer")
    api = client_for(organizer)
    base = f"/api/v1/tournaments/{tournament.slug}"
    answer = api.post(
        f"{base}/stages/1/round-clock/",
        {"minutes": 40, "hands_after_time": 2, "starts": "organizer"},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"minutes": 40, "hands_after_time": 2, "starts": "organizer"}
    assert api.get(f"{base}/stages/1/round-clock/").json()["minutes"] == 40
    shown = api.get(f"{base}/rounds/1/").json()["clock"]
    assert shown["state"] == "waiting" and shown["seconds_left"] == 2400
    started = api.post(f"{base}/rounds/1/clock/", {"action": "start"}, format="json")
    assert started.status_code == 200 and started.json()["state"] == "running"
    assert started.json()["hands_after_time"] == 2
    game = round_.matches.first().game_id
    detail = api.get(f"/api/v1/games/{game}/").json()
    assert detail["time_limit_at"] is not None and detail["hands_after_time"] == 2
    again = api.post(f"{base}/rounds/1/clock/", {"action": "start"}, format="json")
    assert again.status_code == 409
    extended = api.post(f"{base}/rounds/1/clock/", {"action": "extend"}, format="json")
    assert extended.status_code == 400 and "minutes" in str(extended.json())
    paused = api.post(f"{base}/rounds/1/clock/", {"action": "pause"}, format="json")
    assert paused.json()["state"] == "paused"
    assert api.get(f"/api/v1/games/{game}/").json()["time_limit_at"] is None


@pytest.mark.django_db
def test_the_api_refuses_bad_input_and_outsiders_and_changes_nothing(organizer):
    tournament, round_ = timed_event(organizer, starts="organizer")
    base = f"/api/v1/tournaments/{tournament.slug}"
    api = client_for(organizer)
    for body in ({"minutes": 0}, {"minutes": "x"}, {"minutes": 5, "hands_after_time": 11}):
        assert api.post(f"{base}/stages/1/round-clock/", body, format="json").status_code == 400
    assert api.post(f"{base}/rounds/1/clock/", {"action": "stop"}, format="json").status_code == 400
    referee = event_referee(tournament)
    assert (
        client_for(referee)
        .post(f"{base}/rounds/1/clock/", {"action": "start"}, format="json")
        .status_code
        == 403
    )
    assert client_for(None).post(
        f"{base}/stages/1/round-clock/", {"minutes": 5}, format="json"
    ).status_code in (401, 403)
    round_.refresh_from_db()
    assert round_.clock_started_at is None
    assert round_clock.settings_of(round_.stage).minutes == 30


# --- the pages ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_page_shows_the_clock_and_the_scoring_page_says_when_time_is_called(
    organizer, client
):
    tournament, round_ = timed_event(organizer, hands=1)
    game = round_.matches.order_by("table_number").first().game
    client.force_login(organizer)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert 'id="round-clock"' in page and "data-deadline=" in page
    assert "round-clock.js" in page
    for url in (f"/t/{tournament.slug}/", f"/t/{tournament.slug}/screen/"):
        shown = client.get(url).content.decode()
        assert 'id="round-clock"' in shown and "data-deadline=" in shown, url
    manage = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Pause the clock" in manage and 'name="hands_after_time"' in manage
    call_time(round_)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert "Time is called." in page
    assert "Finish the hand in play and 1 more hand; then the highest total wins." in page


@pytest.mark.django_db
def test_the_manage_page_sets_and_runs_the_clock(organizer, client):
    tournament, round_ = timed_event(organizer, minutes=None, publish=True)
    client.force_login(organizer)
    base = f"/t/{tournament.slug}/manage"
    client.post(
        f"{base}/stages/1/clock/", {"minutes": "20", "hands_after_time": "0", "starts": "organizer"}
    )
    round_.stage.refresh_from_db()
    assert round_clock.settings_of(round_.stage).minutes == 20
    answer = client.post(f"{base}/stages/1/rounds/1/clock/", {"action": "start"}, follow=True)
    assert "The round clock is running." in answer.content.decode()
    round_.refresh_from_db()
    assert round_clock.state_of(round_).state == "running"
    bad = client.post(f"{base}/stages/1/clock/", {"minutes": "0"}, follow=True).content.decode()
    assert "Minutes per round: a whole number from 1 to 600." in bad
    client.post(f"{base}/stages/1/clock/", {"minutes": ""})
    round_.stage.refresh_from_db()
    assert round_clock.settings_of(round_.stage).minutes is None


@pytest.mark.django_db
def test_a_clock_change_reaches_the_live_pages_and_the_hall_screen(organizer):
    """The round's tables state (what pollers and the hall screen compare) changes with
    its clock, so a pause or more time shows at their next poll or turn."""
    from tournaments.read import live

    _, round_ = timed_event(organizer, starts="organizer")
    tags = [live.tables_state(round_, staff=False).tag]
    for act in (round_clock.start, round_clock.pause):
        act(round_, by=organizer)
        round_.refresh_from_db()
        tags.append(live.tables_state(round_, staff=False).tag)
    assert len(set(tags)) == 3


@pytest.mark.django_db
def test_the_clock_leaves_the_pages_once_every_table_has_finished(organizer, client):
    tournament, round_ = timed_event(organizer)
    call_time(round_)
    for match in round_.matches.all():
        block(match.game, organizer, 1, {"A": 8, "B": 15, "C": 22, "D": 12})
    assert not Game.objects.filter(match__round=round_).exclude(status="finished").exists()
    assert 'id="round-clock"' not in client.get(f"/t/{tournament.slug}/").content.decode()

"""The score-keeping services: every write a referee or organizer makes to a game."""

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.db import IntegrityError, transaction

from scoring.engine import ScoringError
from scoring.models import Game, Hand, ScoreEvent
from scoring.services import (
    GameConflict,
    SeatSpec,
    add_score_event,
    correct_hand,
    create_game,
    create_games,
    record_hand,
    release_games,
    reopen_game,
    undo_event,
    void_hand,
)
from scoring.signals import game_changed
from tests.factories import PlayerFactory, SuperuserFactory, UserFactory, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def referee():
    return UserFactory()


def totals(game: Game) -> dict[str, int]:
    game.refresh_from_db(fields=["totals"])
    return game.totals


def block(game, referee, number, **pips):
    return record_hand(game, by=referee, number=number, ended="block", pips=pips)


def test_start_game_makes_a_side_per_player_in_cutthroat(referee):
    game = start_game("cutthroat", 4, referee=referee)
    assert [side.name for side in game.sides.all()] == ["A", "B", "C", "D"]
    assert [seat.name for seat in game.seats.all()] == ["A", "B", "C", "D"]
    assert game.status == Game.Status.IN_PROGRESS
    assert game.ruleset["target"] == 250


def test_partners_sit_across_in_two_sides(referee):
    game = start_game("partners", 4, referee=referee)
    assert [side.name for side in game.sides.all()] == ["A+C", "B+D"]
    seats = {seat.name: seat.side.name for seat in game.seats.select_related("side")}
    assert seats == {"A": "A+C", "B": "B+D", "C": "A+C", "D": "B+D"}


def test_three_player_cutthroat_freezes_its_own_target(referee):
    game = start_game("cutthroat", 3, referee=referee)
    assert game.ruleset["target"] == 200


def test_a_table_size_the_rules_do_not_allow_is_refused(referee):
    with pytest.raises(ScoringError):
        start_game("partners", 3, referee=referee)
    assert not Game.objects.exists()


def test_seats_can_be_named_without_player_records(referee):
    game = create_game(
        ruleset_key="dcs",
        seats=[SeatSpec(display_name=name) for name in ["Ana", "Beto", "Cruz", "Dalia"]],
        referees=[referee],
        start=True,
    )
    assert [seat.display_name for seat in game.seats.all()] == ["Ana", "Beto", "Cruz", "Dalia"]


def test_cutthroat_domino_awards_opponents_pips_rounded(referee):
    game = start_game("cutthroat", 4, referee=referee)
    outcome = record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 13, "C": 9, "D": 5},
    )
    assert outcome.hand.awards == {"A": 25, "B": 0, "C": 0, "D": 0}
    assert totals(game) == {"A": 25, "B": 0, "C": 0, "D": 0}
    assert outcome.next_leader == "A"  # cutthroat: the winner leads the next hand


def test_dcs_block_awards_the_sum_of_differences(referee):
    game = start_game("dcs", 4, referee=referee)
    outcome = block(game, referee, 1, A=8, B=15, C=22, D=12)
    assert outcome.hand.awards["A"] == 25
    assert outcome.hand.winners == ["A"]


def test_in_play_points_add_to_the_scoring_seat(referee):
    game = start_game("cutthroat", 4, referee=referee)
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="B",
        pips={"A": 10, "B": 0, "C": 0, "D": 0},
        in_play=[("A", 10), {"seat": "C", "points": 15}],
    )
    assert totals(game) == {"A": 10, "B": 10, "C": 15, "D": 0}
    assert ScoreEvent.objects.filter(game=game, kind="in_play").count() == 2


@pytest.mark.parametrize("points", [0, 7, -5, 40, "10", True])
def test_in_play_points_must_be_a_possible_multiple_of_five(referee, points):
    game = start_game("cutthroat", 4, referee=referee)
    with pytest.raises(ScoringError) as error:
        add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=points)
    assert error.value.field == "points"
    assert not ScoreEvent.objects.exists()


def test_a_rule_set_without_in_play_scoring_refuses_in_play_points(referee):
    game = start_game("dcs", 4, referee=referee)
    with pytest.raises(ScoringError, match="no points during play"):
        add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=10)


def test_the_next_hand_number_is_enforced(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    with pytest.raises(GameConflict, match="already recorded"):
        block(game, referee, 1, A=8, B=15, C=22, D=12)
    with pytest.raises(GameConflict, match="next hand of this game is 2"):
        block(game, referee, 3, A=8, B=15, C=22, D=12)
    assert Hand.objects.filter(game=game).count() == 1


def test_a_bad_hand_stores_nothing(referee):
    game = start_game("cutthroat", 4, referee=referee)
    with pytest.raises(ScoringError):
        block(game, referee, 1, A=8, B=-1, C=22, D=12)
    game.refresh_from_db()
    assert game.hand_count == 0
    assert game.revision == 1  # only the creation
    assert not Hand.objects.exists()


def test_reaching_the_target_wins_the_game(referee):
    game = start_game("cutthroat", 2, referee=referee)  # two players play to 150
    for number in range(1, 4):
        record_hand(
            game, by=referee, number=number, ended="domino", domino_by="A", pips={"A": 0, "B": 50}
        )
    game.refresh_from_db()
    assert totals(game) == {"A": 150, "B": 0}
    assert game.status == Game.Status.FINISHED
    assert game.winner == "A"
    with pytest.raises(GameConflict, match="finished"):
        block(game, referee, 4, A=1, B=2)


def test_equal_top_totals_at_the_target_play_on(referee):
    game = start_game("cutthroat", 2, referee=referee)
    record_hand(game, by=referee, number=1, ended="domino", domino_by="A", pips={"A": 0, "B": 100})
    record_hand(game, by=referee, number=2, ended="domino", domino_by="B", pips={"A": 100, "B": 0})
    for seat, points in (("A", 35), ("B", 35), ("A", 15), ("B", 15)):
        add_score_event(game, by=referee, hand=3, seat=seat, kind="in_play", points=points)
    block(game, referee, 3, A=1, B=1)  # tied block: nobody scores; 150 each
    game.refresh_from_db()
    assert totals(game) == {"A": 150, "B": 150}
    assert game.status == Game.Status.IN_PROGRESS
    block(game, referee, 4, A=2, B=12)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.winner == "A"


def test_correction_recomputes_later_totals_and_keeps_history(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)  # A 41 -> 40
    block(game, referee, 2, A=20, B=5, C=10, D=10)  # B 40 - 5 = 35
    block(game, referee, 3, A=3, B=10, C=20, D=17)  # A 47 - 3 = 44 -> 45
    assert totals(game) == {"A": 85, "B": 35, "C": 0, "D": 0}
    outcome = correct_hand(
        game,
        2,
        by=referee,
        reason="C's count was misread",
        expected_version=1,
        ended="block",
        pips={"A": 20, "B": 10, "C": 5, "D": 10},
    )
    assert outcome.hand.version == 2
    assert outcome.hand.awards["C"] == 35
    assert totals(game) == {"A": 85, "B": 0, "C": 35, "D": 0}
    versions = list(Hand.objects.filter(game=game, number=2).order_by("version"))
    assert [(v.version, v.is_current) for v in versions] == [(1, False), (2, True)]
    assert versions[1].reason == "C's count was misread"
    assert versions[1].recorded_by == referee
    out = call_command_output("verify_games")
    assert "1 game(s) checked, 0 differ." in out


def test_stale_correction_is_a_conflict_showing_the_current_version(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    body = {"ended": "block", "pips": {"A": 8, "B": 15, "C": 20, "D": 12}}
    correct_hand(game, 1, by=referee, reason="recount", expected_version=1, **body)
    with pytest.raises(GameConflict) as conflict:
        correct_hand(game, 1, by=referee, reason="again", expected_version=1, **body)
    assert conflict.value.current.version == 2
    assert "version 2" in conflict.value.message


def test_a_correction_needs_a_reason(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    with pytest.raises(ScoringError) as error:
        correct_hand(
            game,
            1,
            by=referee,
            reason=" ",
            expected_version=1,
            ended="block",
            pips={"A": 8, "B": 15, "C": 22, "D": 12},
        )
    assert error.value.field == "reason"


def test_correcting_a_finished_game_can_undo_its_win(referee):
    game = start_game("cutthroat", 2, referee=referee)
    for number in (1, 2, 3):
        record_hand(
            game, by=referee, number=number, ended="domino", domino_by="A", pips={"A": 0, "B": 50}
        )
    correct_hand(
        game,
        3,
        by=referee,
        reason="B went out, not A",
        expected_version=1,
        ended="domino",
        domino_by="B",
        pips={"A": 50, "B": 0},
    )
    game.refresh_from_db()
    assert totals(game) == {"A": 100, "B": 50}
    assert game.status == Game.Status.IN_PROGRESS
    assert game.winner == ""


def test_void_hand_cancels_its_award_and_events(referee):
    game = start_game("cutthroat", 4, referee=referee)
    add_score_event(game, by=referee, hand=1, seat="B", kind="in_play", points=10)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    block(game, referee, 2, A=20, B=5, C=10, D=10)
    void_hand(game, 1, by=referee, reason="misdeal")
    assert totals(game) == {"A": 0, "B": 35, "C": 0, "D": 0}
    current = Hand.objects.get(game=game, number=1, is_current=True)
    assert current.voided and current.reason == "misdeal"
    with pytest.raises(GameConflict):
        void_hand(game, 1, by=referee, reason="again")


def test_two_box_cutthroat_steal_takes_from_the_previous_player(referee):
    game = start_game("two_box_cutthroat", 4, referee=referee)
    add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=10)
    add_score_event(game, by=referee, hand=1, seat="B", kind="steal", points=10)
    assert totals(game) == {"A": 0, "B": 10, "C": 0, "D": 0}
    add_score_event(game, by=referee, hand=1, seat="C", kind="steal", points=10, double=True)
    assert totals(game) == {"A": 0, "B": -10, "C": 20, "D": 0}


def test_steal_is_refused_where_nobody_stacks(referee):
    game = start_game("cutthroat", 4, referee=referee)
    with pytest.raises(ScoringError):
        add_score_event(game, by=referee, hand=1, seat="B", kind="steal", points=10)
    assert not ScoreEvent.objects.exists()


def test_penalty_deducts_the_default_and_forced_pass_nothing(referee):
    game = start_game("dcs", 4, referee=referee)
    add_score_event(game, by=referee, hand=1, seat="C", kind="forced_pass", note="clock")
    add_score_event(game, by=referee, hand=1, seat="C", kind="penalty", note="clock again")
    add_score_event(game, by=referee, hand=1, seat="D", kind="penalty", points=25)
    assert totals(game) == {"A": 0, "B": 0, "C": -10, "D": -25}


def test_penalty_default_follows_the_organizers_override(referee):
    game = start_game("dcs", 4, referee=referee, overrides={"penalty_points": 15})
    add_score_event(game, by=referee, hand=1, seat="A", kind="penalty")
    assert totals(game)["A"] == -15


def test_undo_event_takes_back_a_steal_with_its_loss(referee):
    game = start_game("two_box_cutthroat", 4, referee=referee)
    add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=10)
    steal = add_score_event(game, by=referee, hand=1, seat="B", kind="steal", points=10)
    undo_event(game, steal[0].pk, by=referee)
    assert totals(game) == {"A": 10, "B": 0, "C": 0, "D": 0}
    assert ScoreEvent.objects.filter(active=True).count() == 1


def test_events_belong_to_the_hand_in_progress(referee):
    game = start_game("cutthroat", 4, referee=referee)
    with pytest.raises(GameConflict):
        add_score_event(game, by=referee, hand=2, seat="A", kind="in_play", points=10)


def test_reopen_lets_an_organizer_undo_a_finished_game(referee):
    owner = UserFactory()
    game = start_game("cutthroat", 2, referee=referee, by=owner)
    for number in (1, 2, 3):
        record_hand(
            game, by=referee, number=number, ended="domino", domino_by="A", pips={"A": 0, "B": 50}
        )
    with pytest.raises(PermissionDenied):
        reopen_game(game, by=referee, reason="wrong")
    reopen_game(game, by=owner, reason="hand 3 disputed")
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS and game.winner == ""


def test_only_the_games_referees_may_score(referee):
    game = start_game("cutthroat", 4, referee=referee)
    stranger = UserFactory()
    with pytest.raises(PermissionDenied):
        block(game, stranger, 1, A=8, B=15, C=22, D=12)
    superuser = UserFactory(is_superuser=True)
    block(game, superuser, 1, A=8, B=15, C=22, D=12)
    assert Hand.objects.count() == 1


def test_a_repeated_idempotency_key_records_one_hand(referee):
    game = start_game("cutthroat", 4, referee=referee)
    body = {"ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}}
    first = record_hand(game, by=referee, number=1, idempotency_key="k-1", **body)
    again = record_hand(game, by=referee, number=1, idempotency_key="k-1", **body)
    assert again.replayed and again.hand.pk == first.hand.pk
    assert Hand.objects.count() == 1
    assert totals(game)["A"] == 40


def test_game_changed_is_sent_once_after_commit(referee, django_capture_on_commit_callbacks):
    game = start_game("cutthroat", 4, referee=referee)
    seen = []

    def receiver(sender, game_id, change, followed, **kwargs):
        seen.append((game_id, change, followed))

    game_changed.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            block(game, referee, 1, A=8, B=15, C=22, D=12)
    finally:
        game_changed.disconnect(receiver)
    assert seen == [(game.pk, "hand_recorded", False)]  # a lone game: nobody follows it


def test_the_database_refuses_a_gap_in_hand_numbers(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    fields = {"ended": "block", "pips": {}, "awards": {}}
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(game=game, number=3, **fields)
    Hand.objects.create(game=game, number=2, **fields)


def test_the_database_refuses_two_current_versions(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    with pytest.raises(IntegrityError), transaction.atomic():
        Hand.objects.create(
            game=game, number=1, version=2, reason="x", ended="block", pips={}, awards={}
        )


def test_verify_games_reports_a_tampered_total(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    Game.objects.filter(pk=game.pk).update(totals={"A": 999, "B": 0, "C": 0, "D": 0})
    with pytest.raises(SystemExit) as exit_status:
        call_command("verify_games")
    assert exit_status.value.code == 1


def tallies(game: Game) -> dict[str, tuple[int, int, int]]:
    game.refresh_from_db(fields=["tallies"])
    return {
        name: (t["hands_won"], t["dominoes"], t["penalties"]) for name, t in game.tallies.items()
    }


def pips4(a, b, c, d):
    return {"A": a, "B": b, "C": c, "D": d}


def test_a_game_keeps_hands_won_dominoes_and_penalties_through_every_change(referee):
    game = start_game("partners", 4, referee=referee)
    assert tallies(game) == {"A+C": (0, 0, 0), "B+D": (0, 0, 0)}
    record_hand(game, by=referee, number=1, ended="domino", domino_by="C", pips=pips4(4, 9, 0, 11))
    block(game, referee, 2, A=12, B=3, C=9, D=20)  # B+D hold 23 against 21: A+C win
    add_score_event(game, by=referee, hand=3, seat="D", kind="penalty")
    record_hand(game, by=referee, number=3, ended="domino", domino_by="B", pips=pips4(5, 0, 6, 3))
    assert tallies(game) == {"A+C": (2, 1, 0), "B+D": (1, 1, 10)}
    correct_hand(
        game,
        1,
        by=referee,
        reason="D went out, not C",
        expected_version=1,
        ended="domino",
        domino_by="D",
        pips=pips4(9, 4, 11, 0),
    )
    assert tallies(game) == {"A+C": (1, 0, 0), "B+D": (2, 2, 10)}
    void_hand(game, 3, by=referee, reason="misdeal")  # the penalty goes with the hand
    assert tallies(game) == {"A+C": (1, 0, 0), "B+D": (1, 1, 0)}
    (penalty,) = add_score_event(game, by=referee, hand=4, seat="A", kind="penalty", points=25)
    assert tallies(game) == {"A+C": (1, 0, 25), "B+D": (1, 1, 0)}
    undo_event(game, penalty.pk, by=referee, reason="wrong seat")
    assert tallies(game) == {"A+C": (1, 0, 0), "B+D": (1, 1, 0)}
    stamped = Hand.objects.filter(game=game).latest("recorded_at").recorded_at
    game.refresh_from_db(fields=["last_hand_at"])
    assert game.last_hand_at == stamped
    assert "1 game(s) checked, 0 differ." in call_command_output("verify_games")


def test_verify_games_reports_a_tampered_tally(referee):
    game = start_game("cutthroat", 4, referee=referee)
    block(game, referee, 1, A=8, B=15, C=22, D=12)
    stored = dict(game.tallies, B={"hands_won": 1, "dominoes": 0, "penalties": 0})
    Game.objects.filter(pk=game.pk).update(tallies=stored)
    with pytest.raises(SystemExit) as exit_status:
        call_command("verify_games")
    assert exit_status.value.code == 1


def test_a_hand_its_in_play_points_and_the_game_are_stored_together(referee):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = start_game("cutthroat", 4, referee=referee)
    with CaptureQueriesContext(connection) as queries:
        outcome = record_hand(
            game,
            by=referee,
            number=1,
            ended="block",
            pips=pips4(8, 15, 22, 12),
            in_play=[{"seat": "B", "points": 10}],
        )
    writes = [q["sql"] for q in queries if q["sql"].startswith(("INSERT", "UPDATE", "WITH"))]
    # PostgreSQL takes the hand, its events and the game in one statement.
    assert len(writes) == (1 if connection.vendor == "postgresql" else 3)
    stored = Hand.objects.get(pk=outcome.hand.pk)
    assert (stored.number, stored.awards, stored.recorded_by) == (1, outcome.hand.awards, referee)
    assert stored.recorded_at == outcome.hand.recorded_at
    game.refresh_from_db()
    assert game.last_hand_at == stored.recorded_at and game.hand_count == 1
    event = ScoreEvent.objects.select_related("seat", "side").get(game=game)
    assert (event.hand_number, event.seat.name, event.side.name, event.kind, event.points) == (
        1,
        "B",
        "B",
        "in_play",
        10,
    )
    assert event.created_by == referee and event.created_at is not None
    assert totals(game) == {"A": 40, "B": 10, "C": 0, "D": 0}
    assert "1 game(s) checked, 0 differ." in call_command_output("verify_games")


def test_players_keep_their_seats_across_games(referee):
    player = PlayerFactory(display_name="Ana")
    others = [PlayerFactory() for _ in range(3)]
    first = create_game(ruleset_key="cutthroat", seats=[player, *others], start=True)
    second = create_game(ruleset_key="cutthroat", seats=[*others, player], start=True)
    assert player.seats.count() == 2
    assert {seat.game_id for seat in player.seats.all()} == {first.pk, second.pk}


def call_command_output(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def held_game(referee) -> Game:
    return create_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory() for _ in range(4)],
        referees=[referee],
        followed=True,
        held=True,
    )


@pytest.mark.parametrize("who", ["referee", "superuser"])
def test_nothing_is_recorded_in_a_held_game_until_it_is_released(referee, who):
    game = held_game(referee)
    by = referee if who == "referee" else SuperuserFactory()
    with pytest.raises(GameConflict, match="not published yet"):
        block(game, by, 1, A=1, B=2, C=3, D=4)
    with pytest.raises(GameConflict, match="not published yet"):
        add_score_event(game, by=by, hand=1, seat="A", kind="in_play", points=10)
    with pytest.raises(GameConflict, match="not published yet"):
        add_score_event(game, by=by, hand=1, seat="A", kind="penalty")
    game.refresh_from_db()
    assert (game.status, game.hand_count, game.revision) == (Game.Status.SCHEDULED, 0, 1)
    assert not ScoreEvent.objects.filter(game=game).exists()

    assert release_games([game.pk]) == 1
    assert release_games([game.pk]) == 0  # already open: nothing changes
    block(game, by, 1, A=1, B=2, C=3, D=4)
    game.refresh_from_db()
    assert (game.held, game.status, game.hand_count) == (False, Game.Status.IN_PROGRESS, 1)


def test_a_game_started_at_once_is_never_held(referee):
    game = create_game(
        ruleset_key="cutthroat",
        seats=[PlayerFactory() for _ in range(4)],
        held=True,
        start=True,
    )
    assert not game.held and game.status == Game.Status.IN_PROGRESS


def test_the_database_refuses_a_held_game_that_has_started(referee):
    game = start_game("cutthroat", 4, referee=referee)
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(held=True)


def test_create_games_seats_every_table_in_a_few_inserts(
    django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    players = PlayerFactory.create_batch(7)
    changes = []

    def heard(sender, game_id, change, **kwargs):
        changes.append((game_id, change))

    game_changed.connect(heard)
    try:
        with (
            django_assert_max_num_queries(5),
            django_capture_on_commit_callbacks(execute=True),
        ):
            pair, trio, pair2 = create_games(
                ruleset_key="cutthroat",
                tables=[(players[:2], "table 1"), (players[2:5], "table 2"), (players[5:], "")],
                held=True,
            )
    finally:
        game_changed.disconnect(heard)
    assert [g.label for g in (pair, trio, pair2)] == ["table 1", "table 2", ""]
    assert list(trio.seats.order_by("position").values_list("name", "player")) == [
        ("A", players[2].pk), ("B", players[3].pk), ("C", players[4].pk)
    ]  # fmt: skip
    assert totals(trio) == {"A": 0, "B": 0, "C": 0}
    assert all(g.held and g.revision == 1 and g.status == "scheduled" for g in (pair, trio))
    assert changes == [(pair.pk, "created"), (trio.pk, "created"), (pair2.pk, "created")]


def _past_the_target_in_play(referee):
    """A two-player cutthroat game (target 150) at hand 2, whose in-play points of the
    hand in progress have taken A past the target."""
    game = start_game("cutthroat", 2, referee=referee)
    record_hand(game, by=referee, number=1, ended="domino", domino_by="A", pips={"A": 0, "B": 100})
    for points in (35, 25):
        add_score_event(game, by=referee, hand=2, seat="A", kind="in_play", points=points)
    spare = add_score_event(game, by=referee, hand=2, seat="B", kind="in_play", points=5)
    game.refresh_from_db()
    assert game.totals["A"] == 160 and game.status == Game.Status.IN_PROGRESS
    return game, spare[0]


def test_undo_mid_hand_does_not_end_the_game_under_end_of_hand(referee):
    game, spare = _past_the_target_in_play(referee)
    undo_event(game, spare.pk, by=referee)
    game.refresh_from_db()
    assert game.totals == {"A": 160, "B": 0}
    assert game.status == Game.Status.IN_PROGRESS and game.winner == ""


def test_correcting_a_hand_mid_hand_does_not_end_the_game_under_end_of_hand(referee):
    game, _ = _past_the_target_in_play(referee)
    correct_hand(
        game,
        1,
        by=referee,
        reason="pips miscounted",
        expected_version=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 105},
    )
    game.refresh_from_db()
    assert game.totals == {"A": 165, "B": 5}
    assert game.status == Game.Status.IN_PROGRESS and game.winner == ""


def test_voiding_a_hand_mid_hand_does_not_end_the_game_under_end_of_hand(referee):
    game, _ = _past_the_target_in_play(referee)
    for _ in range(3):
        add_score_event(game, by=referee, hand=2, seat="A", kind="in_play", points=35)
    void_hand(game, 1, by=referee, reason="misdeal")
    game.refresh_from_db()
    assert game.totals == {"A": 165, "B": 5}
    assert game.status == Game.Status.IN_PROGRESS and game.winner == ""


def test_the_end_of_the_hand_decides_after_an_undo_mid_hand(referee):
    game, spare = _past_the_target_in_play(referee)
    undo_event(game, spare.pk, by=referee)
    record_hand(game, by=referee, number=2, ended="block", pips={"A": 10, "B": 10})
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == "A"


def test_steal_after_a_pass_takes_from_the_player_who_played_the_tile(referee):
    game = start_game("two_box_cutthroat", 4, referee=referee)
    add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=10)
    # B passes; C stacks on A's tile and names A as the last player who played.
    created = add_score_event(
        game, by=referee, hand=1, seat="C", kind="steal", points=10, from_seat="A"
    )
    assert totals(game) == {"A": 0, "B": 0, "C": 10, "D": 0}
    assert [(e.kind, e.seat.name, e.points) for e in created] == [
        ("steal", "C", 10),
        ("stolen", "A", -10),
    ]
    call_command("verify_games", game.pk)


def test_steal_from_the_stacker_or_a_from_seat_on_another_kind_is_refused(referee):
    game = start_game("two_box_cutthroat", 4, referee=referee)
    with pytest.raises(ScoringError):
        add_score_event(game, by=referee, hand=1, seat="C", kind="steal", points=10, from_seat="C")
    with pytest.raises(ScoringError):
        add_score_event(
            game, by=referee, hand=1, seat="C", kind="in_play", points=10, from_seat="A"
        )
    assert not ScoreEvent.objects.exists()

"""Officiating a game (RULES.md, Officiating): clock violations that escalate, forfeits,
deductions, disputes, who leads and re-deals, and the audit list they leave."""

import re

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import officiating, services
from scoring.models import Dispute, Game, OfficialAct, ScoreEvent
from scoring.rulesets import PRESETS, ScoringError, get_ruleset
from tests.factories import UserFactory, start_game

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
JPEG = b"\xff\xd8\xff\xe0" + b"\0" * 64


def violation(game, referee, seat="B", hand=None):
    (event,) = services.add_score_event(
        game, by=referee, hand=hand or game.hand_count + 1, seat=seat, kind="clock_violation"
    )
    return event


@pytest.fixture
def referee():
    return UserFactory()


@pytest.fixture
def dcs(referee):
    return start_game("dcs", referee=referee)


def test_the_clock_fields_of_every_preset():
    assert get_ruleset("dcs").play_clock_seconds == 30
    for key in PRESETS:
        rules = get_ruleset(key)
        assert rules.clock_escalation == "forced_pass_then_penalty"
        if key != "dcs":
            assert rules.play_clock_seconds is None
    assert get_ruleset("cutthroat", overrides={"play_clock_seconds": 45}).play_clock_seconds == 45
    assert get_ruleset("dcs", overrides={"play_clock_seconds": None}).play_clock_seconds is None
    for wrong in (0, 4, 601, "30", True):
        with pytest.raises(ScoringError) as refused:
            get_ruleset("dcs", overrides={"play_clock_seconds": wrong})
        assert refused.value.field == "play_clock_seconds"
    with pytest.raises(ScoringError):
        get_ruleset("dcs", overrides={"clock_escalation": "warning"})


def test_a_seats_first_violation_is_a_forced_pass_and_each_later_one_a_penalty(dcs, referee):
    first = violation(dcs, referee)
    assert (first.kind, first.points, first.violation) == ("forced_pass", 0, True)
    other_seat = violation(dcs, referee, seat="C")
    assert other_seat.kind == "forced_pass"  # counted per seat
    second = violation(dcs, referee)
    third = violation(dcs, referee)
    assert [(e.kind, e.points) for e in (second, third)] == [("penalty", -10)] * 2
    dcs.refresh_from_db()
    assert dcs.totals["B"] == -20
    assert dcs.tallies["B"]["penalties"] == 20
    acts = OfficialAct.objects.filter(game=dcs, kind="clock_violation").order_by("pk")
    assert [a.detail["became"] for a in acts] == [
        "forced_pass",
        "forced_pass",
        "penalty",
        "penalty",
    ]


def test_violations_are_counted_over_the_whole_game_not_the_hand(dcs, referee):
    violation(dcs, referee)
    services.record_hand(
        dcs, by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    later = violation(dcs, referee, hand=2)
    assert (later.kind, later.points) == ("penalty", -10)


def test_undoing_the_first_violation_redecides_the_later_ones(dcs, referee):
    first = violation(dcs, referee)
    second = violation(dcs, referee)
    third = violation(dcs, referee)
    services.undo_event(dcs, first.pk, by=referee, reason="the clock was not started")
    second.refresh_from_db()
    third.refresh_from_db()
    assert (second.kind, second.points) == ("forced_pass", 0)
    assert (third.kind, third.points) == ("penalty", -10)
    dcs.refresh_from_db()
    assert dcs.totals["B"] == -10
    undone = OfficialAct.objects.get(game=dcs, kind="undone")
    assert undone.actor == referee
    assert undone.reason == "the clock was not started"
    first.refresh_from_db()
    assert first.removed_by == referee


def test_a_violation_carries_no_points_from_the_caller(dcs, referee):
    with pytest.raises(ScoringError):
        services.add_score_event(
            dcs, by=referee, hand=1, seat="B", kind="clock_violation", points=10
        )


def test_the_penalty_amount_follows_the_tournaments_rule_set(referee):
    game = start_game("dcs", referee=referee, overrides={"penalty_points": 25})
    violation(game, referee)
    assert violation(game, referee).points == -25


def test_forfeit_ends_the_game_and_places_the_seat_last(referee):
    game = start_game("cutthroat", referee=referee)
    services.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 13, "C": 9, "D": 5},
    )
    game.refresh_from_db()
    assert game.totals["A"] == 25
    owner = UserFactory()
    Game.objects.filter(pk=game.pk).update(created_by=owner)
    with pytest.raises(PermissionDenied):
        officiating.forfeit_seat(game, "A", "left the hall", referee)
    with pytest.raises(ScoringError):
        officiating.forfeit_seat(game, "A", "  ", owner)
    game = officiating.forfeit_seat(game, "A", "left the hall", owner)
    assert game.status == "finished"
    assert game.forfeits == "A"
    assert game.winner == ""  # B, C and D all at 0: no single leader of the others
    act = OfficialAct.objects.get(game=game, kind="forfeit")
    assert (act.actor, act.reason, act.detail["seat"]) == (owner, "left the hall", "A")
    with pytest.raises(services.GameConflict):
        services.record_hand(
            game, by=referee, number=2, ended="block", pips={"A": 1, "B": 2, "C": 3, "D": 4}
        )


def test_forfeit_winner_is_the_leader_of_the_others(referee):
    owner = UserFactory()
    game = start_game("cutthroat", referee=referee, by=owner)
    services.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="C",
        pips={"A": 10, "B": 13, "C": 0, "D": 5},
    )
    game = officiating.forfeit_seat(game, "C", "abuse of an official", owner)
    assert game.winner != "C"
    game.refresh_from_db()
    # Everybody but C is at 0: no single leader, so nobody wins; C still placed last.
    assert game.winner == ""
    second = start_game("cutthroat", referee=referee, by=owner)
    services.add_score_event(second, by=referee, hand=1, seat="D", kind="in_play", points=10)
    second = officiating.forfeit_seat(second, "A", "no-show", owner)
    assert second.winner == "D"
    # A second forfeit at a table already ended by one is taken; a repeat is not.
    second = officiating.forfeit_seat(second, "B", "no-show", owner)
    assert second.forfeits == "AB"
    with pytest.raises(services.GameConflict):
        officiating.forfeit_seat(second, "B", "again", owner)


def test_a_finished_game_is_reopened_before_a_forfeit_and_reopening_takes_it_back(referee):
    owner = UserFactory()
    game = start_game("cutthroat", referee=referee, by=owner, overrides={"target": 50})
    services.add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=35)
    services.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 13, "C": 9, "D": 5},
    )
    game.refresh_from_db()
    assert game.status == "finished"
    with pytest.raises(services.GameConflict):
        officiating.forfeit_seat(game, "B", "late", owner)
    services.reopen_game(game, by=owner, reason="the score sheet was misread")
    act = OfficialAct.objects.get(game=game, kind="reopened")
    assert (act.actor, act.reason) == (owner, "the score sheet was misread")
    game = officiating.forfeit_seat(game, "A", "left", owner)
    assert (game.status, game.forfeits) == ("finished", "A")
    game = services.reopen_game(game, by=owner, reason="forfeit entered by mistake")
    assert game.forfeits == "" and game.status == "in_progress"


def test_a_scheduled_game_can_be_forfeited(referee):
    owner = UserFactory()
    game = services.create_game(ruleset_key="cutthroat", seats=[None] * 4, by=owner)
    game = officiating.forfeit_seat(game.pk, "D", "did not play", owner)
    assert game.status == "finished"
    assert game.ruleset is not None


def test_partners_forfeit_is_the_teams(referee):
    owner = UserFactory()
    game = start_game("partners", referee=referee, by=owner)
    game = officiating.forfeit_seat(game, "C", "left", owner)
    assert game.forfeited_sides == {"A+C"}
    assert game.winner == "B+D"


def test_deduction_needs_an_organizer_and_a_reason(dcs, referee):
    owner = UserFactory()
    Game.objects.filter(pk=dcs.pk).update(created_by=owner)
    with pytest.raises(PermissionDenied):
        officiating.deduct_points(dcs, seat="A", points=15, reason="slow play", by=referee)
    with pytest.raises(ScoringError):
        officiating.deduct_points(dcs, seat="A", points=15, reason="", by=owner)
    event = officiating.deduct_points(dcs, seat="A", points=15, reason="slow play", by=owner)
    assert (event.kind, event.points, event.note) == ("penalty", -15, "slow play")
    act = OfficialAct.objects.get(game=dcs, kind="deduction")
    assert (act.reason, act.detail["points"]) == ("slow play", -15)


def test_void_is_in_the_audit_list(dcs, referee):
    services.record_hand(
        dcs, by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    services.void_hand(dcs, 1, by=referee, reason="misdeal")
    act = OfficialAct.objects.get(game=dcs, kind="voided")
    assert (act.actor, act.reason, act.hand_number) == (referee, "misdeal", 1)


# --- disputes ---------------------------------------------------------------------------


def test_image_types_by_their_first_bytes():
    assert officiating.image_type(PNG) == "image/png"
    assert officiating.image_type(JPEG) == "image/jpeg"
    assert officiating.image_type(b"GIF89a....") == "image/gif"
    assert officiating.image_type(b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert officiating.image_type(b"\0\0\0\x18ftypheic") == "image/heic"
    assert officiating.image_type(b"<svg xmlns=") is None
    assert officiating.image_type(b"%PDF-1.7") is None


def test_a_dispute_with_photos_changes_nothing_until_resolved(dcs, referee, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    services.record_hand(
        dcs, by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    dcs.refresh_from_db()
    before = dict(dcs.totals)
    photo = SimpleUploadedFile("table.png", PNG, content_type="image/png")
    dispute = officiating.open_dispute(
        dcs, by=referee, note="B says the 6-5 was played", hand=1, photos=[photo]
    )
    dcs.refresh_from_db()
    assert dcs.totals == before
    assert dispute.status == "open"
    (kept,) = dispute.photos.all()
    assert kept.content_type == "image/png"
    assert (tmp_path / kept.image.name).read_bytes() == PNG
    # Play goes on.
    services.record_hand(
        dcs, by=referee, number=2, ended="block", pips={"A": 1, "B": 2, "C": 3, "D": 4}
    )


def test_a_dispute_photo_is_stored_under_a_random_name_of_its_detected_type(
    dcs, referee, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    named = [
        SimpleUploadedFile("../../table.php", JPEG, content_type="image/png"),
        SimpleUploadedFile("evidence.png.html", PNG, content_type="text/html"),
        SimpleUploadedFile("same.jpg", JPEG, content_type="image/jpeg"),
    ]
    dispute = officiating.open_dispute(dcs, by=referee, note="look", photos=named)
    kept = list(dispute.photos.all())
    names = [photo.image.name for photo in kept]
    assert [name.rsplit(".", 1)[1] for name in names] == ["jpg", "png", "jpg"]
    assert [photo.content_type for photo in kept] == ["image/jpeg", "image/png", "image/jpeg"]
    for name in names:
        assert re.fullmatch(r"disputes/\d{4}/\d{2}/[0-9a-f]{32}\.(jpg|png)", name), name
        assert not any(part in name for part in ("table", "php", "evidence", "html", "same"))
    assert len(set(names)) == 3
    assert (tmp_path / names[1]).read_bytes() == PNG


def test_a_dispute_refuses_what_is_not_a_photo(dcs, referee, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    fake = SimpleUploadedFile("x.png", b"<script>alert(1)</script>", content_type="image/png")
    with pytest.raises(ScoringError) as refused:
        officiating.open_dispute(dcs, by=referee, note="look", photos=[fake])
    assert refused.value.field == "photos"
    settings.DISPUTE_PHOTO_MAX_BYTES = 10
    with pytest.raises(ScoringError):
        officiating.open_dispute(
            dcs, by=referee, note="look", photos=[SimpleUploadedFile("a.png", PNG)]
        )
    with pytest.raises(ScoringError):
        officiating.open_dispute(dcs, by=referee, note="  ")
    with pytest.raises(ScoringError):
        officiating.open_dispute(dcs, by=referee, note="which hand?", hand=9)
    assert not Dispute.objects.exists()


def test_an_upheld_dispute_corrects_the_hand_in_the_same_action(dcs, referee):
    owner = UserFactory()
    Game.objects.filter(pk=dcs.pk).update(created_by=owner)
    dcs.referees.add(owner)  # an event's organizer scores its games too
    services.record_hand(
        dcs, by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    dispute = officiating.open_dispute(dcs, by=referee, note="D had 2, not 12", hand=1)
    with pytest.raises(PermissionDenied):
        officiating.resolve_dispute(dispute, by=referee, upheld=False, reason="no")
    resolved = officiating.resolve_dispute(
        dispute,
        by=owner,
        upheld=True,
        reason="photo shows 2",
        correction={
            "expected_version": 1,
            "ended": "block",
            "pips": {"A": 8, "B": 15, "C": 22, "D": 2},
        },
    )
    assert (resolved.status, resolved.resolution, resolved.resolved_by) == (
        "upheld",
        "photo shows 2",
        owner,
    )
    dcs.refresh_from_db()
    assert dcs.totals["D"] > 0 and dcs.totals["A"] == 0
    hand = dcs.hands.get(is_current=True, number=1)
    assert (hand.version, hand.reason) == (2, "photo shows 2")
    with pytest.raises(services.GameConflict):
        officiating.resolve_dispute(dispute, by=owner, upheld=False, reason="again")
    kinds = list(OfficialAct.objects.filter(game=dcs).values_list("kind", flat=True))
    assert "dispute_opened" in kinds and "dispute_upheld" in kinds


def test_a_dismissed_dispute_keeps_the_result(dcs, referee):
    owner = UserFactory()
    Game.objects.filter(pk=dcs.pk).update(created_by=owner)
    dispute = officiating.open_dispute(dcs, by=referee, note="slow play by C")
    with pytest.raises(ScoringError):
        officiating.resolve_dispute(dispute, by=owner, upheld=False, reason="")
    with pytest.raises(ScoringError):
        officiating.resolve_dispute(
            dispute, by=owner, upheld=False, reason="x", correction={"ended": "block"}
        )
    dispute = officiating.resolve_dispute(dispute, by=owner, upheld=False, reason="clock fine")
    assert dispute.status == "dismissed"


# --- who leads, and re-deals --------------------------------------------------------------

QUESTIONS = {
    "cutthroat": "double_six",
    "partners": "double_six",
    "doscientos": "double_six",
    "mexican": "double_six",
    "dcs": "highest_double_then_tile",
    "federation": "drawn",
    "two_box": "highest_double",
    "two_box_cutthroat": "highest_double",
}


@pytest.mark.parametrize("key", sorted(PRESETS))
def test_every_preset_asks_its_first_hand_question(key):
    assert officiating.leader_rule(get_ruleset(key), 1) == QUESTIONS[key]


@pytest.mark.parametrize("key", sorted(PRESETS))
def test_later_hands_ask_only_where_the_tiles_decide(key):
    rules = get_ruleset(key)
    expected = "highest_double" if rules.next_leader == "highest_double" else None
    assert officiating.leader_rule(rules, 2, known_leader="B") == expected


def test_rotation_works_from_hand_one_with_the_answer(referee):
    game = start_game("partners", referee=referee)
    officiating.set_leader(game, by=referee, seat="C")
    outcome = services.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 13, "C": 9, "D": 5},
    )
    assert outcome.hand.leader == "C"
    assert outcome.next_leader == "D"
    outcome = services.record_hand(
        game,
        by=referee,
        number=2,
        ended="domino",
        domino_by="B",
        pips={"A": 3, "B": 0, "C": 9, "D": 5},
    )
    assert (outcome.hand.leader, outcome.next_leader) == ("D", "A")


def test_two_box_asks_every_hand(referee):
    game = start_game("two_box", referee=referee)
    officiating.set_leader(game, by=referee, seat="B")
    outcome = services.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="B",
        pips={"A": 3, "B": 0, "C": 9, "D": 5},
    )
    assert outcome.hand.leader == "B"
    game.refresh_from_db()
    assert game.next_leader == ""
    assert officiating.leader_rule(get_ruleset("two_box"), 2, game.next_leader) == "highest_double"


def test_a_redeal_records_nothing_against_anyone(referee):
    game = start_game("two_box", referee=referee)
    officiating.set_leader(game, by=referee, seat="B")
    before = Game.objects.get(pk=game.pk)
    officiating.redeal(game, by=referee)
    after = Game.objects.get(pk=game.pk)
    assert (after.hand_count, after.totals, after.tallies) == (
        before.hand_count,
        before.totals,
        before.tallies,
    )
    assert after.next_leader == ""  # new tiles: ask again
    assert not ScoreEvent.objects.filter(game=game).exists()
    act = OfficialAct.objects.get(game=game, kind="redeal")
    assert (act.actor, act.hand_number, act.reason) == (referee, 1, "nobody holds a double")
    services.add_score_event(game, by=referee, hand=1, seat="A", kind="in_play", points=10)
    with pytest.raises(services.GameConflict):
        officiating.redeal(game, by=referee)


def test_only_the_games_officials_set_the_leader_or_redeal(dcs):
    stranger = UserFactory()
    with pytest.raises(PermissionDenied):
        officiating.set_leader(dcs, by=stranger, seat="A")
    with pytest.raises(PermissionDenied):
        officiating.redeal(dcs, by=stranger)
    with pytest.raises(PermissionDenied):
        officiating.open_dispute(dcs, by=stranger, note="x")

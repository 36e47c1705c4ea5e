"""Officiating a game (RULES.md, "Officiating"): forfeits, point deductions, disputes,
who leads a hand and re-deals. One function per official's action, one transaction each,
each one written to the audit list (``OfficialAct``).

Clock violations are score events (``services.add_score_event`` decides them); this
module holds what is not a point scored at the table.
"""

import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.permissions import require
from domain.say import say
from scoring import services, statements
from scoring.audit import record_act
from scoring.models import Dispute, DisputePhoto, Game, OfficialAct, ScoreEvent
from scoring.rulesets import RuleSet, ScoringError
from scoring.services.common import (
    GameConflict,
    changed,
    decide,
    lock,
    lock_to_score,
    require_open,
    require_playable,
    ruleset_of,
    seat_named,
    table,
    user_or_none,
)

REASON_LENGTH = 500
NOTE_LENGTH = 1000
# A dispute's photos: how many, how large, and the image kinds a phone takes.
MOST_PHOTOS = 4
PHOTO_MAX_BYTES = 5 * 1024 * 1024


def _reason(reason: Any, field: str, message) -> str:
    text = (reason if isinstance(reason, str) else "").strip()
    if not text:
        raise ScoringError(message, field)
    return text[:REASON_LENGTH]


# --- forfeits and deductions -----------------------------------------------------------


def forfeit_seat(game: Game | int, seat: str, reason: str, actor) -> Game:
    """End ``game`` at once with ``seat`` forfeiting it: the forfeiting side is placed
    last whatever its total, the others keep their order by total and the leader of the
    others wins (RULES.md, Officiating); others level at the top share first place, a
    drawn game among them (a no-show before the first hand at a Cut-Throat table of four).

    A game already ended by a forfeit may take another seat's forfeit (two no-shows at
    one table); any other finished game must be reopened first. A game not started yet
    is started with its rules frozen, so that a table where nobody played has a result.
    """
    reason = _reason(reason, "reason", say("Say why the seat forfeits the game."))
    with transaction.atomic():
        game = lock(game)
        require(actor, "game.manage", game)
        require_open(game)
        if game.is_finished and not game.forfeits:
            raise GameConflict(
                say("This game is finished: reopen it before a seat forfeits it."), game=game
            )
        _, seats_by_name = table(game)
        forfeiting = seat_named(seats_by_name, seat, field="seat")
        if forfeiting.name in game.forfeits:
            raise GameConflict(
                say("{name} has already forfeited this game.", name=forfeiting.display_name),
                game=game,
            )
        ruleset = ruleset_of(game)  # starts a scheduled game
        game.forfeits += forfeiting.name
        decide(game, ruleset)
        statements.save_game(game, ["forfeits", "status", "winner", "finished_at"])
        record_act(
            OfficialAct.Kind.FORFEIT,
            by=actor,
            game=game,
            subject=forfeiting.display_name,
            reason=reason,
            seat=forfeiting.name,
            winner=game.winner,
        )
        changed(game, "game_forfeited")
    return game


def deduct_points(game: Game | int, *, seat: str, points: int, reason: str, by) -> ScoreEvent:
    """An organizer's point deduction on a seat, with its reason: a penalty of the amount
    they choose in the hand in progress."""
    reason = _reason(reason, "reason", say("Say why the points are deducted."))
    with transaction.atomic():
        locked = lock(game)
        require(by, "game.manage", locked)
        (event,) = services.add_score_event(
            locked,
            by=by,
            hand=locked.hand_count + 1,
            seat=seat,
            kind=ScoreEvent.Kind.PENALTY,
            points=points,
            note=reason,
            sanction=True,
        )
    return event


# --- disputes --------------------------------------------------------------------------

# The first bytes of the image kinds a phone sends: JPEG, PNG, GIF, WebP, HEIC/HEIF.
_SIGNATURES = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1", b"msf1"}
# A stored photo's extension: the one of the type its bytes show.
_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/heic": ".heic",
}


def image_type(head: bytes) -> str | None:
    """The image type the file's first bytes show, or None for anything else."""
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return "image/heic"
    return None


def stored_photo(photo, kind: str) -> File:
    """The photo under a random name with the extension of its detected type: the
    uploader's name and extension never reach the disk, a path or a served header."""
    return File(photo, name=secrets.token_hex(16) + _EXTENSIONS[kind])


def _checked_photos(photos: Iterable) -> list[tuple[Any, str]]:
    """Each uploaded file with the image type its bytes show; refuses anything else."""
    photos = list(photos or ())
    if len(photos) > MOST_PHOTOS:
        raise ScoringError(
            say("Send at most {most} photos with a dispute.", most=MOST_PHOTOS), "photos"
        )
    most = getattr(settings, "DISPUTE_PHOTO_MAX_BYTES", PHOTO_MAX_BYTES)
    checked = []
    for photo in photos:
        if photo.size > most:
            raise ScoringError(
                say(
                    "{name} is too large: a photo may be at most {most} MB.",
                    name=photo.name,
                    most=most // (1024 * 1024),
                ),
                "photos",
            )
        photo.seek(0)
        kind = image_type(photo.read(16))
        photo.seek(0)
        if kind is None:
            raise ScoringError(
                say(
                    "{name} is not a photo: send JPEG, PNG, GIF, WebP or HEIC images.",
                    name=photo.name,
                ),
                "photos",
            )
        checked.append((photo, kind))
    return checked


def open_dispute(
    game: Game | int, *, by, note: str, hand: int | None = None, photos: Iterable = ()
) -> Dispute:
    """A referee or an organizer disputes a hand (or the whole game when ``hand`` is
    None). The result stands, marked, until an organizer resolves it; play goes on."""
    note = (note if isinstance(note, str) else "").strip()
    if not note:
        raise ScoringError(say("Say what is disputed."), "note")
    checked = _checked_photos(photos)
    with transaction.atomic():
        game = lock_to_score(game, by)
        require_open(game)
        if hand is not None and not 1 <= hand <= game.hand_count + 1:
            raise ScoringError(say("This game has no hand {number}.", number=hand), "hand")
        dispute = Dispute.objects.create(
            game=game, hand_number=hand, note=note[:NOTE_LENGTH], opened_by=user_or_none(by)
        )
        for photo, kind in checked:
            DisputePhoto.objects.create(
                dispute=dispute,
                image=stored_photo(photo, kind),
                content_type=kind,
                size=photo.size,
            )
        record_act(
            OfficialAct.Kind.DISPUTE_OPENED,
            by=by,
            game=game,
            hand=hand,
            reason=note,
            dispute=dispute.pk,
            photos=len(checked),
        )
        changed(game, "dispute_opened")
    return dispute


def resolve_dispute(
    dispute: Dispute | int,
    *,
    by,
    upheld: bool,
    reason: str,
    correction: Mapping | None = None,
) -> Dispute:
    """An organizer settles a dispute: upheld, with the correction of a hand made in the
    same transaction (``correction`` holds ``services.correct_hand``'s fields, ``hand``
    and ``expected_version`` among them), or dismissed. Both with a reason."""
    reason = _reason(reason, "reason", say("Say why the dispute is upheld or dismissed."))
    if correction is not None and not upheld:
        raise ScoringError(say("Only an upheld dispute corrects a hand."), "correction")
    dispute_id = dispute.pk if isinstance(dispute, Dispute) else dispute
    with transaction.atomic():
        dispute = Dispute.objects.select_for_update().filter(pk=dispute_id).first()
        if dispute is None:
            raise ScoringError(say("There is no such dispute."), "dispute")
        game = lock(dispute.game_id)
        require(by, "game.manage", game)
        if dispute.status != Dispute.Status.OPEN:
            raise GameConflict(say("This dispute is already resolved."), game=game)
        corrected = None
        if correction is not None:
            fields = dict(correction)
            number = fields.pop("hand", dispute.hand_number)
            if number is None:
                raise ScoringError(say("Say which hand the correction is for."), "hand")
            corrected = services.correct_hand(game, number, by=by, reason=reason, **fields)
        dispute.status = Dispute.Status.UPHELD if upheld else Dispute.Status.DISMISSED
        dispute.resolution = reason
        dispute.resolved_by = user_or_none(by)
        dispute.resolved_at = timezone.now()
        dispute.save(update_fields=["status", "resolution", "resolved_by", "resolved_at"])
        record_act(
            OfficialAct.Kind.DISPUTE_UPHELD if upheld else OfficialAct.Kind.DISPUTE_DISMISSED,
            by=by,
            game=game,
            hand=dispute.hand_number,
            reason=reason,
            dispute=dispute.pk,
            corrected_hand=corrected.hand.number if corrected else None,
            version=corrected.hand.version if corrected else None,
        )
        changed(game, "dispute_resolved")
    return dispute


# --- who leads, and re-deals -----------------------------------------------------------

# The question each way of choosing a leader asks the table.
LEADER_QUESTIONS = {
    "double_six": gettext_noop("Who holds the double six?"),
    "highest_double": gettext_noop("Who holds the highest double?"),
    "highest_double_then_tile": gettext_noop(
        "Who holds the highest double? (else the highest tile)"
    ),
    "drawn": gettext_noop("Who drew the lead?"),
    "unknown": gettext_noop("Who leads this hand?"),
}


def leader_rule(ruleset: RuleSet, hand: int, known_leader: str = "") -> str | None:
    """Which question hand ``hand`` needs to know its leader (a key of
    ``LEADER_QUESTIONS``), or None where the winner or the rotation decides it."""
    if hand == 1:
        return ruleset.first_leader
    if ruleset.next_leader == "highest_double":
        return "highest_double"
    return None if known_leader else "unknown"


def set_leader(game: Game | int, *, by, seat: str) -> Game:
    """The table's answer to the leader question: ``seat`` leads the hand in progress
    (and, under rotation, the hands after it follow from it)."""
    with transaction.atomic():
        game = lock_to_score(game, by)
        require_playable(game)
        _, seats_by_name = table(game)
        leader = seat_named(seats_by_name, seat, field="seat")
        game.next_leader = leader.name
        statements.save_game(game, ["next_leader"])
        changed(game, "leader_set")
    return game


def redeal(game: Game | int, *, by, reason: str = "") -> Game:
    """Shuffle and deal the hand in progress again (seed 003: nobody holds a double). It
    scores nothing, is not a hand and counts against nobody: only the audit list keeps it."""
    with transaction.atomic():
        game = lock_to_score(game, by)
        require_playable(game)
        number = game.hand_count + 1
        if ScoreEvent.objects.filter(game=game, hand_number=number, active=True).exists():
            raise GameConflict(
                say(
                    "Points are already recorded in hand {number}: undo them before a re-deal.",
                    number=number,
                ),
                game=game,
            )
        ruleset = ruleset_of(game)
        if leader_rule(ruleset, number, game.next_leader) not in (None, "unknown"):
            # New tiles: whoever held the double before may not hold it now.
            game.next_leader = ""
            statements.save_game(game, ["next_leader"])
        record_act(
            OfficialAct.Kind.REDEAL,
            by=by,
            game=game,
            hand=number,
            reason=(reason or "").strip() or "nobody holds a double",
        )
        changed(game, "redeal")
    return game


def open_disputes(game: Game) -> list[Dispute]:
    return list(game.disputes.filter(status=Dispute.Status.OPEN).order_by("pk"))


__all__ = [
    "LEADER_QUESTIONS",
    "deduct_points",
    "forfeit_seat",
    "image_type",
    "leader_rule",
    "open_dispute",
    "redeal",
    "resolve_dispute",
    "set_leader",
]

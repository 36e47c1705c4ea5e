"""One person, one player, owned by that person: merging two players, linking a player
to an account, and the record of every such act.

A player linked to an account is that person's: nobody else gives a claim code for it or
merges it away; its holder asks for a merge (``request_merge``) and a superuser, or the
organizers of every event the other player entered, confirm it (``confirm_merge``). An
unlinked player is looked after by whoever organizes every event they entered
(``players.permissions``). Each act is written down as an ``IdentityAct``.
"""

import hashlib
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from accounts.permissions import require
from domain.errors import Conflict, TooMany, UserError
from domain.say import say
from players.models import ClaimCode, IdentityAct, MergeRequest, Player, PlayerMerge
from players.selectors import entries_of, events_of
from players.signals import player_merging
from tournaments.models import Staff
from tournaments.permissions import refuse_event_account
from tournaments.read import live

# Letters and digits nobody misreads on a phone (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
# Wrong codes one account may give in WRONG_CODES_WINDOW seconds before every claim of
# it is refused until the window ends. A code is one of 31^10; the limit is there so
# that nobody can even start guessing.
WRONG_CODES_WINDOW = 3600

Kind = IdentityAct.Kind


class PlayerError(UserError):
    """A request about a player that cannot be carried out as given."""


class PlayerConflict(PlayerError, Conflict):
    """The players' state forbids it (already linked, both in one event ...)."""


def record(
    kind: str, *, by, player: Player, other: Player | None = None, event: str = ""
) -> IdentityAct:
    """Write down an act on who ``player`` is (with ``other``, for merges; ``event``, the
    event's name, for entries)."""
    return IdentityAct.objects.create(
        event=event[:200],
        kind=kind,
        by=by if getattr(by, "pk", None) else None,
        account_id=player.user_id or (other.user_id if other else None),
        player_id=player.pk,
        player_name=player.display_name,
        other_id=other.pk if other else None,
        other_name=other.display_name if other else "",
    )


def merge_players(keep: Player, other: Player, *, by) -> Player:
    """Make ``other`` one with ``keep``: every entry, game seat and result of ``other``
    becomes ``keep``'s, and ``other`` is deleted.

    Only an organizer of every event either player entered (or a superuser) merges, and
    never a player linked to an account: its holder asks for it (``request_merge``).
    Refused when both played in one event (their results there would be one person's
    twice)."""
    _check_two(keep, other)
    with transaction.atomic():
        keep, other = _lock(keep, other)
        require(by, "player.merge", keep)
        require(by, "player.merge", other)
        return _merge(keep, other, by=by)


def _check_two(keep: Player, other: Player) -> None:
    if keep.pk == other.pk:
        raise PlayerError(say("Choose two different players."), "other")


def _lock(keep: Player, other: Player) -> tuple[Player, Player]:
    players = Player.objects.select_for_update().in_bulk([keep.pk, other.pk])
    if len(players) != 2:
        raise PlayerConflict(say("That player is gone: it was merged meanwhile."), "other")
    return players[keep.pk], players[other.pk]


def _merge(keep: Player, other: Player, *, by) -> Player:
    """The merge itself, on two locked players the caller has cleared."""
    shared = (
        entries_of(keep.pk)
        .filter(tournament__in=entries_of(other.pk).values("tournament"))
        .select_related("tournament")
        .first()
    )
    if shared is not None:
        raise PlayerConflict(
            say(
                "Both players entered {event}: they are two people.",
                event=shared.tournament.name,
            ),
            "other",
        )
    if keep.user_id and other.user_id:
        raise PlayerConflict(
            say("Both players have an account: they cannot be one person."), "other"
        )
    events = events_of(keep.pk) | events_of(other.pk)
    record(Kind.MERGE, by=by, player=keep, other=other)
    ClaimCode.objects.filter(player=other).delete()
    MergeRequest.objects.filter(other=other, status=MergeRequest.Status.OPEN).update(
        status=MergeRequest.Status.WITHDRAWN
    )
    player_merging.send(Player, kept=keep, removed=other)
    try:
        with transaction.atomic():
            _repoint(other, keep)
    except IntegrityError as error:
        raise PlayerConflict(
            say("These players cannot be merged: their records clash."), "other"
        ) from error
    user_id = other.user_id
    PlayerMerge.objects.filter(kept=other).update(kept=keep)
    PlayerMerge.objects.create(
        removed_id=other.pk, removed_name=other.display_name, kept=keep, merged_by=by
    )
    other.delete()
    if user_id and not keep.user_id:
        keep.user_id = user_id
        keep.save(update_fields=["user"])
    if not keep.club and other.club:
        keep.club = other.club
        keep.save(update_fields=["club"])
    _forget_events(events)
    return keep


def _forget_events(events: set[int]) -> None:
    """The merged players' events show them afresh: their cached live parts are dropped
    once the merge commits."""
    transaction.on_commit(lambda: [live.forget_tournament(pk) for pk in sorted(events)])


def _repoint(other: Player, keep: Player) -> None:
    """Every row that points at ``other`` points at ``keep`` instead, whatever app it is
    in (entries, game seats, applications, and any record added later)."""
    reverse = [
        field
        for field in Player._meta.get_fields(include_hidden=True)
        if field.auto_created and not field.concrete and field.is_relation
    ]
    for relation in reverse:
        if not (relation.one_to_many or relation.one_to_one) or relation.related_model is None:
            continue
        name = relation.field.name
        relation.related_model._base_manager.filter(**{name: other}).update(**{name: keep})


def request_merge(other: Player, *, by) -> MergeRequest:
    """The signed-in user asks that ``other`` be merged into their own player (the same
    person entered under another name); it waits for confirmation."""
    with transaction.atomic():
        keep = Player.objects.select_for_update().filter(user=by).first()
        if keep is None:
            raise PlayerConflict(
                say("Link your account to your player first, with a claim code."), "other"
            )
        _check_two(keep, other)
        keep, other = _lock(keep, other)
        if other.user_id:
            raise PlayerConflict(
                say("Both players have an account: they cannot be one person."), "other"
            )
        if events_of(keep.pk) & events_of(other.pk):
            raise PlayerConflict(
                say("Both players entered one event: they are two people."), "other"
            )
        asked = MergeRequest.objects.filter(
            keep=keep, other=other, status=MergeRequest.Status.OPEN
        ).first()
        if asked is not None:
            return asked
        asked = MergeRequest.objects.create(
            keep=keep, other=other, other_name=other.display_name, asked_by=by
        )
        record(Kind.MERGE_REQUEST, by=by, player=keep, other=other)
    return asked


def may_confirm(user, asked: MergeRequest) -> bool:
    """Whether ``user`` may confirm the merge asked: a superuser, or an organizer of an
    event of the other player not yet confirmed."""
    if asked.status != MergeRequest.Status.OPEN or asked.other_id is None:
        return False
    return _superuser(user) or bool(_confirmable(user, asked))


def _superuser(user) -> bool:
    return bool(user is not None and getattr(user, "is_active", False) and user.is_superuser)


def _confirmable(user, asked: MergeRequest) -> set[int]:
    """The other player's events, not yet confirmed, that ``user`` organizes."""
    if not getattr(user, "is_authenticated", False):
        return set()
    waiting = events_of(asked.other_id) - set(asked.confirmed_events)
    return set(
        Staff.objects.filter(
            user=user, role=Staff.Role.ORGANIZER, tournament_id__in=waiting
        ).values_list("tournament_id", flat=True)
    )


def confirm_merge(asked: MergeRequest, *, by) -> MergeRequest:
    """Confirm a merge asked for: a superuser merges at once; an organizer confirms for
    the other player's events they organize, and the merge is done once every one of
    them is confirmed."""
    with transaction.atomic():
        asked = MergeRequest.objects.select_for_update().get(pk=asked.pk)
        if asked.status != MergeRequest.Status.OPEN or asked.other_id is None:
            raise PlayerConflict(say("This merge is no longer waiting."), "request")
        keep, other = _lock(asked.keep, asked.other)
        if keep.user_id != asked.asked_by_id:
            raise PlayerConflict(say("This merge is no longer waiting."), "request")
        everyone = _superuser(by)
        mine = _confirmable(by, asked)
        if not everyone and not mine:
            raise PermissionDenied("Only the organizers of the other player's events confirm.")
        asked.confirmed_events = sorted(set(asked.confirmed_events) | mine)
        record(Kind.MERGE_CONFIRM, by=by, player=keep, other=other)
        if everyone or events_of(other.pk) <= set(asked.confirmed_events):
            _merge(keep, other, by=by)
            asked.status = MergeRequest.Status.DONE
        asked.save(update_fields=["confirmed_events", "status", "updated_at"])
    return asked


@dataclass(frozen=True)
class IssuedCode:
    """A claim code as made: the only time anyone sees it."""

    player: Player
    code: str


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def issue_claim_code(player: Player, *, by) -> IssuedCode:
    """A new code for ``player`` (the old one stops working), to give them in person.

    Only for a player no account holds, by an organizer of every event they entered;
    the code is shown now and never again (only its digest is kept)."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        require(by, "player.claim_code", player)
        if player.user_id:  # a superuser's request
            raise PlayerConflict(
                say("{name} is already linked to an account.", name=player.display_name),
                "player",
            )
        ClaimCode.objects.filter(player=player).delete()
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        ClaimCode.objects.create(player=player, digest=_digest(code), created_by=by)
        record(Kind.CLAIM_CODE, by=by, player=player)
    return IssuedCode(player=player, code=code)


def normalize_code(text: str) -> str:
    return "".join(ch for ch in (text or "").upper() if ch.isalnum())


def _wrong_codes_key(user) -> str:
    return f"players:wrong-claim-codes:{user.pk}"


def _count_wrong_code(user) -> None:
    key = _wrong_codes_key(user)
    cache.add(key, 0, WRONG_CODES_WINDOW)  # the window starts at the first wrong code
    try:
        cache.incr(key)
    except ValueError:  # gone between the two calls
        cache.set(key, 1, WRONG_CODES_WINDOW)


def claim_player(code: str, *, by) -> Player:
    """Link the signed-in user to the player whose claim code they give (used once).

    After ``CLAIM_CODE_TRIES`` wrong codes within an hour, the account's claims are
    refused, right code or not, until the hour is over."""
    refuse_event_account(by, "code")
    code = normalize_code(code)
    if not code or len(code) > 16:
        raise PlayerError(say("Give the claim code the organizer gave you."), "code")
    if (cache.get(_wrong_codes_key(by)) or 0) >= settings.CLAIM_CODE_TRIES:
        raise TooMany(
            say("Too many wrong claim codes from this account; try again in an hour."),
            "code",
            retry_after=WRONG_CODES_WINDOW,
        )
    with transaction.atomic():
        claim = ClaimCode.objects.select_for_update().filter(digest=_digest(code)).first()
        if claim is None:
            _count_wrong_code(by)
            raise PlayerError(say("That claim code is not known. Check it and try again."), "code")
        player = Player.objects.select_for_update().get(pk=claim.player_id)
        if Player.objects.filter(user=by).exclude(pk=player.pk).exists():
            raise PlayerConflict(
                say(
                    "Your account is already linked to a player; ask from the other player's "
                    "page for the two to be merged."
                ),
                "code",
            )
        if player.user_id and player.user_id != by.pk:
            raise PlayerConflict(
                say("{name} is already linked to an account.", name=player.display_name), "code"
            )
        player.user = by
        player.save(update_fields=["user"])
        claim.delete()
        record(Kind.CLAIM, by=by, player=player)
    return player


def unlink_player(player: Player, *, by) -> Player:
    """The account holder (or a superuser) unlinks the account from its player."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        if not player.user_id:
            raise PlayerConflict(
                say("{name} is not linked to an account.", name=player.display_name), "player"
            )
        require(by, "player.manage", player)
        record(Kind.UNLINK, by=by, player=player)
        # Merges the holder asked for were theirs to ask: they end with the link.
        MergeRequest.objects.filter(keep=player, status=MergeRequest.Status.OPEN).update(
            status=MergeRequest.Status.WITHDRAWN
        )
        player.user = None
        player.save(update_fields=["user"])
    return player

"""One person, one player: merging two players, and linking a player to an account."""

import secrets

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction

from accounts.models import Player
from accounts.permissions import require
from domain.errors import Conflict, TooMany, UserError
from domain.say import say
from players.models import ClaimCode, PlayerMerge
from players.permissions import entries_of
from players.signals import player_merging

# Letters and digits nobody misreads on a phone (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
# Wrong codes one account may give in WRONG_CODES_WINDOW seconds before every claim of
# it is refused until the window ends. A code is one of 31^10; the limit is there so
# that nobody can even start guessing.
WRONG_CODES_WINDOW = 3600


class PlayerError(UserError):
    """A request about a player that cannot be carried out as given."""


class PlayerConflict(PlayerError, Conflict):
    """The players' state forbids it (already linked, both in one event ...)."""


def merge_players(keep: Player, other: Player, *, by) -> Player:
    """Make ``other`` one with ``keep``: every entry, game seat and result of ``other``
    becomes ``keep``'s, and ``other`` is deleted. Refused when both played in one event
    (their results there would be one person's twice) or both have an account."""
    if keep.pk == other.pk:
        raise PlayerError(say("Choose two different players."), "other")
    with transaction.atomic():
        players = Player.objects.select_for_update().in_bulk([keep.pk, other.pk])
        keep, other = players[keep.pk], players[other.pk]
        require(by, "player.manage", keep)
        require(by, "player.manage", other)
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
        ClaimCode.objects.filter(player=other).delete()
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
    return keep


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


def issue_claim_code(player: Player, *, by) -> ClaimCode:
    """A new code for ``player`` (the old one stops working), to give them in person."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        require(by, "player.manage", player)
        if player.user_id:
            raise PlayerConflict(
                say("{name} is already linked to an account.", name=player.display_name),
                "player",
            )
        ClaimCode.objects.filter(player=player).delete()
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        return ClaimCode.objects.create(player=player, code=code, created_by=by)


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
        claim = ClaimCode.objects.select_for_update().filter(code=code).first()
        if claim is None:
            _count_wrong_code(by)
            raise PlayerError(say("That claim code is not known. Check it and try again."), "code")
        player = Player.objects.select_for_update().get(pk=claim.player_id)
        if Player.objects.filter(user=by).exclude(pk=player.pk).exists():
            raise PlayerConflict(
                say(
                    "Your account is already linked to a player; ask an organizer to merge the two."
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
    return player

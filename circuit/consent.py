"""Who may seat whom in a ladder, and what follows an event's visibility in the ratings.

A player with an account sits in a ladder only by their own act: their own check-in, or
their acceptance of the organizer's request. A player without an account is checked in
by the organizer of a ladder they already play in, or by whoever created them: the
creator of the first event or ladder they appeared in (capicu keeps no other record of
who made a player). A seat's consent is recorded on the entry and on every table it is
seated at; the ratings count a ladder game only when every seat has such a record.

Ratings, their history and the leaderboards are public, so only public games count: a
private event's games leave the pools, and come back when the event turns public.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction
from django.db.models import Q
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts.permissions import grants, is_signed_in
from circuit.models import (
    Consent,
    LadderPlayer,
    LadderRequest,
    LadderSeat,
    LadderSession,
    SeriesEvent,
)
from circuit.services.ratings import rerate_games_of, rerate_games_of_event
from jobs import runner
from players.matching import attach_rule
from players.models import EntryRequest
from players.signals import entry_moved
from tournaments.models import Entrant, Staff, Tournament

# The (user, game) of a player's forfeit of their own ladder seat while the ladder's
# service has scoring carry it out (see ``forfeiting``).
_forfeiting: ContextVar[tuple[int, int] | None] = ContextVar("ladder_forfeit", default=None)


def created_by(player) -> int | None:
    """The user who created ``player``: the creator of the first event or ladder the
    player appeared in (by the entry's time; a ladder entry older than that record
    counts from its ladder's opening)."""
    appearances = [
        *Entrant.objects.filter(player=player).values_list("created_at", "tournament__created_by"),
        *Entrant.objects.filter(partner=player).values_list("created_at", "tournament__created_by"),
        *(
            (came_at or opened_at, by)
            for came_at, opened_at, by in LadderPlayer.objects.filter(player=player).values_list(
                "created_at", "session__created_at", "session__created_by"
            )
        ),
    ]
    return min(appearances, key=lambda appearance: appearance[0])[1] if appearances else None


def seat_consent(user, session: LadderSession, player) -> str | None:
    """How ``user`` checking ``player`` into ``session`` is consented, or None when it
    is not: no one but the person acts for a player with an account, superusers
    included (consent is the person's, not a permission)."""
    if not is_signed_in(user):
        return None
    if player.user_id is not None:
        return Consent.SELF if player.user_id == user.pk else None
    if session.created_by_id != user.pk:
        return None
    plays_here = (
        LadderPlayer.objects.filter(player=player, session__created_by=user)
        .exclude(consent="")
        .exists()
    )
    return Consent.ORGANIZER if plays_here or created_by(player) == user.pk else None


@grants("ladder.view")
def involved_player_sees(user, session) -> bool:
    """A player asked to check in, or in the session, sees it even when it is private."""
    player = getattr(user, "player", None) if is_signed_in(user) else None
    if player is None or session is None:
        return False
    return (
        LadderPlayer.objects.filter(session=session, player=player).exists()
        or LadderRequest.objects.filter(session=session, player=player).exists()
    )


@grants("ladder.forfeit")
def own_seat_or_organizer(user, seat: LadderSeat) -> bool:
    """A consented ladder seat forfeits by its player's act or its ladder's organizer's."""
    if not is_signed_in(user) or seat is None:
        return False
    return seat.player.user_id == user.pk or seat.table.session.created_by_id == user.pk


@grants("game.manage")
def forfeiting_own_seat(user, game) -> bool:
    """Scoring's forfeit asks to manage the game; a player forfeiting their own ladder
    seat may, for that one call, once the ladder's rule let them (``forfeiting``)."""
    return is_signed_in(user) and _forfeiting.get() == (user.pk, getattr(game, "pk", None))


@contextmanager
def forfeiting(user, game):
    """Let ``user`` forfeit a seat of ``game`` through scoring's forfeit, within the block."""
    token = _forfeiting.set((user.pk, game.pk))
    try:
        yield
    finally:
        _forfeiting.reset(token)


@receiver(pre_save, sender=Tournament, dispatch_uid="circuit.visibility_before")
def remember_visibility(sender, instance, update_fields=None, **kwargs) -> None:
    """The event's visibility before this save (a save that leaves it alone: none)."""
    instance._was_public = (
        Tournament.objects.filter(pk=instance.pk).values_list("public", flat=True).first()
        if instance.pk and (update_fields is None or "public" in update_fields)
        else None
    )


@receiver(post_save, sender=Tournament, dispatch_uid="circuit.visibility_after")
def rerate_on_visibility(sender, instance, created: bool, **kwargs) -> None:
    """An event turned public or private: its finished games join or leave the public
    pools once the change commits (its games' own flag follows in the same transaction)."""
    was = getattr(instance, "_was_public", None)
    if created or was is None or was == instance.public:
        return
    tournament_id = instance.pk
    transaction.on_commit(lambda: rerate_games_of_event(tournament_id))


@receiver(entry_moved, dispatch_uid="circuit.entry_moved")
def rerate_moved_entry(sender, tournament, players, **kwargs) -> None:
    """An entry became its person's (or left them): the games of both players are rated
    again, and the event's series lines worked out again, once the answer commits."""
    ids = list(players)
    transaction.on_commit(lambda: rerate_games_of(ids))
    series = SeriesEvent.objects.filter(tournament=tournament).values_list("series_id", flat=True)
    for series_id in sorted(set(series)):
        runner.request_on_commit("series", series_id)


@attach_rule
def attachable(by, players) -> set[int]:
    """Of ``players``, the numbers of those ``by`` may enter in an event: anyone linked
    to an account (their entry is asked of them), and an unlinked player who plays in an
    event ``by`` made or organizes, or in a ladder ``by`` made with consent recorded, or
    who appears nowhere yet. A new player standing in for someone while the person is
    asked belongs to that entry alone."""
    players = list(players)
    linked = {p.pk for p in players if p.user_id is not None}
    ids = [p.pk for p in players if p.user_id is None]
    if not ids:
        return linked
    entries = Entrant.objects.filter(Q(player_id__in=ids) | Q(partner_id__in=ids))
    seen: set[int] = set()
    for one, two in entries.values_list("player_id", "partner_id"):
        seen.update((one, two))
    ladders = LadderPlayer.objects.filter(player_id__in=ids)
    seen.update(ladders.values_list("player_id", flat=True))
    held = set(
        EntryRequest.objects.filter(
            stand_in_id__in=ids, answer=EntryRequest.Answer.PENDING
        ).values_list("stand_in_id", flat=True)
    )
    mine: set[int] = set()
    if getattr(by, "pk", None) is not None:
        organized = Staff.objects.filter(user=by, role=Staff.Role.ORGANIZER).values("tournament")
        for one, two in entries.filter(
            Q(tournament__created_by=by) | Q(tournament__in=organized)
        ).values_list("player_id", "partner_id"):
            mine.update((one, two))
        mine.update(
            ladders.filter(session__created_by=by)
            .exclude(consent="")
            .values_list("player_id", flat=True)
        )
    return linked | {pk for pk in ids if pk not in held and (pk in mine or pk not in seen)}

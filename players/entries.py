"""Entering a person in an event takes their word: entry requests.

A player linked to an account enters an event only by the person's own act: their own
entry, a partner's invitation they accepted, or an organizer's entry they accepted. When
an organizer enters a name that is such a player (the same name, or the candidate they
chose), the entry plays as a new player of that name (``players.matching.players_for``)
and the person is asked here. Nothing of theirs moves meanwhile: their page, rating,
leaderboard place, series lines and emails know nothing of the entry, and the event runs
as it would. Accepted, the entry, its game seats and their results become the person's,
and the games are rated again; declined or left unanswered past ``ENTRY_REQUEST_DAYS``,
the entry stays with the new player for good.

An organizer asks one person at a time (one unanswered request of theirs per person),
at most ``ENTRY_REQUESTS_PER_HOUR`` an hour, and an event asks a person once: past that
the entry simply plays as the new player. Every ask and answer is in the person's
identity record on ``/accounts/``.
"""

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models.deletion import ProtectedError
from django.utils import timezone

from accounts.services import spend_hourly
from domain.errors import Conflict
from domain.say import say
from players.identity import PlayerConflict, PlayerError, record
from players.matching import new_player
from players.models import EntryRequest, IdentityAct, Player, PlayerMerge
from players.signals import entry_moved
from scoring.models import Seat
from tournaments.models import Entrant

Answer = EntryRequest.Answer


def expired(asked: EntryRequest, now=None) -> bool:
    """Whether a pending request is past answering."""
    now = now or timezone.now()
    return asked.answer == Answer.PENDING and asked.asked_at < now - timedelta(
        days=settings.ENTRY_REQUEST_DAYS
    )


def ask_for(tournament, entrants, *, by) -> list[EntryRequest]:
    """After an organizer's registration made ``entrants``: ask each person a new player
    stands in for (``stands_in_for``) whether the entry is theirs."""
    asked = []
    for entrant in entrants:
        for stand_in in (entrant.player, entrant.partner):
            holder = getattr(stand_in, "stands_in_for", None)
            if holder is not None:
                made = _ask(tournament, entrant, stand_in, holder, by=by)
                if made is not None:
                    asked.append(made)
    return asked


def _ask(tournament, entrant, stand_in: Player, holder: Player, *, by) -> EntryRequest | None:
    """The request, or None when the person is not asked (the event asked them already,
    this organizer waits for their answer elsewhere, or past the hourly number)."""
    if EntryRequest.objects.filter(tournament=tournament, player=holder).exists():
        return None
    waiting = EntryRequest.objects.filter(asked_by=by, player=holder, answer=Answer.PENDING)
    if waiting.exists():
        return None
    if not spend_hourly("entry_requests", by.pk, settings.ENTRY_REQUESTS_PER_HOUR):
        return None
    try:
        with transaction.atomic():
            asked = EntryRequest.objects.create(
                tournament=tournament,
                entrant=entrant,
                player=holder,
                stand_in=stand_in,
                asked_by=by,
                asked_at=timezone.now(),
            )
    except IntegrityError:  # asked meanwhile by another registration of the event
        return None
    record(IdentityAct.Kind.ENTRY_REQUEST, by=by, player=holder, event=tournament.name)
    return asked


def answer(asked: EntryRequest, *, by, accept: bool) -> EntryRequest:
    """The person accepts the entry (it becomes theirs) or declines it (it stays with the
    player standing in, for good)."""
    with transaction.atomic():
        asked = (
            EntryRequest.objects.select_for_update()
            .select_related("player", "tournament")
            .get(pk=asked.pk)
        )
        holder = Player.objects.select_for_update().get(pk=asked.player_id)
        if holder.user_id is None or holder.user_id != getattr(by, "pk", None):
            raise PlayerError(say("This request is not yours to answer."), "request")
        if asked.answer != Answer.PENDING:
            raise Conflict(say("This request has already been answered."), "request")
        if accept and expired(asked):
            raise Conflict(say("This request is too old to accept."), "request")
        entrant = Entrant.objects.select_for_update().get(pk=asked.entrant_id)
        seated = {entrant.player_id, entrant.partner_id} - {None}
        # Who holds the entry's place: the stand-in, or (an entry made before requests
        # existed) the person. Neither, and the entry changed hands meanwhile (its stand-in
        # merged into another player): it can no longer become theirs.
        theirs = asked.stand_in_id is None and holder.pk in seated
        if accept and not theirs and asked.stand_in_id not in seated:
            raise Conflict(
                say("This entry has changed since you were asked: it cannot be yours."),
                "request",
            )
        fields = ["answer", "answered_at"]  # and the stand-in, when one is made
        if accept and not theirs:
            _move(entrant, asked.stand_in, holder)  # the stand-in goes unless it plays elsewhere
        elif accept:
            # An entry made before requests existed already holds her player: accepted,
            # its games join the ratings.
            entry_moved.send(Player, tournament=asked.tournament, players=[holder.pk])
        elif theirs:
            # Declined, such an entry goes to a new player of the name, as a declined
            # entry would have been.
            asked.stand_in = new_player(holder.display_name, holder.club)
            _move(entrant, holder, asked.stand_in)
            fields.append("stand_in_id")
        asked.answer = Answer.ACCEPTED if accept else Answer.DECLINED
        asked.answered_at = timezone.now()
        # Written by its fields alone: an accepted entry's stand-in may be gone by now.
        EntryRequest.objects.filter(pk=asked.pk).update(
            **{name: getattr(asked, name) for name in fields}
        )
        kind = IdentityAct.Kind.ENTRY_ACCEPT if accept else IdentityAct.Kind.ENTRY_DECLINE
        record(kind, by=by, player=holder, event=asked.tournament.name)
    return asked


def _move(entrant: Entrant, was: Player | None, now: Player) -> None:
    """The entry's place held by ``was`` is ``now``'s, with its game seats in the event;
    a player left standing in nowhere else is removed (its address leads to ``now``)."""
    if was is None:
        return
    tournament = entrant.tournament
    if (
        Entrant.objects.filter(tournament=tournament)
        .filter(models.Q(player=now) | models.Q(partner=now))
        .exists()
    ):
        raise PlayerConflict(
            say("You are already entered in {event}.", event=tournament.name), "request"
        )
    field = "player" if entrant.player_id == was.pk else "partner"
    setattr(entrant, field, now)
    entrant.save(update_fields=[field])
    Seat.objects.filter(player=was, game__match__round__stage__tournament=tournament).update(
        player=now
    )
    entry_moved.send(Player, tournament=tournament, players=[was.pk, now.pk])
    if was.user_id is None:
        try:
            with transaction.atomic():
                removed_id, removed_name = was.pk, was.display_name
                was.delete()
                PlayerMerge.objects.create(
                    removed_id=removed_id, removed_name=removed_name, kept=now
                )
        except (ProtectedError, IntegrityError):
            pass  # it plays elsewhere too: it stays, with what it played there


def requests_of(user) -> list[EntryRequest]:
    """The entry requests sent to the user's own player, newest first."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(
        EntryRequest.objects.filter(player__user=user)
        .select_related("tournament", "asked_by")
        .order_by("-asked_at", "-pk")[:50]
    )


def request_for(user, pk: int) -> EntryRequest | None:
    """A request sent to the user's own player, or None."""
    if not getattr(user, "is_authenticated", False) or not 0 < pk <= 2**63 - 1:
        return None
    return (
        EntryRequest.objects.filter(pk=pk, player__user=user).select_related("tournament").first()
    )


def row(asked: EntryRequest) -> dict:
    """A request as the API tells it."""
    return {
        "id": asked.pk,
        "event": asked.tournament.name,
        "event_slug": asked.tournament.slug,
        "answer": "expired" if expired(asked) else asked.answer,
        "asked_by": asked.asked_by.username if asked.asked_by_id else None,
        "asked_at": asked.asked_at,
        "answered_at": asked.answered_at,
    }

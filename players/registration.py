"""Players entering events themselves, and checking themselves in.

An organizer opens registration on an event: a window, a capacity and whether entries
need approval. A signed-in player enters (for Partners, with a partner who accepts);
past the capacity the entry waits on a list that moves up by itself when an entrant
withdraws. Entering makes a ``tournaments.Entrant`` through
``tournaments.services.entrants.admit``, the same as an organizer's registration, so
every page and the pairing see one kind of entrant. Self check-in is the organizer's
``check_in`` service, which lets an entrant's own player call it while this event's
check-in window is open.

Naming a partner invites them: it is counted against the inviter's hourly invitations,
answers the same for a name nobody has as for an account that cannot be invited, and
only one invitation between two people waits at a time. A pending invitation does not
hold the invited player back from entering with someone else.
"""

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.permissions import allowed, require
from domain.say import say
from players import notices
from players.identity import PlayerConflict, PlayerError, record
from players.matching import look_up, new_player
from players.models import ACTIVE, Application, IdentityAct, Player, Registration
from players.selectors import entries_of
from tournaments import services
from tournaments.clock import local_text
from tournaments.models import Entrant, Tournament
from tournaments.permissions import refuse_event_account
from tournaments.services.entrants import admit
from tournaments.services.staff import NO_ONE_TO_INVITE, invitable_user, spend_invitation
from tournaments.suspensions import refuse_suspended

Status = Application.Status


def registration_of(tournament: Tournament) -> Registration | None:
    return Registration.objects.filter(tournament=tournament).first()


def _local(moment: datetime | None, tournament: Tournament) -> str:
    """On the event's clock, in the one format its pages use, the zone named."""
    return local_text(moment, tournament)


def registration_open(tournament: Tournament, now: datetime | None = None) -> bool:
    registration = registration_of(tournament)
    return registration is not None and _within(
        registration.opens_at, registration.closes_at, tournament, now
    )


def _within(start, end, tournament: Tournament, now) -> bool:
    if tournament.status == Tournament.Status.FINISHED:
        return False
    now = now or timezone.now()
    return (start is None or start <= now) and (end is None or now < end)


def check_in_open(tournament: Tournament, now: datetime | None = None) -> bool:
    """Whether players may check themselves in now: only inside a window the organizer set."""
    found = registration_of(tournament)
    return (
        found is not None
        and found.check_in_opens_at is not None
        and _within(found.check_in_opens_at, found.check_in_closes_at, tournament, now)
    )


def open_registration(
    tournament: Tournament,
    *,
    by,
    opens_at: datetime | None = None,
    closes_at: datetime | None = None,
    capacity: int | None = None,
    requires_approval: bool = False,
    check_in_opens_at: datetime | None = None,
    check_in_closes_at: datetime | None = None,
) -> Registration:
    """Open (or change) self-registration; a larger capacity moves the waiting list up."""
    if opens_at and closes_at and opens_at >= closes_at:
        raise PlayerError(say("Registration must close after it opens."), "closes_at")
    if check_in_opens_at and check_in_closes_at and check_in_opens_at >= check_in_closes_at:
        raise PlayerError(say("Check-in must close after it opens."), "check_in_closes_at")
    if check_in_closes_at and not check_in_opens_at:
        raise PlayerError(say("Say when check-in opens."), "check_in_opens_at")
    if capacity is not None and capacity < 1:
        raise PlayerError(say("The capacity is at least 1 (blank: no limit)."), "capacity")
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        require(by, "tournament.manage", tournament)
        registration, _ = Registration.objects.update_or_create(
            tournament=tournament,
            defaults={
                "opens_at": opens_at,
                "closes_at": closes_at,
                "capacity": capacity,
                "requires_approval": requires_approval,
                "check_in_opens_at": check_in_opens_at,
                "check_in_closes_at": check_in_closes_at,
            },
        )
        _move_up(tournament, registration)
    return registration


def close_registration(tournament: Tournament, *, by) -> None:
    """Stop self-registration (entries already made stay)."""
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        Registration.objects.filter(tournament=tournament).delete()


def _player_of(user, name: str, new: bool, field: str) -> Player:
    """The user's own player: the one linked to their account, else a new one, unless the
    name is already known (then it may be them: a claim code links it)."""
    own = Player.objects.filter(user=user).first()
    if own is not None:
        return own
    name = " ".join((name or user.get_full_name() or user.username).split())[:120]
    found = look_up(name)
    if (found.same or found.candidates) and not new:
        raise PlayerConflict(
            say(
                "A player named {name} is already known. If that is you, ask an organizer "
                "for a claim code; if not, confirm that you are a different person.",
                name=(found.same or found.candidates[0]).display_name,
            ),
            field,
        )
    player = new_player(name, user=user)
    record(IdentityAct.Kind.LINK, by=user, player=player)
    return player


def enter(
    tournament: Tournament, *, by, name: str = "", partner: str = "", new_player: bool = False
) -> Application:
    """The signed-in user enters ``tournament`` (with the user named ``partner`` in a
    Partners event, who then accepts)."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if not allowed(by, "tournament.enter", tournament):
            refuse_event_account(by, "tournament")
            raise PlayerError(say("There is no such tournament."), "tournament")
        registration = registration_of(tournament)
        if registration is None or not registration_open(tournament):
            raise PlayerConflict(say("Registration for this event is not open."), "tournament")
        player = _player_of(by, name, new_player, "name")
        _check_free(tournament, player, by)
        partner_user = None
        if tournament.is_teams:
            partner_user = _partner_user(partner, by)
            _check_free(tournament, Player.objects.filter(user=partner_user).first(), partner_user)
        elif partner:
            raise PlayerError(say("Players enter alone in this tournament."), "partner")
        application = Application.objects.create(
            tournament=tournament,
            user=by,
            player=player,
            partner_user=partner_user,
            status=Status.PARTNER if partner_user else Status.APPROVAL,
        )
        if partner_user is not None:
            notices.notify(
                partner_user,
                "partner",
                {"application": application, "url": notices.tournament_url(tournament)},
                by=by,
            )
            return application
        return _advance(application, registration)


def _partner_user(username: str, by):
    """The user ``by`` names as a partner, locked until the entry is written so that two
    invitations to them cannot cross."""
    username = (username or "").strip()
    if not username:
        raise PlayerError(say("This is a Partners event: name your partner's username."), "partner")
    spend_invitation(by, "partner")
    partner = invitable_user(username)
    if partner is None:
        raise PlayerError(say(NO_ONE_TO_INVITE), "partner")
    if partner.pk == by.pk:
        raise PlayerError(say("A team needs two different players."), "partner")
    get_user_model().objects.select_for_update().filter(pk=partner.pk).first()
    pending = Application.objects.filter(status=Status.PARTNER).filter(
        Q(user=by, partner_user=partner) | Q(user=partner, partner_user=by)
    )
    if pending.exists():
        raise PlayerConflict(
            say(
                "An invitation between you and {username} is already waiting for an answer.",
                username=partner.username,
            ),
            "partner",
        )
    return partner


def _check_free(tournament: Tournament, player: Player | None, user, *, but=None) -> None:
    """One entry per person per event, whether made by an organizer or by themselves (an
    invitation they have not accepted is not theirs yet; ``but`` is the one being answered)."""
    mine = Q(user=user) | (Q(partner_user=user) & ~Q(status=Status.PARTNER))
    if player is not None:
        mine |= Q(player=player) | Q(partner=player)
    taken = Application.objects.filter(tournament=tournament, status__in=ACTIVE).filter(mine)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    entered = player is not None and entries_of(player.pk).filter(tournament=tournament).exists()
    if taken.exists() or entered:
        raise PlayerConflict(
            say(
                "{name} already has an entry in this event.",
                name=player.display_name if player else user.username,
            ),
            "tournament",
        )
    refuse_suspended(tournament, [player] if player is not None else [])


def answer_partner(
    application: Application, *, by, accept: bool, name: str = "", new_player: bool = False
) -> Application:
    """The invited partner accepts (the team's entry goes on) or declines (it ends)."""
    with transaction.atomic():
        Tournament.objects.select_for_update().get(pk=application.tournament_id)
        application = Application.objects.select_for_update().get(pk=application.pk)
        if application.partner_user_id != by.pk or application.status != Status.PARTNER:
            raise PlayerConflict(say("This invitation is not waiting for you."), "application")
        if not accept:
            application.status = Status.DECLINED
            application.save(update_fields=["status", "updated_at"])
            return application
        registration = registration_of(application.tournament)
        if registration is None:
            raise PlayerConflict(say("Registration for this event is not open."), "tournament")
        partner = _player_of(by, name, new_player, "name")
        if partner.pk == application.player_id:
            raise PlayerError(say("A team needs two different players."), "partner")
        _check_free(application.tournament, partner, by, but=application)
        application.partner = partner
        application.status = Status.APPROVAL
        application.save(update_fields=["partner", "status", "updated_at"])
        return _advance(application, registration)


def _advance(application: Application, registration: Registration) -> Application:
    """On from waiting for the partner: to approval if needed, else in or onto the list."""
    if registration.requires_approval and not application.approved:
        application.status = Status.APPROVAL
        application.save(update_fields=["status", "updated_at"])
        return application
    return _place(application, registration)


def _entered_count(tournament: Tournament) -> int:
    return Entrant.objects.filter(tournament=tournament, withdrawn=False).count()


def _has_room(tournament: Tournament, registration: Registration) -> bool:
    return registration.capacity is None or _entered_count(tournament) < registration.capacity


def _place(application: Application, registration: Registration, *, promoted=False):
    tournament = application.tournament
    if not _has_room(tournament, registration):
        application.status = Status.WAITING
        application.queued_at = application.queued_at or timezone.now()
        application.save(update_fields=["status", "queued_at", "updated_at"])
        return application
    entrant = admit(tournament, player=application.player, partner=application.partner)
    application.entrant = entrant
    application.status = Status.ENTERED
    application.save(update_fields=["entrant", "status", "updated_at"])
    context = {"application": application, "url": notices.tournament_url(tournament)}
    kind = "promoted" if promoted else "confirmed"
    for user in {application.user, application.partner_user} - {None}:
        notices.notify(user, kind, context)
    return application


def decide(application: Application, *, by, approve: bool) -> Application:
    """An organizer approves an entry (it goes in, or onto the waiting list) or declines it."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=application.tournament_id)
        require(by, "tournament.manage", tournament)
        application = Application.objects.select_for_update().get(pk=application.pk)
        if application.status != Status.APPROVAL:
            raise PlayerConflict(say("This entry is not waiting for approval."), "application")
        if not approve:
            application.status = Status.DECLINED
            application.save(update_fields=["status", "updated_at"])
            return application
        application.approved = True
        application.save(update_fields=["approved", "updated_at"])
        registration = registration_of(tournament) or Registration(tournament=tournament)
        return _place(application, registration)


def withdraw_entry(application: Application, *, by) -> Application:
    """The player (or their partner) withdraws their entry; an entrant's place goes to
    the first on the waiting list."""
    with transaction.atomic():
        Tournament.objects.select_for_update().get(pk=application.tournament_id)
        application = Application.objects.select_for_update().get(pk=application.pk)
        if by.pk not in (application.user_id, application.partner_user_id):
            raise PlayerConflict(say("This entry is not yours."), "application")
        if application.status not in ACTIVE:
            raise PlayerConflict(say("This entry has already ended."), "application")
        if application.status == Status.ENTERED:
            services.withdraw(application.entrant, by=by)  # moves the list up
        else:
            application.status = Status.WITHDRAWN
            application.save(update_fields=["status", "updated_at"])
        application.refresh_from_db()
    return application


def entrant_withdrew(entrant: Entrant) -> None:
    """An entrant withdrew (by themselves or an organizer): their entry ends, and the
    waiting list moves up into the place. Runs in the withdrawal's transaction."""
    Application.objects.filter(entrant=entrant, status=Status.ENTERED).update(
        status=Status.WITHDRAWN, updated_at=timezone.now()
    )
    tournament = Tournament.objects.select_for_update().get(pk=entrant.tournament_id)
    registration = registration_of(tournament)
    if registration is not None:
        _move_up(tournament, registration)


def _move_up(tournament: Tournament, registration: Registration) -> list[Application]:
    moved = []
    waiting = Application.objects.filter(tournament=tournament, status=Status.WAITING)
    for application in waiting.order_by("queued_at", "pk").select_for_update():
        if not _has_room(tournament, registration):
            break
        try:
            with transaction.atomic():
                moved.append(_place(application, registration, promoted=True))
        except services.TournamentError:
            continue  # e.g. an organizer entered them meanwhile: it stays for them to see
    return moved


def own_entrant_in(tournament: Tournament, user) -> Entrant | None:
    """The user's entrant in ``tournament`` (alone or in a team), not withdrawn."""
    player = Player.objects.filter(user=user).first() if user.is_authenticated else None
    if player is None:
        return None
    return entries_of(player.pk).filter(tournament=tournament, withdrawn=False).first()


def self_check_in(tournament: Tournament, *, by, present: bool = True) -> Entrant:
    """The player checks themselves in (or out) while the event's check-in is open."""
    entrant = own_entrant_in(tournament, by)
    if entrant is None:
        raise PlayerConflict(say("You have no entry in this event."), "tournament")
    if not check_in_open(tournament):
        registration = registration_of(tournament)
        if registration is not None and registration.check_in_opens_at:
            raise PlayerConflict(
                say(
                    "Check-in is open from {opens} to {closes}.",
                    opens=_local(registration.check_in_opens_at, tournament),
                    closes=_local(registration.check_in_closes_at, tournament) or "…",
                ),
                "tournament",
            )
        raise PlayerConflict(say("Players cannot check themselves in to this event."), "tournament")
    return services.check_in(entrant, by=by, checked_in=present)

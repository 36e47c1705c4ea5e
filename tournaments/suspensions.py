"""Suspensions under a code of conduct (DCS: "Violations can result in match forfeiture,
point deductions, or suspension").

An organizer suspends a player who played in one of their events, for dates (both days
included) and a scope: every event that organizer runs, or one series they run. While it
lasts, the player's entries (their own or an organizer's) and check-ins in that scope are
refused with a plain message; lifting it keeps the record. Both acts are in the event's
audit list. Only the organizer who recorded a suspension (and the site's admins) see it
on the player's page, where the player (signed in) sees their own, as on their account page.
"""

from datetime import date, datetime

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.permissions import require
from domain.say import say
from players.models import Player
from scoring.audit import record_act
from scoring.models import OfficialAct
from tournaments.clock import zone
from tournaments.models import Entrant, Staff, Suspension, Tournament
from tournaments.services.common import TournamentConflict, TournamentError

# A suspension is for days to a few years; a date outside these is a typing slip.
YEARS = (2000, 2999)
LONGEST_DAYS = 366 * 10


def organizers_of(tournament: Tournament) -> set[int]:
    """The users who run the event: its creator and its organizers."""
    ids = set(
        Staff.objects.filter(tournament=tournament, role=Staff.Role.ORGANIZER).values_list(
            "user_id", flat=True
        )
    )
    if tournament.created_by_id:
        ids.add(tournament.created_by_id)
    return ids


def _day(tournament: Tournament, at: datetime | None) -> date:
    """The day ``at`` falls on at the event's own clock."""
    return timezone.localtime(at or timezone.now(), zone(tournament)).date()


def suspension_for(
    player: Player | None, tournament: Tournament, at: datetime | None = None
) -> Suspension | None:
    """The suspension that keeps ``player`` out of ``tournament`` on the day of ``at``
    (default: today), if any."""
    if player is None:
        return None
    day = _day(tournament, at)
    return (
        Suspension.objects.filter(
            player=player, lifted_at__isnull=True, starts_on__lte=day, ends_on__gte=day
        )
        .filter(
            Q(scope=Suspension.Scope.ORGANIZER, organizer_id__in=organizers_of(tournament))
            | Q(scope=Suspension.Scope.SERIES, series__events__tournament=tournament)
        )
        .order_by("-ends_on")
        .first()
    )


def refuse_suspended(tournament: Tournament, players, at: datetime | None = None) -> None:
    """Refuse an entry or a check-in of any of ``players`` suspended from the event."""
    for player in players:
        found = suspension_for(player, tournament, at)
        if found is not None:
            raise TournamentConflict(
                say(
                    "{name} is suspended from this event's competitions until {date} "
                    "(code of conduct): they cannot enter or check in.",
                    name=player.display_name,
                    date=found.ends_on.isoformat(),
                ),
                "player",
            )


def _date(value, field: str) -> date:
    if isinstance(value, str):
        try:
            value = date.fromisoformat(value.strip())
        except ValueError:
            value = None
    if isinstance(value, datetime) or not isinstance(value, date):
        raise TournamentError(say("Give a date as YYYY-MM-DD."), field)
    if not YEARS[0] <= value.year <= YEARS[1]:
        raise TournamentError(
            say("Give a date from {low} to {high}.", low=YEARS[0], high=YEARS[1]), field
        )
    return value


def players_of(entrant: Entrant) -> list[Player]:
    return [p for p in (entrant.player, entrant.partner) if p is not None]


def suspend(
    entrant: Entrant,
    *,
    by,
    starts_on,
    ends_on,
    reason: str,
    player: Player | None = None,
    series=None,
) -> Suspension:
    """Suspend the entrant's player (or, in a team, ``player``, one of its two) from the
    events of ``by`` (or from ``series``, which ``by`` runs) from ``starts_on`` to
    ``ends_on``, both included."""
    starts = _date(starts_on, "starts_on")
    ends = _date(ends_on, "ends_on")
    if ends < starts:
        raise TournamentError(say("The last day comes on or after the first."), "ends_on")
    if (ends - starts).days > LONGEST_DAYS:
        raise TournamentError(say("A suspension lasts at most ten years."), "ends_on")
    reason = (reason if isinstance(reason, str) else "").strip()[:500]
    if not reason:
        raise TournamentError(say("Say why the player is suspended."), "reason")
    with transaction.atomic():
        entrant = Entrant.objects.select_related("tournament", "player", "partner").get(
            pk=entrant.pk
        )
        tournament = entrant.tournament
        require(by, "tournament.manage", tournament)
        members = players_of(entrant)
        if player is None:
            player = members[0]
        elif player.pk not in {p.pk for p in members}:
            raise TournamentError(say("Choose a player of this entry."), "player")
        if series is not None and series.created_by_id != by.pk:
            raise TournamentError(say("Choose a series you run."), "series")
        suspension = Suspension.objects.create(
            player=player,
            scope=Suspension.Scope.SERIES if series is not None else Suspension.Scope.ORGANIZER,
            organizer=by,
            series=series,
            tournament=tournament,
            starts_on=starts,
            ends_on=ends,
            reason=reason,
        )
        record_act(
            OfficialAct.Kind.SUSPENDED,
            by=by,
            scope=f"tournament:{tournament.pk}",
            subject=player.display_name,
            reason=reason,
            suspension=suspension.pk,
            starts_on=starts.isoformat(),
            ends_on=ends.isoformat(),
            series=series.name if series is not None else "",
        )
    return suspension


def lift(suspension: Suspension, *, by, tournament: Tournament) -> Suspension:
    """Lift a suspension from the event page it is managed on: only the organizer who
    recorded it (or an admin) may."""
    with transaction.atomic():
        suspension = Suspension.objects.select_for_update().get(pk=suspension.pk)
        require(by, "tournament.manage", tournament)
        if suspension.organizer_id != by.pk and not by.is_superuser:
            raise TournamentError(
                say("Only the organizer who recorded a suspension may lift it."), "suspension"
            )
        if suspension.lifted_at is not None:
            raise TournamentConflict(say("This suspension is already lifted."), "suspension")
        suspension.lifted_at = timezone.now()
        suspension.lifted_by = by
        suspension.save(update_fields=["lifted_at", "lifted_by"])
        record_act(
            OfficialAct.Kind.SUSPENSION_LIFTED,
            by=by,
            scope=f"tournament:{tournament.pk}",
            subject=suspension.player.display_name,
            suspension=suspension.pk,
        )
    return suspension


def visible_to(player: Player, user) -> QuerySet[Suspension]:
    """The player's suspensions ``user`` may see: the ones they recorded (all of them for
    an admin, their own for the player's account)."""
    found = Suspension.objects.filter(player=player).select_related("series", "organizer")
    if not getattr(user, "is_authenticated", False):
        return found.none()
    if user.is_superuser or (player.user_id and player.user_id == user.pk):
        return found
    return found.filter(organizer=user)


def series_choices(user):
    """The series ``user`` runs, to suspend from."""
    series = Suspension._meta.get_field("series").related_model
    return series.objects.filter(created_by=user).order_by("name")

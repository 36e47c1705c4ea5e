"""An event's staff by consent, the accounts and tokens it manages, and who referees
each table."""

import secrets
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils.translation import gettext_noop
from rest_framework.authtoken.models import Token

from accounts.permissions import allowed, require
from accounts.services import HOUR, spend_hourly
from domain.errors import TooMany
from domain.say import say
from scoring.models import Game
from tournaments.models import (
    Entrant,
    EventAccount,
    Invitation,
    Match,
    Round,
    Staff,
    Tournament,
)
from tournaments.permissions import is_event_account
from tournaments.services.common import (
    TournamentConflict,
    TournamentError,
)

# One answer for a name nobody has and for an account that cannot be invited, so that an
# invitation form does not tell which usernames exist.
NO_ONE_TO_INVITE = gettext_noop("No user by that name can be invited.")


def invitable_user(username) -> Any:
    """The active user called ``username`` who may be invited to a role or a team, or None
    (unknown, inactive, or an account an event created: it belongs to that event alone)."""
    name = username.strip() if isinstance(username, str) else ""
    user = get_user_model().objects.filter(username__iexact=name, is_active=True).first()
    if not name or user is None or is_event_account(user):
        return None
    return user


def spend_invitation(by, field: str) -> None:
    """Count one invitation sent by ``by`` (to a role or a team); refused past the hourly
    cap, known name or not, so the forms cannot be used to spam people or to list names."""
    if not spend_hourly("invitations", by.pk, settings.INVITATIONS_PER_SENDER_PER_HOUR):
        raise TooMany(
            say("You have sent too many invitations in the last hour; try again later."),
            field,
            retry_after=HOUR,
        )


def invite_staff(tournament: Tournament, *, by, username: str, role: str) -> Invitation:
    """Offer an existing user a role in the event; it grants nothing until they accept."""
    if role not in Staff.Role.values:
        raise TournamentError(say("A role is organizer or referee."), "role")
    require(by, "tournament.manage", tournament)
    spend_invitation(by, "username")
    user = invitable_user(username)
    if user is None:
        raise TournamentError(say(NO_ONE_TO_INVITE), "username")
    with transaction.atomic():
        if Staff.objects.filter(tournament=tournament, user=user, role=role).exists():
            raise TournamentConflict(
                say("{username} already holds that role here.", username=user.username), "username"
            )
        invitation, _ = Invitation.objects.get_or_create(
            tournament=tournament, user=user, role=role, defaults={"invited_by": by}
        )
    return invitation


def accept_invitation(invitation: Invitation, *, by) -> Staff:
    """The invited user takes the role they were offered."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().filter(pk=invitation.pk).first()
        if invitation is None or by is None or invitation.user_id != by.pk:
            raise TournamentError(say("There is no such invitation for you."), "invitation")
        if is_event_account(by):
            raise TournamentConflict(
                say("An account an event created referees that event only."), "invitation"
            )
        staff, _ = Staff.objects.get_or_create(
            tournament_id=invitation.tournament_id, user=by, role=invitation.role
        )
        invitation.delete()
    return staff


def decline_invitation(invitation: Invitation, *, by) -> None:
    """The invited user turns the role down, or an organizer withdraws the offer."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("tournament")
            .filter(pk=invitation.pk)
            .first()
        )
        if invitation is None or not (
            (by is not None and invitation.user_id == by.pk)
            or allowed(by, "tournament.manage", invitation.tournament)
        ):
            raise TournamentError(say("There is no such invitation for you."), "invitation")
        invitation.delete()


def remove_staff(tournament: Tournament, user, *, by, role: str) -> None:
    """Take a role away; the last organizer stays."""
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        _drop_role(tournament, user, role)


def leave_role(staff: Staff, *, by) -> None:
    """The user gives up a role of their own; the last organizer stays."""
    with transaction.atomic():
        staff = Staff.objects.select_related("tournament").filter(pk=staff.pk).first()
        if staff is None or by is None or staff.user_id != by.pk:
            raise TournamentError(say("You hold no such role."), "role")
        Tournament.objects.select_for_update().get(pk=staff.tournament_id)
        _drop_role(staff.tournament, by, staff.role)


def _drop_role(tournament: Tournament, user, role: str) -> None:
    if (
        role == Staff.Role.ORGANIZER
        and Staff.objects.filter(tournament=tournament, role=role).count() == 1
        and Staff.objects.filter(tournament=tournament, role=role, user=user).exists()
    ):
        raise TournamentConflict(say("A tournament keeps at least one organizer."), "role")
    Staff.objects.filter(tournament=tournament, user=user, role=role).delete()
    if not Staff.objects.filter(tournament=tournament, user=user).exists():
        # Without a role here, the user referees none of the event's tables.
        matches = Match.objects.filter(round__stage__tournament=tournament, referee=user)
        games = Game.objects.filter(match__round__stage__tournament=tournament)
        Game.referees.through.objects.filter(user=user, game__in=games).delete()
        matches.update(referee=None)


def event_accounts_allowed(tournament: Tournament) -> int:
    """How many referee accounts the event may create: one per table of its largest round
    (before any round, per table its entrants would fill) and a few spares."""
    largest = (
        Match.objects.filter(round__stage__tournament=tournament, bye=False)
        .values("round")
        .annotate(tables=Count("pk"))
        .aggregate(most=Max("tables"))["most"]
    )
    if not largest:
        entrants = Entrant.objects.filter(tournament=tournament, withdrawn=False).count()
        largest = -(-entrants // max(1, tournament.sides_per_table))
    return largest + settings.EVENT_ACCOUNTS_SPARE


def create_referee(tournament: Tournament, *, by, username: str) -> tuple[Any, str]:
    """A new referee account for the tournament; returns it with its first password."""
    username = (username or "").strip()
    if (
        not username
        or len(username) > 150
        or not username.isascii()
        or not username.replace("_", "").replace(".", "").isalnum()
    ):
        raise TournamentError(
            say("A username is letters and digits (with . or _), like referee3."), "username"
        )
    users = get_user_model().objects
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        require(by, "tournament.manage", tournament)
        allowance = event_accounts_allowed(tournament)
        if EventAccount.objects.filter(tournament=tournament).count() >= allowance:
            raise TournamentConflict(
                say(
                    "This event has created {count} referee accounts, one per table and a "
                    "few spares; invite people with accounts of their own instead.",
                    count=allowance,
                ),
                "username",
            )
        if users.filter(username__iexact=username).exists():
            raise TournamentError(
                say("The username {username!r} is taken.", username=username), "username"
            )
        password = "-".join(secrets.token_urlsafe(4) for _ in range(3))
        user = users.create_user(username=username, password=password)
        Staff.objects.create(tournament=tournament, user=user, role=Staff.Role.REFEREE)
        EventAccount.objects.create(user=user, tournament=tournament, created_by=by)
    return user, password


def accounts_managed_here(tournament: Tournament, users=None) -> set[int]:
    """The ids of the accounts whose API token the event's organizers may set.

    Only referee accounts this event created, that hold no role or invitation in any
    other event, no organizer role, and no powers of their own (not staff of the site,
    not a superuser). ``users`` narrows the answer to those ids; three queries in all.
    """
    created = EventAccount.objects.filter(
        tournament=tournament, user__is_superuser=False, user__is_staff=False
    )
    if users is not None:
        created = created.filter(user_id__in=users)
    candidates = set(created.values_list("user_id", flat=True))
    if not candidates:
        return set()
    roles = Staff.objects.filter(user_id__in=candidates)
    taken = set(
        roles.filter(~Q(tournament=tournament) | Q(role=Staff.Role.ORGANIZER)).values_list(
            "user_id", flat=True
        )
    )
    taken |= set(
        Invitation.objects.filter(user_id__in=candidates)
        .exclude(tournament=tournament)
        .values_list("user_id", flat=True)
    )
    return candidates - taken


def credentials_managed_here(tournament: Tournament, user) -> bool:
    """Whether the event's organizers may set ``user``'s API token."""
    return user is not None and user.pk in accounts_managed_here(tournament, [user.pk])


def _not_managed_here() -> TournamentError:
    return TournamentError(
        say(
            "Only referee accounts this event created have their tokens set here; "
            "everyone else manages their own from their account page."
        ),
        "user",
    )


def _check_credentials_managed_here(tournament: Tournament, user) -> None:
    if not credentials_managed_here(tournament, user):
        raise _not_managed_here()


def issue_token(tournament: Tournament, user, *, by, rotate: bool = False) -> str:
    """An API token for a referee account this event created (a new one with ``rotate``)."""
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        _check_credentials_managed_here(tournament, user)
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
    return token.key


def revoke_token(tournament: Tournament, user, *, by) -> bool:
    """Delete the API token of a referee account this event created; True if there was one.

    The event that created an account may always stop its token, whatever roles other
    events gave it since (setting a token is another matter: credentials_managed_here)."""
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        created_here = EventAccount.objects.filter(
            tournament=tournament, user=user, user__is_superuser=False, user__is_staff=False
        )
        if user is None or not created_here.exists():
            raise _not_managed_here()
        deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def assign_referee(match: Match, referee, *, by) -> Match:
    """Make ``referee`` the referee of a table: staff of the event and a referee of its game."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update()
            .select_related("round__stage__tournament")
            .get(pk=match.pk)
        )
        tournament = match.round.stage.tournament
        require(by, "tournament.manage", tournament)
        if match.bye:
            raise TournamentError(say("A bye has no table to referee."), "match")
        if not Staff.objects.filter(tournament=tournament, user=referee).exists():
            # Only the event's own staff referee it: a role is given by an accepted
            # invitation or an account the event created, never by an assignment.
            raise TournamentError(
                say(
                    "{username} is not a referee or organizer of this tournament; "
                    "invite them first.",
                    username=referee.username,
                ),
                "referee",
            )
        previous = match.referee
        match.referee = referee
        match.save(update_fields=["referee"])
        if match.game_id:
            game = match.game
            if previous is not None and previous != referee:
                game.referees.remove(previous)
            game.referees.add(referee)
    return match


def assign_round_referees(round_: Round, assignments: Mapping[int, Any], *, by) -> list[Match]:
    """Set the referees of a round's tables in one go, all or nothing.

    ``assignments`` maps a table number to its referee, or to None to leave the table
    without one. Every referee must already be the event's staff; returns the tables
    whose referee changed.
    """
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_.pk)
        )
        tournament = round_.stage.tournament
        require(by, "tournament.manage", tournament)
        tables = {
            match.table_number: match
            for match in Match.objects.select_for_update().filter(
                round=round_, table_number__in=list(assignments)
            )
        }
        missing = sorted(set(assignments) - set(tables))
        if missing:
            raise TournamentError(
                say(
                    "Round {number} has no table {tables}.",
                    number=round_.number,
                    tables=", ".join(map(str, missing)),
                ),
                "assignments",
            )
        byes = sorted(number for number in assignments if tables[number].bye)
        if byes:
            raise TournamentError(
                say(
                    "A bye has no table to referee (table {tables}).",
                    tables=", ".join(map(str, byes)),
                ),
                "assignments",
            )
        wanted = {referee.pk: referee for referee in assignments.values() if referee is not None}
        staff = set(
            Staff.objects.filter(tournament=tournament, user_id__in=list(wanted)).values_list(
                "user_id", flat=True
            )
        )
        outsiders = sorted(wanted[pk].username for pk in set(wanted) - staff)
        if outsiders:
            # Only the event's own staff referee it, as for a single table.
            raise TournamentError(
                say(
                    "{username} is not a referee or organizer of this tournament; "
                    "invite them first.",
                    username=", ".join(outsiders),
                ),
                "referee",
            )
        changed = [
            match
            for number, match in sorted(tables.items())
            if match.referee_id != (assignments[number].pk if assignments[number] else None)
        ]
        referees = Game.referees.through
        replaced = Q()
        for match in changed:
            if match.game_id and match.referee_id is not None:
                replaced |= Q(game_id=match.game_id, user_id=match.referee_id)
            match.referee = assignments[match.table_number]
        if replaced:
            referees.objects.filter(replaced).delete()
        Match.objects.bulk_update(changed, ["referee"])
        referees.objects.bulk_create(
            [
                referees(game_id=match.game_id, user_id=match.referee.pk)
                for match in changed
                if match.game_id and match.referee is not None
            ],
            ignore_conflicts=True,
        )
    return changed

"""Who may read and run tournaments, and what organizers may do to their games."""

from accounts.permissions import grants, is_signed_in
from domain.errors import NON_FIELD, Conflict
from domain.say import say
from tournaments.models import EventAccount, Staff, Tournament


def role_in(user, tournament: Tournament | None, *roles: str) -> bool:
    """Whether ``user`` holds one of ``roles`` in ``tournament``."""
    if not is_signed_in(user) or tournament is None:
        return False
    return Staff.objects.filter(
        tournament=tournament, user=user, role__in=roles or Staff.Role.values
    ).exists()


def tournament_of_game(game) -> Tournament | None:
    """The tournament a game is played in, or None for a game outside any."""
    return Tournament.objects.filter(stages__rounds__matches__game=game).first()


def is_event_account(user) -> bool:
    """Whether ``user`` is a login an event created for its referees: it referees that
    event and nothing more (no entries, claims, events, ladders, series or invitations)."""
    return (
        user is not None
        and getattr(user, "pk", None) is not None
        and EventAccount.objects.filter(user_id=user.pk).exists()
    )


def refuse_event_account(user, field: str = NON_FIELD) -> None:
    """Refuse, in the user's words, what only a person's own account may do (enter an
    event, claim a player): an event-created login referees that event and nothing more."""
    if is_event_account(user):
        raise Conflict(
            say(
                "This account was created by an event for its referees: it referees that "
                "event only. Sign in with your own account."
            ),
            field,
        )


def acts_for_themselves(user) -> bool:
    """A signed-in person with an account of their own, not one an event created."""
    return is_signed_in(user) and not is_event_account(user)


def is_organizer(user, tournament: Tournament | None) -> bool:
    return role_in(user, tournament, Staff.Role.ORGANIZER)


@grants("tournament.view")
def public_or_staff(user, tournament) -> bool:
    return tournament.public or role_in(user, tournament)


@grants("tournament.see_drafts")
def staff_see_drafts(user, tournament) -> bool:
    """A round in draft, its tables and games are the event's staff's until published."""
    return role_in(user, tournament)


@grants("tournament.manage")
def organizer_manages(user, tournament) -> bool:
    return is_organizer(user, tournament)


@grants("entrant.check_in")
@grants("entrant.withdraw")
def organizer_manages_entrants(user, entrant) -> bool:
    return is_organizer(user, entrant.tournament)


@grants("tournament.create")
def people_create(user, _obj) -> bool:
    return acts_for_themselves(user)


@grants("tournament.enter")
def people_enter_what_they_see(user, tournament) -> bool:
    """A player enters an event they can see, with an account of their own."""
    return acts_for_themselves(user) and public_or_staff(user, tournament)


@grants("player.claim")
def people_claim(user, _player) -> bool:
    """Linking an account to a player is for a person's own account."""
    return acts_for_themselves(user)


@grants("game.view")
def staff_see_their_tournaments_games(user, game) -> bool:
    return is_signed_in(user) and role_in(user, tournament_of_game(game))


@grants("game.score")
def organizer_scores(user, game) -> bool:
    return is_signed_in(user) and is_organizer(user, tournament_of_game(game))


@grants("game.manage")
def organizer_manages_games(user, game) -> bool:
    return is_signed_in(user) and is_organizer(user, tournament_of_game(game))

"""Who may read and run tournaments, and what organizers may do to their games."""

from accounts.permissions import grants, is_signed_in
from tournaments.models import Staff, Tournament


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
def signed_in_creates(user, _obj) -> bool:
    return is_signed_in(user)


@grants("game.view")
def staff_see_their_tournaments_games(user, game) -> bool:
    return is_signed_in(user) and role_in(user, tournament_of_game(game))


@grants("game.score")
def organizer_scores(user, game) -> bool:
    return is_signed_in(user) and is_organizer(user, tournament_of_game(game))


@grants("game.manage")
def organizer_manages_games(user, game) -> bool:
    return is_signed_in(user) and is_organizer(user, tournament_of_game(game))

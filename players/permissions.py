"""Who may look after a player, and what players may do to their own entries."""

from django.db.models import Q

from accounts.permissions import grants, is_signed_in
from tournaments.models import Entrant, Staff


def entries_of(player_id: int):
    """The entrants a player is part of, alone or in a team."""
    return Entrant.objects.filter(Q(player_id=player_id) | Q(partner_id=player_id))


def organizes_events_of(user, player) -> bool:
    """Whether ``user`` organizes an event ``player`` entered."""
    if not is_signed_in(user) or player is None:
        return False
    return Staff.objects.filter(
        user=user,
        role=Staff.Role.ORGANIZER,
        tournament__entrants__in=entries_of(player.pk),
    ).exists()


@grants("player.manage")
def organizers_of_their_events(user, player) -> bool:
    """Give a claim code, merge: the organizers of an event the player entered."""
    return organizes_events_of(user, player)


def own_entrant(user, entrant) -> bool:
    """Whether the signed-in ``user`` is the player (or the partner) of ``entrant``."""
    if not is_signed_in(user):
        return False
    player = getattr(user, "player", None)
    return player is not None and player.pk in (entrant.player_id, entrant.partner_id)


@grants("entrant.withdraw")
def players_withdraw_themselves(user, entrant) -> bool:
    return own_entrant(user, entrant)


@grants("entrant.check_in")
def players_check_in_during_the_window(user, entrant) -> bool:
    from players.registration import check_in_open

    return own_entrant(user, entrant) and check_in_open(entrant.tournament)

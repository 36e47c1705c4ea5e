"""Who may look after a player, and what players may do to their own entries.

A player linked to an account is that person's: only they (and superusers) act on who
the player is. An unlinked player is looked after by whoever organizes every event they
entered; an organizer of just one of them (anyone may make an event and enter any name
in it) gets nothing over the player."""

from accounts.permissions import grants, is_signed_in
from players.registration import check_in_open
from players.selectors import events_of
from tournaments.models import Staff


def organizes_every_event_of(user, player) -> bool:
    """Whether ``player`` entered at least one event and ``user`` organizes every one of
    them: a player who also played elsewhere belongs to no single organizer."""
    if not is_signed_in(user) or player is None:
        return False
    events = events_of(player.pk)
    return bool(events) and organizes_all(user, events)


def organizes_all(user, events: set[int]) -> bool:
    """Whether ``user`` is an organizer of each of ``events``."""
    organized = Staff.objects.filter(
        user=user, role=Staff.Role.ORGANIZER, tournament_id__in=events
    ).values_list("tournament_id", flat=True)
    return set(organized) == set(events)


@grants("player.manage")
def the_account_holder(user, player) -> bool:
    """A player linked to an account is looked after by that account alone."""
    return is_signed_in(user) and player is not None and player.user_id == user.pk


@grants("player.claim_code")
@grants("player.merge")
def the_organizers_of_every_event_of_an_unlinked_player(user, player) -> bool:
    """Give a claim code, merge: only for a player no account holds, and only by an
    organizer of every event they entered (entering them in one's own event gives
    nothing over the player)."""
    return player is not None and player.user_id is None and organizes_every_event_of(user, player)


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
    return own_entrant(user, entrant) and check_in_open(entrant.tournament)

"""Who may run series and ladder sessions, and act for a player."""

from accounts.permissions import grants, is_signed_in
from tournaments.permissions import acts_for_themselves


@grants("series.create")
@grants("ladder.create")
def people_create(user, _obj) -> bool:
    """Anyone signed in with an account of their own (not one an event created)."""
    return acts_for_themselves(user)


@grants("series.manage")
@grants("ladder.manage")
def creator_manages(user, thing) -> bool:
    return is_signed_in(user) and thing is not None and thing.created_by_id == user.pk


@grants("series.view")
@grants("ladder.view")
def public_or_creator(user, thing) -> bool:
    return thing.public or creator_manages(user, thing)


@grants("ladder.play_as")
def own_player(user, player) -> bool:
    """A signed-in user acts for the player their account is linked to."""
    return is_signed_in(user) and player is not None and player.user_id == user.pk

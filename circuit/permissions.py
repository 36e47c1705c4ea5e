"""Who may run series and ladder sessions, and act for a player."""

from accounts.permissions import grants, is_signed_in


@grants("series.create")
@grants("ladder.create")
def signed_in_creates(user, _obj) -> bool:
    return is_signed_in(user)


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

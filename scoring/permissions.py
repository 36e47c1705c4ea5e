"""Who may read and score games (registered with accounts.permissions)."""

from accounts.permissions import grants, is_signed_in


def is_referee(user, game) -> bool:
    """Whether ``user`` is one of the game's referees."""
    if not is_signed_in(user) or game is None:
        return False
    return game.referees.filter(pk=user.pk).exists()


def is_owner(user, game) -> bool:
    """Whether ``user`` opened this game (the owner of a game outside any tournament)."""
    return is_signed_in(user) and game is not None and game.created_by_id == user.pk


@grants("game.view")
def public_or_involved(user, game) -> bool:
    # A held game is not public yet, whatever its flag says; whoever holds it widens this
    # to its own staff with a rule of its own.
    return (game.public and not game.held) or is_owner(user, game) or is_referee(user, game)


@grants("game.score")
def referee_scores(user, game) -> bool:
    return is_referee(user, game)


@grants("game.manage")
def owner_manages(user, game) -> bool:
    return is_owner(user, game)


@grants("game.create")
def signed_in_creates(user, _obj) -> bool:
    return is_signed_in(user)

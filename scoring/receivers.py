"""What the scoring pages keep in the cache, and how a change of a game clears it."""

from django.core.cache import cache
from django.dispatch import receiver

from scoring.signals import game_changed


def live_key(game_id: int) -> str:
    """Where the revision a game's public page last showed is kept, for its pollers."""
    return f"live:game:{game_id}"


@receiver(game_changed, dispatch_uid="scoring.forget_live_game")
def forget_live_game(sender, game_id: int, **kwargs) -> None:
    """The game changed (its transaction committed): its pollers ask the database again."""
    cache.delete(live_key(game_id))

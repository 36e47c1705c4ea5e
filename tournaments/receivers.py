"""How tournaments learn that a game changed: standings and brackets follow."""

from django.dispatch import receiver

from scoring.signals import game_changed
from tournaments.models import Match


@receiver(game_changed, dispatch_uid="tournaments.game_changed")
def follow_game(sender, game_id: int, change: str, followed: bool = True, **kwargs) -> None:
    """Refresh the standings of the game's tournament and move bracket winners on."""
    if not followed:
        return  # a game outside any tournament: nothing to follow, nothing to look up
    match = (
        Match.objects.filter(game_id=game_id)
        .select_related("round__stage")
        .only("id", "round__stage__tournament_id", "round__stage__format")
        .first()
    )
    if match is None:
        return
    from tournaments.services import advance_bracket
    from tournaments.tasks import request_recompute

    advance_bracket(match)
    request_recompute(match.round.stage.tournament_id)

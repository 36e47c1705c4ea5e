"""How tournaments learn that a game changed: seat results, standings and brackets follow."""

from django.dispatch import receiver

from scoring.models import Game
from scoring.signals import game_changed, game_saved
from tournaments.models import Match

# While a game is being played its seats carry no result, and recording a hand or
# in-play points cannot change that unless the game finishes.
PLAYING_CHANGES = frozenset({"hand_recorded", "event_added", "created", "referee_added"})


@receiver(game_saved, dispatch_uid="tournaments.game_saved")
def keep_seat_results(sender, game: Game, change: str, **kwargs) -> None:
    """Keep the finished game's result on its match seats, in the game's own transaction."""
    if change in PLAYING_CHANGES and game.status != Game.Status.FINISHED:
        return
    from tournaments.services import record_seat_results

    record_seat_results(game)


@receiver(game_changed, dispatch_uid="tournaments.game_changed")
def follow_game(sender, game_id: int, change: str, followed: bool = True, **kwargs) -> None:
    """Refresh the standings of the game's tournament and move bracket winners on."""
    if not followed:
        return  # a game outside any tournament: nothing to follow, nothing to look up
    if change == "created":
        # A new table has no result, and its round is a draft the standings leave out
        # (a bracket's next table is seated by the game that finished): nothing to do.
        return
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

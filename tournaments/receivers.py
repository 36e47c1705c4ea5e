"""How tournaments learn that a game changed: seat results, standings and brackets follow."""

from django.dispatch import receiver

from jobs import runner
from scoring.models import Game
from scoring.signals import game_changed, game_saved
from tournaments.models import Match
from tournaments.read import live
from tournaments.services import record_seat_results
from tournaments.stage_facts import is_bracket

# While a game is being played its seats carry no result, and recording a hand or
# in-play points cannot change that unless the game finishes.
PLAYING_CHANGES = frozenset({"hand_recorded", "event_added", "created", "leader_set", "redeal"})


@receiver(game_saved, dispatch_uid="tournaments.game_saved")
def keep_seat_results(sender, game: Game, change: str, **kwargs) -> None:
    """Keep the finished game's result on its match seats, in the game's own transaction."""
    if change in PLAYING_CHANGES and game.status != Game.Status.FINISHED:
        return
    record_seat_results(game)


def can_move_standings(change: str, status: str | None, include_live: bool) -> bool:
    """Whether a change of a game may change its tournament's standings: a finished game,
    a correction, a void, an undone event or a reopened game may; a hand or in-play
    points of a game still being played may not, unless the tournament counts live games."""
    return (
        include_live
        or change not in PLAYING_CHANGES
        or status in (None, Game.Status.FINISHED)  # a sender that does not say: assume so
    )


@receiver(game_changed, dispatch_uid="tournaments.game_changed")
def follow_game(
    sender, game_id: int, change: str, followed: bool = True, status: str | None = None, **kwargs
) -> None:
    """Tell the game's table to its pollers, and refresh the standings and move bracket
    winners on when the change can move them."""
    if not followed:
        return  # a game outside any tournament: nothing to follow, nothing to look up
    if change == "created":
        # A new table has no result, and its round is a draft the standings leave out
        # (a bracket's next table is seated by the game that finished): nothing to do.
        return
    match = (
        Match.objects.filter(game_id=game_id)
        .select_related("round__stage__tournament")
        .only(
            "id",
            "slot",
            "round__number",
            "round__stage__order",
            "round__stage__format",
            "round__stage__tournament__slug",
            "round__stage__tournament__include_live",
        )
        .first()
    )
    if match is None:
        return
    stage = match.round.stage
    live.table_changed(stage.tournament.slug, stage.order, match.round.number)
    if not can_move_standings(change, status, stage.tournament.include_live):
        return
    if match.slot and is_bracket(stage):
        # In a job after the commit: a pairing error never fails the referee's hand.
        runner.request("bracket", match.pk)
    runner.request("standings", stage.tournament_id)

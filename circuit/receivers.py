"""How series, ratings and ladders hear of changes: scoring's ``game_changed`` (after the
game's commit) and tournaments' ``standings_rewritten`` (after a snapshot changed)."""

from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver

from circuit.models import LadderTable, Rating, RatingChange, SeriesEvent
from circuit.services.ratings import note_change, rerate_games_of
from jobs import runner
from players.signals import player_merging
from scoring.signals import game_changed
from tournaments.models import Entrant
from tournaments.signals import standings_rewritten

# Changes that leave a game being played as it was for ratings: a hand or in-play points
# of a game still in progress, its creation, who leads, a redeal, when time is called.
PLAYING_CHANGES = frozenset(
    {"hand_recorded", "event_added", "created", "leader_set", "redeal", "time_limit"}
)


@receiver(game_changed, dispatch_uid="circuit.game_changed")
def follow_game(
    sender, game_id: int, change: str, followed: bool = True, status: str | None = None, **kwargs
) -> None:
    """Queue the ratings (and the game's ladder session) when a result may have moved.

    Runs after the referee's commit; it writes one bookkeeping row and hands the work to
    a coalesced task, so the referee's request never waits for the ratings, and a broker
    that is down only delays them (the beat sweep queues them later)."""
    if not followed:
        return  # a game nobody holds is never rated
    if change in PLAYING_CHANGES and status != "finished":
        return
    note_change(game_id)
    runner.request("ratings")
    session_id = (
        LadderTable.objects.filter(game_id=game_id).values_list("session_id", flat=True).first()
    )
    if session_id is not None:
        runner.request("ladder", session_id)


@receiver(standings_rewritten, dispatch_uid="circuit.standings_rewritten")
def follow_standings(sender, tournament_id: int, **kwargs) -> None:
    """Queue the series standings when an event of a series has new standings."""
    series_id = (
        SeriesEvent.objects.filter(tournament_id=tournament_id)
        .values_list("series_id", flat=True)
        .first()
    )
    if series_id is not None:
        runner.request("series", series_id)


@receiver(player_merging, dispatch_uid="circuit.player_merging")
def rerate_merged_players(sender, kept, removed, **kwargs) -> None:
    """Ratings are worked out from games: the two players' are dropped inside the merge
    and every pool is rated again from the kept player's first game once it commits."""
    players = [kept.pk, removed.pk]
    RatingChange.objects.filter(player_id__in=players).delete()
    Rating.objects.filter(player_id__in=players).delete()
    kept_id = kept.pk
    transaction.on_commit(lambda: rerate_games_of([kept_id]))


@receiver(player_merging, dispatch_uid="circuit.player_merging.series")
def restand_merged_players(sender, kept, removed, **kwargs) -> None:
    """Series standings hold players by number: every series with an event of either
    player is worked out again once the merge commits, so the kept player has one line
    with every event and the removed one none."""
    players = [kept.pk, removed.pk]
    entries = Entrant.objects.filter(Q(player_id__in=players) | Q(partner_id__in=players))
    series = (
        SeriesEvent.objects.filter(tournament_id__in=entries.values("tournament_id"))
        .values_list("series_id", flat=True)
        .distinct()
    )
    for series_id in sorted(series):
        runner.request_on_commit("series", series_id)

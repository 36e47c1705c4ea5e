"""Reads shared by the circuit's pages and API: leaderboards, a player's ratings."""

from django.conf import settings
from django.db.models import QuerySet

from circuit.models import Pool, Rating, RatingChange


def min_games_default() -> int:
    return getattr(settings, "RATINGS_MIN_GAMES", 5)


def leaderboard(pool: str, *, min_games: int) -> QuerySet[Rating]:
    """The pool's ratings with at least ``min_games`` games, best ordinal first."""
    return (
        Rating.objects.filter(pool=pool, games__gte=min_games)
        .select_related("player")
        .order_by("-ordinal", "-games", "player__display_name", "pk")
    )


def player_ratings(player_id: int) -> list[dict]:
    """A player's rating in each pool they have played, with its history oldest first.

    Only public games are rated (circuit.consent); a game whose event has just turned
    private, not yet rated again, is already left out of the history everyone sees."""
    ratings = {r.pool: r for r in Rating.objects.filter(player_id=player_id)}
    history: dict[str, list] = {pool: [] for pool in ratings}
    for pool, game_id, at, ordinal, games in (
        RatingChange.objects.filter(player_id=player_id, game__public=True, game__held=False)
        .order_by("pool", "finished_at", "game_id")
        .values_list("pool", "game_id", "finished_at", "ordinal", "games")
    ):
        history.setdefault(pool, []).append(
            {"game": game_id, "finished_at": at, "ordinal": ordinal, "games": games}
        )
    return [
        {"pool": pool, "label": Pool(pool).label, "rating": ratings[pool], "history": history[pool]}
        for pool in Pool.values
        if pool in ratings
    ]

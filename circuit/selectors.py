"""Reads shared by the circuit's pages and API: leaderboards, a player's ratings, the
series and ladder sessions a user may see."""

from django.conf import settings
from django.db.models import Q, QuerySet

from circuit.models import LadderSession, Pool, Rating, RatingChange, Series


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


def visible_series(user) -> QuerySet[Series]:
    """The series ``user`` may see: the public ones and their own (all, for a superuser)."""
    rows = Series.objects.all()
    if getattr(user, "is_superuser", False):
        return rows
    if user.is_authenticated:
        return rows.filter(Q(public=True) | Q(created_by=user))
    return rows.filter(public=True)


def visible_ladders(user) -> QuerySet[LadderSession]:
    """The ladder sessions ``user`` may see: the public ones and their own (all, for a
    superuser)."""
    rows = LadderSession.objects.all()
    if getattr(user, "is_superuser", False):
        return rows
    mine = Q(created_by=user) if user.is_authenticated else Q(pk=None)
    return rows.filter(Q(public=True) | mine)

"""A tournament's pages show every time in the tournament's own time zone.

The zone is chosen from the page's address: a tournament's pages (``/t/<slug>/…``) and
the pages of a game played at one of its tables. The API keeps UTC (its times carry
their offset anyway)."""

import contextlib
import zoneinfo

from django.core.cache import cache
from django.utils import timezone

from scoring.models import Game
from tournaments.models import Tournament

GAME_PAGES = {
    "game-page",
    "game-sheet",
    "score-game",
    "score-preview",
    "score-hand",
    "score-event",
    "score-undo",
    "score-correct",
}

# The live parts show no clock time (an ISO time with its offset, "… ago"), and an
# unchanged poll must cost one cache read: they are answered without looking the zone up.
LIVE_PARTS = {"tournament-live", "tournament-events"}


# Live polls make no query when nothing changed: the zone is read from the cache, and a
# game's tournament never changes.
ZONE_KEY = "tz:tournament:{slug}"
GAME_KEY = "tz:game:{pk}"
KEEP = 6 * 3600


def zone_of_tournament(slug: str) -> str | None:
    key = ZONE_KEY.format(slug=slug)
    zone = cache.get(key)
    if zone is None:
        zone = Tournament.objects.filter(slug=slug).values_list("time_zone", flat=True).first()
        if zone is not None:  # only what exists is kept: a slug may be taken later
            cache.set(key, zone, KEEP)
    return zone


def forget_time_zone(slug: str) -> None:
    """After a tournament's time zone changed: its pages read it afresh."""
    cache.delete(ZONE_KEY.format(slug=slug))


def _tournament_of_game(pk) -> str | None:
    """The slug of the event a game is played in; None for a game outside any event
    (kept as "": a game is given its table when it is made, in the same transaction, so
    one that exists without a table never gets one) and for no such game (not kept)."""
    key = GAME_KEY.format(pk=pk)
    slug = cache.get(key)
    if slug is None:
        slug = (
            Tournament.objects.filter(stages__rounds__matches__game_id=pk)
            .values_list("slug", flat=True)
            .first()
        )
        if slug is None and Game.objects.filter(pk=pk).exists():
            slug = ""
        if slug is not None:
            cache.set(key, slug, KEEP)
    return slug or None


def _zone_of(match) -> str | None:
    if match is None:
        return None
    kwargs = match.kwargs
    if "slug" in kwargs and "tournaments" in match.func.__module__:
        return zone_of_tournament(kwargs["slug"])
    if match.url_name in GAME_PAGES and "pk" in kwargs:
        slug = _tournament_of_game(kwargs["pk"])
        return zone_of_tournament(slug) if slug else None
    return None


class TournamentTimeZoneMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith("/api/"):
            return None
        if request.resolver_match and request.resolver_match.url_name in LIVE_PARTS:
            return None
        zone = _zone_of(request.resolver_match)
        if zone and zone != "UTC":
            # A zone the services refused never reaches here; UTC then.
            with contextlib.suppress(zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.activate(zoneinfo.ZoneInfo(zone))
        return None

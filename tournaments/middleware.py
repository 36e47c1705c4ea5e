"""A tournament's pages show every time in the tournament's own time zone.

The zone is chosen from the page's address: a tournament's pages (``/t/<slug>/…``) and
the pages of a game played at one of its tables. The API keeps UTC (its times carry
their offset anyway)."""

import contextlib
import zoneinfo

from django.utils import timezone

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


def _zone_of(match) -> str | None:
    if match is None:
        return None
    kwargs = match.kwargs
    if "slug" in kwargs and match.app_name != "api" and "tournaments" in match.func.__module__:
        rows = Tournament.objects.filter(slug=kwargs["slug"])
    elif match.url_name in GAME_PAGES and "pk" in kwargs:
        rows = Tournament.objects.filter(stages__rounds__matches__game_id=kwargs["pk"])
    else:
        return None
    return rows.values_list("time_zone", flat=True).first()


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
        zone = _zone_of(request.resolver_match)
        if zone and zone != "UTC":
            # A zone the services refused never reaches here; UTC then.
            with contextlib.suppress(zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.activate(zoneinfo.ZoneInfo(zone))
        return None

"""A timed game's clock on the scoring page: the time left until time is called, counted
down in the browser from the stored moment (static/round-clock.js)."""

from django import template
from django.utils import timezone

register = template.Library()


def clock_text(seconds: int) -> str:
    """``12:05``, or ``1:02:05`` past an hour."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


@register.simple_tag
def time_limit(game) -> dict | None:
    """What the page shows of the game's time limit; None for an untimed or finished game."""
    if game.time_limit_at is None or game.status == "finished":
        return None
    left = max(0, int((game.time_limit_at - timezone.now()).total_seconds()))
    return {
        "deadline": game.time_limit_at.isoformat(),
        "left": left,
        "text": clock_text(left),
        "called": left == 0 or game.time_called_hand is not None,
        "hands_after": game.hands_after_time,
        "play_on_tie": bool((game.ruleset or {}).get("play_on_tie_at_target")),
    }

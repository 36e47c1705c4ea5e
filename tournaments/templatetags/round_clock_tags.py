"""The round clock on the tournament page and the hall screen (tournaments/round_clock.py);
the browser counts it down from the stored deadline (static/round-clock.js)."""

from django import template

from scoring.templatetags.time_limit import clock_text
from tournaments import round_clock

register = template.Library()


@register.simple_tag
def round_clock_of(round_) -> dict | None:
    """What a page shows of the round's clock; None for no round, an untimed one, or one
    whose tables are all finished."""
    if round_ is None or round_.status != "published":
        return None
    state = round_clock.state_of(round_)
    if state.state == "off":
        return None
    return {
        "state": state.state,
        "deadline": state.deadline.isoformat() if state.deadline else "",
        "text": clock_text(state.seconds_left or 0),
        "hands_after": state.hands_after_time,
        "number": round_.number,
    }

"""The round clock on the tournament page and the hall screen (tournaments/round_clock.py);
the browser counts it down from the stored deadline (static/round-clock.js)."""

from django import template

from scoring.services import HANDS_AFTER_TIME_RANGE
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
    if state.state == "off" or not round_clock.in_play(round_):
        return None
    return {
        "state": state.state,
        "deadline": state.deadline.isoformat() if state.deadline else "",
        "text": clock_text(state.seconds_left or 0),
        "hands_after": state.hands_after_time,
        "number": round_.number,
    }


@register.simple_tag
def stage_clock_of(stage) -> dict:
    """The stage's time limit, and the choices of hands after the call, for its form."""
    settings = round_clock.settings_of(stage)
    return {
        "minutes": settings.minutes,
        "hands_after_time": settings.hands_after_time,
        "starts": settings.starts,
        "choices": range(HANDS_AFTER_TIME_RANGE[0], HANDS_AFTER_TIME_RANGE[1] + 1),
    }

"""Template helpers shared by every page (registered as a builtin in settings)."""

from django import template
from django.utils import timezone

from domain.i18n import told as say_it
from domain.say import Message
from domain.times import zoned_text
from scoring.models import SEAT_NAMES
from scoring.rulesets import PRESETS

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping[key]`` in a template, or None when absent."""
    if mapping is None:
        return None
    return mapping.get(key)


@register.filter
def signed(value):
    """A number with its sign: +5, -10, 0."""
    if value in (None, ""):
        return ""
    return f"{value:+d}" if value else "0"


@register.filter
def seat_letter(index):
    """0 -> "A", 1 -> "B" …: the seat names of a table in the order of play."""
    try:
        return SEAT_NAMES[int(index)]
    except (ValueError, IndexError, TypeError):
        return ""


@register.filter
def told(flag):
    """A stored pairing flag (or any message) in the active language."""
    if isinstance(flag, dict):
        template = flag.get("template")
        if template:
            counted = (flag.get("plural"), flag.get("count", 1)) if flag.get("plural") else ()
            return say_it(Message(template, *counted, **(flag.get("params") or {})))
        return say_it(flag.get("message", ""))
    return say_it(flag)


@register.filter
def preset_label(key):
    """A rule-set preset's name ("Cutthroat", "DCS Cut-Throat") from its key; the key
    itself when it names no preset."""
    preset = PRESETS.get(key)
    return preset.label if preset is not None else key


@register.filter
def zoned(moment) -> str:
    """``moment`` on the page's clock (the event's zone on an event's pages and its games',
    else the site's), in the one format times show in, the zone named:
    ``2026-11-24 18:00 (America/Puerto_Rico)``."""
    return zoned_text(moment, timezone.get_current_timezone())

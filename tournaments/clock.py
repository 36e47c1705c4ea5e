"""Times in the tournament's own time zone: what organizers type and read.

Datetimes are stored in UTC; an event's pages show them, and its forms read them, in
``Tournament.time_zone`` (an IANA name, checked when it is set)."""

import zoneinfo
from datetime import datetime

from django.utils import timezone

LOCAL_FORMAT = "%Y-%m-%d %H:%M"
# What a datetime-local input sends, and what an organizer may type instead.
READ_FORMATS = ("%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S")


def zone(tournament) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(tournament.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):  # pragma: no cover - checked on save
        return zoneinfo.ZoneInfo("UTC")


def local(moment: datetime | None, tournament) -> datetime | None:
    """``moment`` on the event's clock."""
    return timezone.localtime(moment, zone(tournament)) if moment else None


def local_text(moment: datetime | None, tournament) -> str:
    """``2026-11-24 18:00 (America/Puerto_Rico)``; empty for no time."""
    if moment is None:
        return ""
    return f"{local(moment, tournament).strftime(LOCAL_FORMAT)} ({zone(tournament).key})"


def input_value(moment: datetime | None, tournament) -> str:
    """The value of a datetime-local input showing ``moment`` on the event's clock."""
    return local(moment, tournament).strftime("%Y-%m-%dT%H:%M") if moment else ""


def read_local(text: str, tournament) -> datetime | None:
    """A time typed on the event's clock, as an aware datetime; None for a blank; raises
    ValueError for anything else."""
    text = (text or "").strip()
    if not text:
        return None
    if len(text) > 32:
        raise ValueError(text)
    for layout in READ_FORMATS:
        try:
            naive = datetime.strptime(text, layout)
        except ValueError:
            continue
        return naive.replace(tzinfo=zone(tournament))
    raise ValueError(text)

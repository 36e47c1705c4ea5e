"""The one way a page writes a moment: on a named clock, with the zone said
(``2026-11-24 18:00 (America/Puerto_Rico)``), so nobody reads a time in the wrong zone."""

from datetime import datetime, tzinfo

LOCAL_FORMAT = "%Y-%m-%d %H:%M"


def zoned_text(moment: datetime | None, zone: tzinfo) -> str:
    """``moment`` on ``zone``'s clock, the zone named; empty for no time."""
    if moment is None:
        return ""
    name = getattr(zone, "key", None) or str(zone)
    return f"{moment.astimezone(zone).strftime(LOCAL_FORMAT)} ({name})"

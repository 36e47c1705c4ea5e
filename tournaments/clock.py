"""Times in the tournament's own time zone: what organizers type and read.

Datetimes are stored in UTC; an event's pages show them, and its forms read them, in
``Tournament.time_zone`` (an IANA name, checked when it is set)."""

import zoneinfo
from datetime import datetime
from functools import cache
from pathlib import Path

from django.utils import timezone
from django.utils.translation import gettext

from domain.times import zoned_text

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
    return zoned_text(moment, zone(tournament))


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


# Countries a language is most played in, for the time-zone menu's first group when the
# browser names no region (es-ES, en-US do).
LANGUAGE_COUNTRIES = {
    "es": ("PR", "ES", "MX", "DO", "CU", "VE", "CO", "PA", "US"),
    "en": ("US", "PR", "GB", "CA", "JM", "TT", "BS", "BB"),
}


@cache
def zones_by_country() -> dict[str, tuple[str, ...]]:
    """The tz database's own table of zones by country (``zone.tab``): canonical names
    only, never the old aliases (``US/Eastern``, ``Etc/GMT+4``) kept for compatibility."""
    table: dict[str, list[str]] = {}
    for folder in zoneinfo.TZPATH:
        path = Path(folder) / "zone.tab"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or not line.strip():
                continue
            country, _coordinates, name, *_ = line.split("\t")
            table.setdefault(country, []).append(name)
        break
    return {country: tuple(names) for country, names in table.items()}


@cache
def canonical_zones() -> tuple[str, ...]:
    """Every zone an organizer may choose, by its canonical name, with UTC."""
    named = {name for names in zones_by_country().values() for name in names}
    if not named:  # no table on this system: the names, less the alias families
        legacy = ("Etc/", "SystemV/", "US/", "Canada/", "Mexico/", "Brazil/", "Chile/")
        named = {
            name
            for name in zoneinfo.available_timezones()
            if "/" in name and not name.startswith(legacy)
        }
    return tuple(sorted(named | {"UTC"}))


def country_of(name: str) -> str | None:
    """The country whose zone ``name`` is (None for UTC or an alias)."""
    for country, names in zones_by_country().items():
        if name in names:
            return country
    return None


def countries_near(*, zones=(), accept_language: str = "") -> list[str]:
    """The countries an event is likely in: those of the zones given (the event's own,
    the organizer's other events'), then the browser's region or its language's."""
    found = [country_of(name) for name in zones]
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip().replace("_", "-")
        if not tag:
            continue
        language, _, region = tag.partition("-")
        if len(region) == 2:
            found.append(region.upper())
        found.extend(LANGUAGE_COUNTRIES.get(language.lower(), ()))
    return list(dict.fromkeys(country for country in found if country))


def zone_choices(countries, current: str = "") -> list:
    """The time-zone menu: the zones of ``countries`` first, then every canonical zone
    (the event's own zone kept, even an old alias, so saving other settings keeps it)."""
    table = zones_by_country()
    near = list(dict.fromkeys(name for country in countries for name in table.get(country, ())))
    every = list(canonical_zones())
    if current and current not in every:
        every.insert(0, current)
    if not near:
        return [(name, name) for name in every]
    return [
        (gettext("Near you"), [(name, name) for name in near]),
        (gettext("Every zone"), [(name, name) for name in every]),
    ]

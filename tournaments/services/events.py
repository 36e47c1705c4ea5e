"""Creating a tournament and changing its settings."""

import math
import zoneinfo
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from accounts.permissions import require
from domain.say import say
from scoring.bounds import digits
from scoring.engine import ScoringError
from scoring.models import Game
from scoring.rulesets import PRESETS, get_ruleset
from tournaments.bounds import PLACEMENT_POINTS_RANGE, TABLE_SIZE_RANGE
from tournaments.entries import MAX_NAME
from tournaments.middleware import forget_time_zone
from tournaments.models import (
    DEFAULT_TIEBREAK_ORDER,
    Round,
    Staff,
    Tournament,
)
from tournaments.read.standings import TIEBREAKERS
from tournaments.services.common import (
    STATUS_ORDER,
    TournamentConflict,
    TournamentError,
    forget_live_parts,
)


def _unique_slug(name: str) -> str:
    base = slugify(name)[:70] or "tournament"
    slug, n = base, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def table_size_for(ruleset_key: str, table_size: int | None, overrides: dict) -> int:
    """The table size an event of the rule set plays at (its usual one if not given),
    refused with the field at fault where the rule set does not play it."""
    preset = PRESETS.get(ruleset_key)
    if preset is None:
        raise TournamentError(
            say("There is no rule set called {ruleset_key!r}.", ruleset_key=ruleset_key),
            "ruleset_key",
        )
    if table_size is None:
        table_size = preset.default_players
    try:
        get_ruleset(ruleset_key, players=table_size, overrides=overrides)
    except ScoringError as error:
        field = "table_size" if getattr(error, "field", "") in {"players", "seats"} else "overrides"
        raise TournamentError(str(error), field) from error
    return table_size


def check_tiebreaks(order: Sequence[str]) -> list[str]:
    """A tiebreak order: known tiebreakers, each once."""
    # A bracket's finish ranks a bracket first by itself: not a tiebreaker to choose.
    unknown = [key for key in order if key not in TIEBREAKERS]
    if unknown:
        known = ", ".join(TIEBREAKERS)
        raise TournamentError(
            say(
                "Unknown tiebreaker {names}; choose from {known}.",
                names=", ".join(unknown),
                known=known,
            ),
            "tiebreak_order",
        )
    if len(set(order)) != len(order):
        raise TournamentError(say("A tiebreaker is listed twice."), "tiebreak_order")
    return list(order)


def check_placement_points(table: Any) -> dict:
    """A placement table: per table size, points per placement, every number bounded."""
    field = "placement_points"
    if not isinstance(table, dict):
        raise TournamentError(
            say('Placement points are per table size: {"4": {"1": 3, "2": 1}}.'), field
        )
    low, high = PLACEMENT_POINTS_RANGE
    for size, places in table.items():
        sides = digits(str(size), TABLE_SIZE_RANGE)
        if sides is None:
            raise TournamentError(
                say(
                    "{value!r} is not a table size: placement points are given per table "
                    "of {low} to {high}.",
                    value=size,
                    low=TABLE_SIZE_RANGE[0],
                    high=TABLE_SIZE_RANGE[1],
                ),
                field,
            )
        if not isinstance(places, dict):
            raise TournamentError(
                say('Placement points are per table size: {"4": {"1": 3, "2": 1}}.'), field
            )
        for place, points in places.items():
            if digits(str(place), (1, sides)) is None:
                raise TournamentError(
                    say(
                        "At a table of {sides}, placements run from 1 to {sides}; got {value!r}.",
                        sides=sides,
                        value=place,
                    ),
                    field,
                )
            if not (
                isinstance(points, int | float)
                and not isinstance(points, bool)
                and math.isfinite(points)
                and low <= points <= high
            ):
                raise TournamentError(
                    say(
                        "Points for a placement are a number from {low} to {high}; got {value!r}.",
                        low=low,
                        high=high,
                        value=points,
                    ),
                    field,
                )
    return table


def create_tournament(
    *,
    by,
    name: str,
    ruleset_key: str,
    slug: str = "",
    overrides: dict | None = None,
    table_size: int | None = None,
    public: bool = True,
    time_zone: str = "UTC",
    tiebreak_order: Sequence[str] | None = None,
    placement_points: dict | None = None,
    bye_policy: str = Tournament.ByePolicy.WIN_AVERAGE,
    include_live: bool = False,
) -> Tournament:
    """Create a tournament from a preset; its creator becomes its organizer."""
    require(by, "tournament.create")
    name = _check_name(name)
    overrides = dict(overrides or {})
    table_size = table_size_for(ruleset_key, table_size, overrides)
    order = check_tiebreaks(tiebreak_order or DEFAULT_TIEBREAK_ORDER)
    check_placement_points(placement_points or {})
    check_time_zone(time_zone)
    with transaction.atomic():
        if slug and Tournament.objects.filter(slug=slug).exists():
            raise TournamentError(say("The address {slug!r} is taken.", slug=slug), "slug")
        tournament = Tournament.objects.create(
            name=name,
            slug=slug or _unique_slug(name),
            ruleset_key=ruleset_key,
            overrides=overrides,
            table_size=table_size,
            public=public,
            time_zone=time_zone,
            tiebreak_order=order,
            placement_points=placement_points or {},
            bye_policy=bye_policy,
            include_live=include_live,
            created_by=by,
        )
        Staff.objects.create(tournament=tournament, user=by, role=Staff.Role.ORGANIZER)
    return tournament


def _check_name(name: str) -> str:
    """The tournament's name, spaces tidied, as long as an entrant's at most."""
    name = " ".join((name or "").split())
    if not name:
        raise TournamentError(say("Give the tournament a name."), "name")
    if len(name) > MAX_NAME:
        raise TournamentError(
            say("Names are at most {MAX_NAME} characters.", MAX_NAME=MAX_NAME), "name"
        )
    return name


# Settings that decide the standings: fixed once the first game of the event has started.
SCORING_SETTINGS = frozenset({"tiebreak_order", "placement_points", "bye_policy"})


def play_started(tournament: Tournament) -> bool:
    """Whether any game of the tournament has started (a hand recorded or a result)."""
    return (
        Game.objects.filter(match__round__stage__tournament=tournament)
        .exclude(status=Game.Status.SCHEDULED)
        .exists()
    )


def check_time_zone(time_zone: str) -> None:
    """Refuse a time zone name the zone database does not know."""
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as error:
        raise TournamentError(
            say("Unknown time zone {time_zone!r}.", time_zone=time_zone), "time_zone"
        ) from error


def update_tournament(tournament: Tournament, *, by, **changes) -> Tournament:
    """Change a tournament's settings; rules and table size are fixed once play begins."""
    allowed = {
        "name",
        "public",
        "time_zone",
        "tiebreak_order",
        "placement_points",
        "bye_policy",
        "include_live",
        "ruleset_key",
        "overrides",
        "table_size",
        "status",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise TournamentError(
            say("Cannot change {names}.", names=", ".join(sorted(unknown))), sorted(unknown)[0]
        )
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        require(by, "tournament.manage", tournament)
        rules_change = {"ruleset_key", "overrides", "table_size"} & set(changes)
        if rules_change and Round.objects.filter(stage__tournament=tournament).exists():
            raise TournamentConflict(
                say("The rules cannot change once a round has been generated."),
                sorted(rules_change)[0],
            )
        settled = sorted(SCORING_SETTINGS & set(changes))
        if (
            settled
            and any(changes[key] != getattr(tournament, key) for key in settled)
            and play_started(tournament)
        ):
            raise TournamentConflict(
                say("How the standings count cannot change once the first game has started."),
                settled[0],
            )
        if "name" in changes:
            changes["name"] = _check_name(changes["name"])
        if "status" in changes:
            _check_status_move(tournament, changes["status"])
        if "tiebreak_order" in changes:
            changes["tiebreak_order"] = check_tiebreaks(changes["tiebreak_order"])
        if "time_zone" in changes:
            check_time_zone(changes["time_zone"])
        if "placement_points" in changes:
            check_placement_points(changes["placement_points"])
        if rules_change:
            key = changes.get("ruleset_key", tournament.ruleset_key)
            overrides = changes.get("overrides", tournament.overrides)
            changes["table_size"] = table_size_for(
                key, changes.get("table_size", tournament.table_size), overrides
            )
        for field, value in changes.items():
            setattr(tournament, field, value)
        tournament.save()
        if "time_zone" in changes:
            slug = tournament.slug
            transaction.on_commit(lambda: forget_time_zone(slug))
        if "public" in changes:
            Game.objects.filter(match__round__stage__tournament=tournament).update(
                public=tournament.public
            )
        # Who may see it, or what its live parts show, may have changed.
        forget_live_parts(tournament.pk)
    return tournament


def _check_status_move(tournament: Tournament, status: str) -> None:
    if status not in STATUS_ORDER:
        raise TournamentError(say("Unknown status {status!r}.", status=status), "status")
    if STATUS_ORDER.index(status) < STATUS_ORDER.index(tournament.status) and not (
        tournament.status == Tournament.Status.REGISTRATION and status == Tournament.Status.DRAFT
    ):
        raise TournamentConflict(
            say(
                "A tournament cannot go back from {status} to {status2}.",
                status=tournament.status,
                status2=status,
            ),
            "status",
        )

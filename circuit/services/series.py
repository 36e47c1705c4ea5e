"""Series: a template for the next event, the events made from it, their standings."""

from datetime import datetime, timedelta

import orjson
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.permissions import require
from circuit import series_standings as pure
from circuit.models import DEFAULT_SERIES_POINTS, Series, SeriesEvent, SeriesStandings
from circuit.services.common import CircuitError, bounded, clean_name, unique_slug
from domain.say import say
from jobs import runner
from players.models import EntryRequest, Player
from tournaments import services as events
from tournaments.models import Entrant, Stage, StandingsSnapshot, Tournament
from tournaments.pairing import get_engine
from tournaments.read.standings_store import SnapshotDocument
from tournaments.services import (
    TournamentError,
    check_placement_points,
    check_tiebreaks,
    check_time_zone,
    table_size_for,
)

SERIES_POINTS_RANGE = (-1000, 1000)
MOST_PLACES = 1000


def _check_series_points(table) -> dict:
    """Points per event placing: {"1": 25, "2": 18, ...}, placings 1 to 1,000."""
    field = "series_points"
    if not isinstance(table, dict) or not table:
        raise CircuitError(say('Series points are points per placing: {"1": 25, "2": 18}.'), field)
    clean = {}
    low, high = SERIES_POINTS_RANGE
    for place, points in table.items():
        number = bounded(place, 1, MOST_PLACES)
        if number is None:
            raise CircuitError(
                say("A placing is a whole number from 1 to {high}.", high=MOST_PLACES), field
            )
        if (
            isinstance(points, bool)
            or not isinstance(points, int | float)
            or not (low <= points <= high)
        ):
            raise CircuitError(
                say("Points for a placing are a number from {low} to {high}.", low=low, high=high),
                field,
            )
        clean[str(number)] = points
    return clean


def parse_points(text: str) -> dict:
    """A points table typed as a list ("25, 18, 15"): the first number for first place."""
    table = {}
    for index, part in enumerate(str(text or "").replace(";", ",").split(","), start=1):
        part = part.strip()
        if not part:
            continue
        try:
            table[str(index)] = float(part) if "." in part else int(part)
        except ValueError as error:
            raise CircuitError(
                say("{text!r} is not a number of points.", text=part[:40]), "series_points"
            ) from error
    return table


def _check_template(
    *, ruleset_key, overrides, table_size, stage_format, stage_settings, tiebreak_order,
    placement_points, time_zone,
) -> dict:  # fmt: skip
    """The event template checked as creating an event would check it."""
    overrides = dict(overrides or {})
    try:
        table_size = table_size_for(ruleset_key, table_size, overrides)
        order = check_tiebreaks(tiebreak_order or ["match_points", "point_differential"])
        check_placement_points(placement_points or {})
        check_time_zone(time_zone)
    except TournamentError as error:
        raise CircuitError(error.message, error.field) from error
    if stage_format not in Stage.Format.values:
        raise CircuitError(
            say(
                "Unknown format {format!r}; choose from {formats}.",
                format=stage_format,
                formats=", ".join(Stage.Format.values),
            ),
            "stage_format",
        )
    stage_settings = dict(stage_settings or {})
    teams = Tournament(ruleset_key=ruleset_key, table_size=table_size, overrides=overrides)
    try:
        get_engine(stage_format).validate_settings(stage_settings, table_size=teams.sides_per_table)
    except ValueError as error:
        raise CircuitError(str(error), "stage_settings") from error
    return {
        "ruleset_key": ruleset_key,
        "overrides": overrides,
        "table_size": table_size,
        "stage_format": stage_format,
        "stage_settings": stage_settings,
        "tiebreak_order": order,
        "placement_points": placement_points or {},
        "time_zone": time_zone,
    }


def create_series(
    *,
    by,
    name: str,
    ruleset_key: str,
    table_size: int | None = None,
    overrides: dict | None = None,
    stage_format: str = "swiss",
    stage_settings: dict | None = None,
    tiebreak_order: list[str] | None = None,
    placement_points: dict | None = None,
    time_zone: str = "UTC",
    series_points: dict | None = None,
    best_of: int | None = None,
    every_days: int | None = None,
    first_event_at: datetime | None = None,
    public: bool = True,
) -> Series:
    """Start a series from an event template; its creator organizes it."""
    require(by, "series.create")
    name = clean_name(name)
    if not name:
        raise CircuitError(say("Give the series a name."), "name")
    template = _check_template(
        ruleset_key=ruleset_key, overrides=overrides, table_size=table_size,
        stage_format=stage_format, stage_settings=stage_settings,
        tiebreak_order=tiebreak_order, placement_points=placement_points, time_zone=time_zone,
    )  # fmt: skip
    points = _check_series_points(DEFAULT_SERIES_POINTS if series_points is None else series_points)
    if best_of is not None and bounded(best_of, 1, 1000) is None:
        raise CircuitError(say("Best results counted: a number from 1 to 1,000."), "best_of")
    if every_days is not None and bounded(every_days, 1, 365) is None:
        raise CircuitError(say("Days between events: a number from 1 to 365."), "every_days")
    next_at = None
    if every_days:
        next_at = first_event_at or timezone.now()
    with transaction.atomic():
        return Series.objects.create(
            name=name,
            slug=unique_slug(Series, name, "series"),
            public=public,
            series_points=points,
            best_of=best_of,
            every_days=every_days,
            next_event_at=next_at,
            created_by=by,
            **template,
        )


def create_next_event(series: Series, *, by) -> Tournament:
    """Make the series' next event from its template, numbered after the last."""
    with transaction.atomic():
        series = Series.objects.select_for_update().get(pk=series.pk)
        require(by, "series.manage", series)
        number = (series.events.aggregate(n=Max("number"))["n"] or 0) + 1
        try:
            tournament = events.create_tournament(
                by=by,
                name=f"{series.name} #{number}",
                ruleset_key=series.ruleset_key,
                overrides=series.overrides,
                table_size=series.table_size,
                public=series.public,
                time_zone=series.time_zone,
                tiebreak_order=series.tiebreak_order,
                placement_points=series.placement_points,
            )
            events.add_stage(
                tournament,
                by=by,
                name=Stage.Format(series.stage_format).label,
                format=series.stage_format,
                settings=series.stage_settings,
            )
        except TournamentError as error:
            raise CircuitError(error.message, error.field) from error
        SeriesEvent.objects.create(series=series, tournament=tournament, number=number)
        runner.request_on_commit("series", series.pk)
    return tournament


def create_due_events(now: datetime | None = None) -> int:
    """Make the next event of every series whose scheduled time has come (beat)."""
    now = now or timezone.now()
    made = 0
    for series_id in Series.objects.filter(
        every_days__isnull=False, next_event_at__lte=now
    ).values_list("pk", flat=True):
        with transaction.atomic():
            series = Series.objects.select_for_update().get(pk=series_id)
            if series.next_event_at is None or series.next_event_at > now:
                continue  # another beat got here first
            if series.created_by is not None and series.created_by.is_active:
                create_next_event(series, by=series.created_by)
                made += 1
            step = timedelta(days=series.every_days)
            following = series.next_event_at + step
            while following <= now:
                following += step
            Series.objects.filter(pk=series.pk).update(next_event_at=following)
    return made


def series_results(series: Series) -> tuple[list[pure.Result], list[dict]]:
    """Every player's placing in every event of the series that has standings, and the
    events themselves (number, slug, name)."""
    series_events = list(series.events.select_related("tournament").order_by("number"))
    by_tournament = {event.tournament_id: event for event in series_events}
    snapshots = (
        StandingsSnapshot.objects.filter(tournament_id__in=by_tournament)
        .select_related("stage")
        .order_by("tournament_id", "stage__order")
    )
    stages: dict[int, list[list[pure.StageLine]]] = {}
    for snapshot in snapshots:
        rows = SnapshotDocument(snapshot.document).rows()
        stages.setdefault(snapshot.tournament_id, []).append(
            [pure.StageLine(row.entrant_id, row.rank) for row in rows if row.games_played]
        )
    members = {
        pk: (player, partner)
        for pk, player, partner in Entrant.objects.filter(
            tournament_id__in=by_tournament
        ).values_list("pk", "player_id", "partner_id")
    }
    # An entry made for someone before entry requests existed still holds their player:
    # until they accept it, its placing is not theirs (as their ratings leave it out).
    unanswered = set(
        EntryRequest.objects.filter(
            tournament_id__in=by_tournament,
            answer=EntryRequest.Answer.PENDING,
            stand_in__isnull=True,
        ).values_list("tournament_id", "player_id")
    )
    results = []
    for tournament_id, lines in stages.items():
        number = by_tournament[tournament_id].number
        for entrant_id, place in pure.event_placings(lines).items():
            for player in members.get(entrant_id, ()):
                if player is not None and (tournament_id, player) not in unanswered:
                    results.append(pure.Result(number, player, place))
    described = [
        {
            "number": event.number,
            "slug": event.tournament.slug,
            "name": event.tournament.name,
            "played": event.tournament_id in stages,
        }
        for event in series_events
    ]
    return results, described


def standings_document(series: Series) -> str:
    results, described = series_results(series)
    lines = pure.rank_series(results, points=series.series_points, best_of=series.best_of)
    return orjson.dumps(
        {
            "events": described,
            "lines": [
                [
                    line.player_id, line.rank, line.tied, line.points, line.wins, line.best,
                    line.played, [list(result) for result in line.results],
                ]
                for line in lines
            ],
        }
    ).decode()  # fmt: skip


def recompute_series(series_id: int) -> bool:
    """Rewrite the series standings from its events' standings; True if they changed."""
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        return False
    document = standings_document(series)
    with transaction.atomic():
        held = SeriesStandings.objects.select_for_update().filter(series=series).first()
        if held is not None and held.document == document:
            return False
        SeriesStandings.objects.update_or_create(
            series=series, defaults={"document": document, "computed_at": timezone.now()}
        )
    return True


def read_standings(series: Series) -> dict:
    """The series standings as stored (empty before the first recompute), with the names
    of its players (one query)."""
    held = SeriesStandings.objects.filter(series=series).first()
    if held is None:
        return {"events": [], "lines": [], "computed_at": None}
    data = orjson.loads(held.document)
    names = dict(
        Player.objects.filter(pk__in=[line[0] for line in data["lines"]]).values_list(
            "pk", "display_name"
        )
    )
    lines = [
        {
            "player_id": player, "name": names.get(player, ""), "rank": rank, "tied": tied,
            "points": points, "wins": wins, "best": best, "played": played,
            "results": [
                {"event": e, "place": place, "points": got, "counted": kept}
                for e, place, got, kept in results
            ],
        }
        for player, rank, tied, points, wins, best, played, results in data["lines"]
    ]  # fmt: skip
    return {"events": data["events"], "lines": lines, "computed_at": held.computed_at}

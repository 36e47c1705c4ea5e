"""The series standings as a viewer may see them.

A private event's placings and points are its own: the series' public standings count
only the events every visitor may see, their players ranked again without the private
events' results, and the private events themselves are not named. The series' organizers
see the standings as stored, every event counted. The page says which the viewer sees.
"""

from django.contrib.auth.models import AnonymousUser

from accounts.permissions import allowed
from circuit import series_standings as pure
from circuit.models import Series
from circuit.services.series import read_standings
from tournaments.models import Tournament


def standings_for(series: Series, user) -> dict:
    """The stored standings, for ``user``: ``left_out`` counts the events they leave out
    (0 for the series' organizers, who see every event)."""
    standings = read_standings(series)
    if allowed(user, "series.manage", series):
        return {**standings, "left_out": 0}
    slugs = [event["slug"] for event in standings["events"]]
    everyone = AnonymousUser()
    shown = {
        tournament.slug
        for tournament in Tournament.objects.filter(slug__in=slugs)
        if allowed(everyone, "tournament.view", tournament)
    }
    events = [event for event in standings["events"] if event["slug"] in shown]
    left_out = len(standings["events"]) - len(events)
    if not left_out:
        return {**standings, "left_out": 0}
    numbers = {event["number"] for event in events}
    names = {line["player_id"]: line["name"] for line in standings["lines"]}
    results = [
        pure.Result(result["event"], line["player_id"], result["place"])
        for line in standings["lines"]
        for result in line["results"]
        if result["event"] in numbers
    ]
    ranked = pure.rank_series(results, points=series.series_points, best_of=series.best_of)
    lines = [
        {
            "player_id": line.player_id, "name": names[line.player_id], "rank": line.rank,
            "tied": line.tied, "points": line.points, "wins": line.wins, "best": line.best,
            "played": line.played,
            "results": [
                {"event": event, "place": place, "points": got, "counted": counted}
                for event, place, got, counted in line.results
            ],
        }
        for line in ranked
    ]  # fmt: skip
    return {
        "events": events,
        "lines": lines,
        "computed_at": standings["computed_at"],
        "left_out": left_out,
    }

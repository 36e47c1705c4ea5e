"""The series standings as CSV, written like the tournaments' exports."""

from collections.abc import Iterator

from circuit.models import Series
from circuit.series_seen import standings_for
from tournaments.exports import csv_lines, text

SERIES_COLUMNS = ["series", "rank", "tied", "player", "points", "wins", "best", "played"]


def series_rows(series: Series, user) -> Iterator[list[str]]:
    """One row per player, best first, then one column per event: its placing and points
    (a trailing ``*`` marks a result the best-N rule leaves out); of the events ``user``
    may see (see ``circuit.series_seen``)."""
    standings = standings_for(series, user)
    numbers = [event["number"] for event in standings["events"]]
    yield [*SERIES_COLUMNS, *(f"event_{n}" for n in numbers)]
    for line in standings["lines"]:
        by_event = {r["event"]: r for r in line["results"]}
        cells = []
        for n in numbers:
            result = by_event.get(n)
            if result is None:
                cells.append("")
            else:
                mark = "" if result["counted"] else "*"
                cells.append(f"{result['place']}:{result['points']:g}{mark}")
        yield [
            text(series.name), str(line["rank"]), "1" if line["tied"] else "0",
            text(line["name"]), f"{line['points']:g}", str(line["wins"]), str(line["best"]),
            str(line["played"]), *cells,
        ]  # fmt: skip


def series_csv_response(series: Series, user):
    from django.http import StreamingHttpResponse

    response = StreamingHttpResponse(
        csv_lines(series_rows(series, user)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{series.slug}-standings.csv"'
    return response

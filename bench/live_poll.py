"""What a tournament page's live parts cost per poll, against the minimal authenticated call.

    .venv/bin/python bench/live_poll.py            # SQLite, in a throwaway database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/live_poll.py

Builds a 256-player event (64 tables of four, every game in play), then times through the
whole Django stack, as an anonymous phone would ask:

- the minimal authenticated endpoint (the API root with a token), the baseline;
- the page's one unchanged poll (204), and the standings API with If-None-Match (304),
  with the queries each makes;
- a changed poll after a hand at one table (the answer carries that table's card alone):
  the first viewer to ask, and every other viewer after them;
- the page itself.

Each figure is the median over the runs and its ratio to the baseline measured in the
same run. A hand is told to the page as the scoring service tells it: the game's row
changes and ``game_changed`` is sent, as after its transaction commits.
"""

import re
import statistics
import time

from bootstrap import throwaway_database
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.factories import bulk_event

RUNS = 200
CHANGES = 40
HTMX = {"HTTP_HX_REQUEST": "true"}


def timed(client: Client, url: str, expected: int, **headers) -> float:
    started = time.perf_counter()
    response = client.get(url, **headers)
    spent = time.perf_counter() - started
    assert response.status_code == expected, (url, response.status_code)
    return spent


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def poll_url(client: Client, slug: str) -> str:
    page = client.get(f"/t/{slug}/").content.decode()
    found = re.search(r'id="live" hx-get="([^"]+)"', page).group(1)
    return found.replace("&amp;", "&")


def queries_of(client: Client, url: str, **headers) -> int:
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as queries:
        client.get(url, **headers)
    return len(queries)


def hand_at(game_id: int) -> None:
    """A hand at one table, as the page learns of it: the game's row, then the signal."""
    from scoring.models import Game
    from scoring.signals import game_changed

    Game.objects.filter(pk=game_id).update(
        revision=F("revision") + 1, hand_count=F("hand_count") + 1
    )
    game_changed.send(
        sender=Game, game_id=game_id, change="hand_recorded", followed=True, status="in_progress"
    )


def main() -> None:
    from rest_framework.authtoken.models import Token

    from tournaments.read import live

    live.TABLES_HOLD = 0  # each hand reaches the next poll, so every change is timed

    from scoring.models import Game
    from tournaments.models import Match
    from tournaments.read.standings_store import rebuild_standings

    with throwaway_database():
        tournament, _ = bulk_event(256, 1)
        Game.objects.update(status="in_progress", winner="")  # the round is being played
        rebuild_standings(tournament.pk)
        slug = tournament.slug
        games = list(
            Match.objects.filter(round__stage__tournament=tournament)
            .order_by("table_number")
            .values_list("game_id", flat=True)
        )
        token = Token.objects.create(user=tournament.created_by)
        api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
        phone = Client()

        baseline = [timed(api, "/api/v1/", 200) for _ in range(RUNS)]
        base = median_ms(baseline)
        print(f"minimal authenticated endpoint (API root, token): {base:.2f} ms")

        def report(label: str, samples: list[float], queries: int | None = None) -> None:
            spent = median_ms(samples)
            counted = f", {queries} queries" if queries is not None else ""
            print(f"{label}: {spent:.2f} ms, {spent / base:.1f}x the baseline{counted}")

        page = [timed(phone, f"/t/{slug}/", 200) for _ in range(20)]
        report("the page (64 tables, 100 standings rows)", page)

        url = poll_url(phone, slug)
        phone.cookies.clear()  # a phone that only polls holds no session
        phone.get(url, **HTMX)  # the first poll keeps the tags where the others find them
        report(
            "unchanged live poll (204)",
            [timed(phone, url, 204, **HTMX) for _ in range(RUNS)],
            queries_of(phone, url, **HTMX),
        )
        api_url = f"/api/v1/tournaments/{slug}/standings/"
        etag = phone.get(api_url)["ETag"]
        report(
            "unchanged standings API poll (304)",
            [timed(phone, api_url, 304, HTTP_IF_NONE_MATCH=etag) for _ in range(RUNS)],
            queries_of(phone, api_url, HTTP_IF_NONE_MATCH=etag),
        )

        first, others = [], []
        for change in range(CHANGES):
            held = poll_url(phone, slug)
            hand_at(games[(change * 7) % len(games)])
            first.append(timed(phone, held, 200, **HTMX))
            others += [timed(phone, held, 200, **HTMX) for _ in range(4)]
        report("changed poll after a hand at one table, first viewer", first)
        report("changed poll after a hand at one table, every other viewer", others)

        # As in the live-load bench: every table has changed since the viewer's last poll.
        first, others = [], []
        for _ in range(CHANGES // 4):
            held = poll_url(phone, slug)
            for game in games:
                hand_at(game)
            first.append(timed(phone, held, 200, **HTMX))
            others += [timed(phone, held, 200, **HTMX) for _ in range(4)]
        report("changed poll after a hand at all 64 tables, first viewer", first)
        report("changed poll after a hand at all 64 tables, every other viewer", others)


if __name__ == "__main__":
    main()

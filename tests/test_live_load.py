"""The live-load bench's pure helpers, so the instrument does not rot between runs.

The bench itself starts a whole stack and is run by hand (docs/benchmarks.md); these
tests only load the module and check the arithmetic and parsing its figures rest on.
"""

import importlib.util
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "live_load.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("live_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_percentile_interpolates_between_ranks(bench):
    samples = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert bench.percentile(samples, 50) == 3.0
    assert bench.percentile(samples, 95) == pytest.approx(4.8)
    assert bench.percentile(samples, 100) == 5.0
    assert bench.percentile([], 50) is None


def test_summary_of_no_samples_has_no_figures(bench):
    assert bench.summarize([]) == {"n": 0, "p50": None, "p95": None, "max": None}
    assert bench.summarize([0.2, 0.1]) == {
        "n": 2,
        "p50": pytest.approx(0.15),
        "p95": pytest.approx(0.195),
        "max": 0.2,
    }


def test_unchanged_share_counts_only_polls_during_play_and_failures_as_changed(bench):
    polls = [
        (1.0, 0.01, 204, "tables"),
        (2.0, 0.01, 304, "api"),
        (3.0, 0.02, 200, "standings"),
        (4.0, 1.00, 0, "tables"),
        (9.0, 0.01, 204, "tables"),  # after the last game finished: not counted
    ]
    assert bench.unchanged_share(polls, until=5.0) == (0.5, 4)
    assert bench.unchanged_share(polls, until=0.5) == (None, 0)


def test_poll_counts_hold_the_unchanged_share_to_what_found_nothing_new(bench):
    polls = [
        (1.0, 0.01, 204, "page", False, True),
        (2.0, 0.01, 304, "api", False, True),
        (3.0, 0.02, 200, "page", True, True),  # news, from the cache
        (3.5, 0.03, 200, "page", True, False),  # news, read again from the database
        (4.0, 0.02, 200, "api", False, False),  # changed, yet nothing new: a miss
        (4.5, 1.00, 0, "page", None, False),  # failed: nothing new shown, a miss
    ]
    assert bench.poll_counts(polls) == {
        "counted": 6,
        "unchanged": 2,
        "quiet": 4,
        "missed": 2,
        "changed_answers": 3,
        "changed_empty": 1,
        "from_cache": 3,
        "no_database": 3,
    }
    assert bench.cached_share({"counts": bench.poll_counts(polls)}) == 0.5
    # Behind nginx: a poll its micro-cache answered never reached capicu's cache.
    proxied = [(*poll, index == 4) for index, poll in enumerate(polls)]
    assert bench.poll_counts(proxied)["no_database"] == 4
    assert bench.cached_share({"counts": bench.poll_counts(proxied)}) == 4 / 6
    assert bench.cached_share({"counts": bench.poll_counts([])}) is None


def test_live_url_reads_the_regions_poll_address_unescaped(bench):
    page = (
        '<main><div class="x" id="standings" hx-get="/t/e/standings/?stage=1&amp;since=ab"'
        ' hx-trigger="every 5s"><p id="tables">no poll here</p>'
        '<div hx-swap="outerHTML" id="tables" hx-get="/t/e/tables/?round=2&amp;since=cd">'
    )
    assert bench.live_url(page, "standings") == "/t/e/standings/?stage=1&since=ab"
    assert bench.live_url(page, "tables") == "/t/e/tables/?round=2&since=cd"
    assert bench.live_url(page, "bracket") is None


def test_standings_lag_waits_for_every_entrant_of_the_game(bench):
    finished = {1: 10.0, 2: 20.0, 3: 30.0}
    entrants = {1: [11, 12], 2: [21, 22], 3: [31]}
    seen = {11: 10.5, 12: 11.25, 21: 25.0, 31: 29.0}
    lags, missing = bench.standings_lags(finished, entrants, seen)
    # Game 3 counted from a snapshot already in flight when its last hand was acknowledged.
    assert lags == [1.25, 0.0]
    assert missing == [2]


def test_pushed_standings_lag_takes_the_first_push_once_the_api_showed_the_game(bench):
    finished = {1: 10.0, 2: 20.0, 3: 30.0}
    entrants = {1: [11, 12], 2: [21, 22], 3: [31]}
    seen = {11: 10.5, 12: 11.25, 21: 25.0, 31: 30.2}
    # Pushes at 9 (before), 11.0 (within the slack of 11.25) and 32.
    lags = bench.stream_lags(finished, entrants, seen, [32.0, 9.0, 11.0])
    assert lags == [1.0, 2.0]  # game 2 never shown by the API: left out


def test_a_stream_event_gives_the_next_stream_its_tags(bench):
    block = (
        'event: live\ndata: <div id="live" hx-get="/t/e/live/?stage=1&amp;round=&amp;s=a&amp;'
        't=p1" hx-trigger="every 5s" hidden></div><ol hx-swap-oob="true" id="standings">\n'
        "data: </ol>\n\n"
    )
    poller = bench.live_url(block.replace("\ndata: ", "\n"), "live")
    assert bench.events_url(poller) == "/t/e/events/?stage=1&round=&s=a&t=p1"
    args = bench.parse_args(["--quick", "--push", "300,1000"])
    assert args.push_counts == [300, 1000] and args.viewer_counts == [0, 300, 1000]


def test_verdict_compares_against_the_target_in_its_direction(bench):
    assert bench.verdict(1.4, 1.5) == "PASS"
    assert bench.verdict(1.6, 1.5) == "FAIL"
    assert bench.verdict(0.95, 0.9, at_least=True) == "PASS"
    assert bench.verdict(0.5, 0.9, at_least=True) == "FAIL"
    assert bench.verdict(None, 1.0) == "-"


def test_quick_mode_always_measures_the_no_viewer_baseline(bench):
    args = bench.parse_args(["--quick", "--viewers", "300"])
    assert args.viewer_counts == [0, 300]
    assert args.target == 100
    assert args.phase_seconds == 60.0
    full = bench.parse_args([])
    assert full.viewer_counts == [0, 300, 1000]
    assert full.target is None
    with pytest.raises(SystemExit):
        bench.parse_args(["--viewers", "0,9000"])


def test_a_gzip_stream_is_read_event_by_event_as_the_bytes_come(bench):
    """Also across a wait that timed out: the bench waits a second at a time."""
    import asyncio
    import gzip

    from tournaments.stream import END, RETRY, Gzip, Message

    events = [RETRY, Message(b"event: live\ndata: <p>one</p>\n\n"), END]
    wrap = Gzip()
    wire = Gzip.HEADER + b"".join(wrap.take(event) for event in events) + wrap.trailer()
    assert gzip.decompress(wire) == b"".join(event.raw for event in events)

    async def read():
        reader = asyncio.StreamReader()
        seen, blocks = {"bytes": 0}, []
        events = bench.SSEReader(reader, True, seen)
        half = len(wire) // 2
        for start in range(0, half, 7):  # in pieces that cut through the events
            reader.feed_data(wire[start : min(start + 7, half)])
        timed_out = 0
        while True:
            try:
                blocks.append(await asyncio.wait_for(events.next(), 0.05))
            except TimeoutError:
                timed_out += 1
                break
        reader.feed_data(wire[half:])
        reader.feed_eof()
        try:
            while True:
                blocks.append(await events.next())
        except asyncio.IncompleteReadError:
            pass  # the connection closed after the last event
        return seen, blocks, timed_out

    # In a thread of its own: the browser tests may have left Playwright's loop in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        seen, blocks, timed_out = pool.submit(asyncio.run, read()).result()
    assert timed_out == 1
    assert blocks == [event.raw for event in events]
    assert seen["bytes"] == len(wire)


def test_a_chunked_gzip_stream_is_read_as_it_comes_across_timed_out_waits(bench):
    """HTTP/1.1, as browsers ask and uvicorn answers: the gzip stream in chunks, the
    chunks cut anywhere by the network, and the reader timed out now and then."""
    import asyncio

    from tournaments.stream import END, RETRY, Gzip, Message

    events = [RETRY, *(Message(f"event: live\ndata: <p>{n}</p>\n\n".encode()) for n in range(5))]
    events.append(END)
    wrap = Gzip()
    parts = [Gzip.HEADER, *(wrap.take(event) for event in events), wrap.trailer()]
    body = b"".join(parts)
    wire = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"

    async def read():
        reader = asyncio.StreamReader()
        seen, blocks, timeouts = {"bytes": 0}, [], 0
        stream = bench.SSEReader(bench.Dechunk(reader), True, seen)
        ended = False
        for start in range(0, len(wire), 5):  # five bytes at a time: sizes and CRLFs cut
            reader.feed_data(wire[start : start + 5])
            try:
                blocks.append(await asyncio.wait_for(stream.next(), 0.01))
            except TimeoutError:
                timeouts += 1
            except asyncio.IncompleteReadError:
                ended = True  # the last chunk came: the body is over
        return seen, blocks, timeouts, ended

    with ThreadPoolExecutor(max_workers=1) as pool:
        seen, blocks, timeouts, ended = pool.submit(asyncio.run, read()).result()
    assert timeouts > 10 and ended
    assert blocks == [event.raw for event in events]
    assert seen["bytes"] == len(body)


def test_the_hands_time_inside_gunicorn_is_read_from_its_access_log(bench, tmp_path):
    stack = bench.Stack.__new__(bench.Stack)
    stack.access_log = tmp_path / "access.log"
    assert stack.access_offset() == 0 and stack.hand_seconds(0) == []
    stack.access_log.write_bytes(b"POST /api/v1/games/7/hands/ 201 12000\n")
    since = stack.access_offset()
    with stack.access_log.open("ab") as log:
        log.write(b"GET /api/v1/games/7/ 200 3000\n")
        log.write(b"POST /api/v1/games/8/hands/ 201 25000\n")
        log.write(b"POST /api/v1/games/8/hands/ 409 4000\n")
        log.write(b"POST /api/v1/tournaments/x/rounds/ 201 90000\n")
    assert stack.hand_seconds(since) == [0.025, 0.004]
    assert stack.hand_seconds(0) == [0.012, 0.025, 0.004]


PAGE = (
    '<main><div id="standings"><p>Ana 25</p></div><section>'
    '<div id="tables"><p>Round 1</p><ul class="tables">'
    '<li class="table-card" id="table-1"><ol class="seats"><li>Ana</li><li>Beto</li></ol>'
    '<link rel="x">\n</li>'
    '<li class="table-card" id="table-2"><ol class="seats"><li>Cruz</li></ol>\n</li>'
    "</ul></div></section></main>"
)


def test_the_page_as_first_shown_is_held_part_by_part(bench):
    held = bench.page_parts(PAGE)
    assert set(held) == {"standings", "tables", "table-1", "table-2"}
    assert held["table-1"].endswith('<link rel="x">\n</li>')  # <link is not an <li
    assert held["tables"] == '<div id="tables"><p>Round 1</p><ul class="tables"></ul></div>'


def test_a_changed_answer_brings_news_only_for_a_part_the_page_does_not_hold(bench):
    held = bench.page_parts(PAGE)
    poller = '<div id="live" hx-get="/t/e/live/?s=b&amp;t=c"></div>'
    same = '<li hx-swap-oob="true" class="table-card" id="table-2"><ol class="seats"><li>Cruz</li></ol>\n</li>'  # noqa: E501
    assert bench.brings_news(poller + same, held) is False
    moved = same.replace("Cruz", "Cruz 30")
    assert bench.brings_news(poller + moved, held) is True
    assert "Cruz 30" in held["table-2"]
    assert bench.brings_news(poller + moved, held) is False  # now held
    standings = '<div hx-swap-oob="true" id="standings"><p>Ana 50</p></div>'
    assert bench.brings_news(poller + same.replace("Cruz", "Cruz 30") + standings, held)
    assert bench.brings_news(poller, held) is False


@pytest.mark.django_db
def test_the_real_page_and_its_answers_are_read_the_same_way(bench, client):
    """Against the templates: the page's parts, a hand's answer (one new card) and the
    same answer read twice (nothing new)."""
    from scoring.services import record_hand
    from tests.factories import UserFactory, cutthroat_round
    from tournaments.models import Match
    from tournaments.read import live

    organizer = UserFactory()
    tournament, _, round_ = cutthroat_round(organizer, players=8)
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    held = bench.page_parts(page)
    assert {"standings", "tables", "table-1", "table-2"} <= set(held)
    url = bench.live_url(page, "live")
    game = Match.objects.get(round=round_, table_number=2).game
    record_hand(
        game, by=organizer, number=1, ended="domino", domino_by="A",
        pips={"A": 0, "B": 5, "C": 5, "D": 5},
    )  # fmt: skip
    live.forget_tournament(tournament.pk)  # as the hand's commit does, at once
    answer = client.get(url, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    text = answer.content.decode()
    before = dict(held)
    assert bench.brings_news(text, held) is True
    assert held["table-2"] != before["table-2"] and held["table-1"] == before["table-1"]
    assert bench.brings_news(text, held) is False
    # The bench counts the answers the cache alone gave by the header it reads.
    again = client.get(url, HTTP_HX_REQUEST="true")
    assert again.content == answer.content
    timings = (answer["Server-Timing"], again["Server-Timing"])
    assert timings == ("cache;desc=miss", "cache;desc=hit")

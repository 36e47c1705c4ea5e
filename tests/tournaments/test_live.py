"""The live parts: tags that change only with what a viewer sees, unchanged polls answered
from the cache, cards rendered once per change, cache headers for a proxy in front."""

import gzip
import json
import random
import re
import time
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from jobs import runner
from scoring.models import Game
from scoring.services import record_hand
from tests.factories import UserFactory, cutthroat_round
from tournaments.demo import play
from tournaments.models import Match, StandingsSnapshot
from tournaments.read import answers, live, selectors
from tournaments.read.standings_store import rebuild_standings
from tournaments.services import (
    generate_round,
    publish_round,
    update_tournament,
    withdraw,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def event(organizer):
    """Sixteen players at four tables of a published first round."""
    return cutthroat_round(organizer)


def tables(round_) -> list[Match]:
    return list(Match.objects.filter(round=round_).order_by("table_number"))


def one_hand(game: Game, by) -> None:
    game.refresh_from_db()
    record_hand(
        game,
        by=by,
        number=game.hand_count + 1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 5, "C": 5, "D": 5},
    )


@pytest.fixture(autouse=True)
def at_once(monkeypatch):
    """A hand reaches the pollers at their next poll (see test_a_hand_marks_...)."""
    monkeypatch.setattr(live, "TABLES_HOLD", 0)


def live_url_in(html: str) -> str:
    return re.search(r'id="live" hx-get="([^"]+)"', html).group(1).replace("&amp;", "&")


def poll_url(client, tournament, query: str = "") -> str:
    """The URL the tournament page polls: its one live element's."""
    return live_url_in(client.get(f"/t/{tournament.slug}/{query}").content.decode())


def built_standings(tournament) -> str:
    """The standings API's URL for the tournament, its standings built first."""
    rebuild_standings(tournament.pk)
    return f"/api/v1/tournaments/{tournament.slug}/standings/"


def bare(url: str) -> str:
    """The poll without the tags the page holds: answered with every part."""
    return url.split("&s=")[0]


# --- the tag rules --------------------------------------------------------------------------


def test_a_hand_at_table_3_leaves_the_other_tables_and_the_standings_tags_unchanged(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    rebuild_standings(tournament.pk)
    before = dict(live.tables_state(round_, staff=False).tags)
    standings_before = selectors.standings_mark(tournament, stage).tag
    third = tables(round_)[2]
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(third.game, organizer)
    after = dict(live.tables_state(round_, staff=False).tags)
    assert after[third.pk] != before[third.pk]
    assert {pk: tag for pk, tag in after.items() if pk != third.pk} == {
        pk: tag for pk, tag in before.items() if pk != third.pk
    }
    assert selectors.standings_mark(tournament, stage).tag == standings_before


def test_a_hand_of_a_game_in_play_queues_no_recompute_unless_live_games_count(event, organizer):
    tournament, _, round_ = event
    game = tables(round_)[0].game
    from tournaments.receivers import follow_game

    one_hand(game, organizer)
    with mock.patch.object(runner, "request") as request:

        def recomputes() -> int:
            return sum(1 for call in request.call_args_list if call.args[0] == "standings")

        follow_game(Game, game_id=game.pk, change="hand_recorded", status="in_progress")
        assert recomputes() == 0
        follow_game(Game, game_id=game.pk, change="hand_recorded", status="finished")
        assert recomputes() == 1
        follow_game(Game, game_id=game.pk, change="hand_corrected", status="in_progress")
        assert recomputes() == 2
        tournament.include_live = True
        tournament.save(update_fields=["include_live"])
        follow_game(Game, game_id=game.pk, change="hand_recorded", status="in_progress")
        assert recomputes() == 3


def test_a_finished_game_changes_the_standings_tag_once(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    rebuild_standings(tournament.pk)
    first = selectors.standings_mark(tournament, stage)
    with django_capture_on_commit_callbacks(execute=True):
        play(tables(round_)[0].game, organizer, random.Random(3))  # eager: recomputes on commit
    finished = selectors.standings_mark(tournament, stage)
    assert finished.tag != first.tag
    written = StandingsSnapshot.objects.get(stage=stage).computed_at

    rebuild_standings(tournament.pk)  # the same standings again
    again = selectors.standings_mark(tournament, stage)
    assert again.tag == finished.tag
    assert StandingsSnapshot.objects.get(stage=stage).computed_at == written
    assert again.computed_at > written  # the recount itself is still recorded


def test_the_recounting_notice_shows_only_once_a_recompute_is_overdue(event):
    tournament, stage, _ = event
    rebuild_standings(tournament.pk)
    with mock.patch.object(
        runner.run_job, "apply_async", side_effect=ConnectionError("broker down")
    ):
        runner.request("standings", tournament.pk)
    pending = selectors.standings_mark(tournament, stage)
    assert pending.stale and not pending.overdue
    assert pending.keep_for == live.STALE_AFTER
    later = selectors.timezone.now() + selectors.timedelta(seconds=live.STALE_AFTER + 1)
    with mock.patch.object(selectors.timezone, "now", return_value=later):
        overdue = selectors.standings_mark(tournament, stage)
    assert overdue.overdue
    assert overdue.tag != pending.tag
    assert overdue.digest == pending.digest


# --- unchanged polls --------------------------------------------------------------------------


def test_an_unchanged_poll_makes_no_query_and_renders_nothing(client, event):
    tournament, _, _ = event
    url = poll_url(client, tournament)
    client.cookies.clear()
    assert client.get(url, **HTMX).status_code == 204  # keeps the tags
    with (
        CaptureQueriesContext(connection) as queries,
        mock.patch("django.template.loader.render_to_string") as render,
        mock.patch("django.template.base.Template.render") as template,
        mock.patch.object(live.cache, "get_many", wraps=live.cache.get_many) as reads,
        mock.patch.object(live.cache, "get", wraps=live.cache.get) as read,
    ):
        assert client.get(url, **HTMX).status_code == 204
    assert len(queries) == 0, [query["sql"] for query in queries]
    render.assert_not_called()
    template.assert_not_called()
    # One read of three keys (whether everyone may see the event, and the two tags): one
    # MGET on Redis (the local cache reads them one by one).
    assert reads.call_count == 1 and read.call_count in (0, 3)


def test_an_unchanged_api_poll_makes_no_query(event):
    tournament, _, _ = event
    url = built_standings(tournament)
    api = APIClient()
    first = api.get(url)
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert len(queries) == 0


def test_each_live_answer_says_whether_the_cache_alone_answered_it(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    api = built_standings(tournament)
    page = poll_url(client, tournament)
    client.cookies.clear()
    signed_in = APIClient()
    signed_in.force_login(organizer)

    def ask(get, url, **headers):
        with CaptureQueriesContext(connection) as queries:
            answer = get(url, **headers)
        return answer, len(queries)

    def hand():
        with django_capture_on_commit_callbacks(execute=True):
            one_hand(tables(round_)[0].game, organizer)

    asks = [
        lambda: ask(client.get, page, **HTMX),  # the first: keeps the state
        lambda: ask(client.get, page, **HTMX),  # unchanged
        lambda: (hand(), ask(client.get, page, **HTMX))[1],  # a hand: read again
        lambda: ask(client.get, page, **HTMX),  # the same change for the next poller
        lambda: ask(APIClient().get, api),  # the first: keeps the answer
        lambda: ask(APIClient().get, api),  # the kept answer
        lambda: ask(APIClient().get, api, HTTP_IF_NONE_MATCH="x"),  # kept, to an old tag
        lambda: ask(signed_in.get, api),  # signed in: the view
    ]
    seen = []
    for asked in asks:
        answer, queries = asked()
        assert answer.status_code in (200, 204, 304)
        seen.append((answer["Server-Timing"], queries > 0))
    for timing, queried in seen:
        assert timing == ("cache;desc=miss" if queried else "cache;desc=hit")
    hits = [timing == "cache;desc=hit" for timing, _ in seen]
    assert hits == [False, True, False, True, False, True, True, False]


def test_changed_standings_are_rendered_once_for_every_api_poller(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = built_standings(tournament)
    api = APIClient()
    first = api.get(url)
    assert first.status_code == 200 and first["Content-Type"] == "application/json"
    body = first.json()
    assert set(body) == {"stage", "order", "computed_at", "stale", "points_basis", "rows"}
    assert len(body["rows"]) == 16
    with (
        CaptureQueriesContext(connection) as queries,
        mock.patch.object(selectors, "standing_lines", wraps=selectors.standing_lines) as read,
    ):
        again = api.get(url)
    assert again.json() == body and again["ETag"] == first["ETag"]
    read.assert_not_called()  # the rows as kept: no snapshot read, no entrant query
    assert not any("entrant" in query["sql"].lower() for query in queries)

    # New standings (a finished game) are new rows, rendered once again.
    with django_capture_on_commit_callbacks(execute=True):
        play(tables(round_)[0].game, organizer, random.Random(3))
    changed = api.get(url)
    assert changed["ETag"] != first["ETag"]
    assert sum(row["games_played"] for row in changed.json()["rows"]) == 4
    assert sum(row["games_played"] for row in body["rows"]) == 0


def test_api_pollers_that_take_gzip_share_one_compressed_answer(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = built_standings(tournament)
    api = APIClient()
    plain = api.get(url)
    packed = api.get(url, HTTP_ACCEPT_ENCODING="br, gzip;q=0.8")
    assert packed["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain
    assert "Accept-Encoding" in packed["Vary"] and "Accept-Encoding" in plain["Vary"]
    assert json.loads(gzip.decompress(packed.content)) == plain.json()
    assert packed["ETag"] == plain["ETag"]
    assert len(packed.content) < len(plain.content) / 4
    with mock.patch.object(gzip, "compress", wraps=gzip.compress) as squeeze:
        again = api.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert again.content == packed.content
    squeeze.assert_not_called()  # compressed once, for every poller that asks the same
    assert "Content-Encoding" not in api.get(url, HTTP_ACCEPT_ENCODING="gzip;q=0")
    # A finished game is a new answer, compressed once again.
    with django_capture_on_commit_callbacks(execute=True):
        play(tables(round_)[0].game, organizer, random.Random(3))
    changed = api.get(url, HTTP_ACCEPT_ENCODING="gzip")
    rows = json.loads(gzip.decompress(changed.content))["rows"]
    assert sum(row["games_played"] for row in rows) == 4


def test_a_signed_out_poller_gets_changed_standings_as_kept_without_a_query(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = built_standings(tournament)
    api = APIClient()
    for encoding in ("", "gzip"):
        made = api.get(url, HTTP_ACCEPT_ENCODING=encoding)  # by the view: keeps the answer
        with CaptureQueriesContext(connection) as queries:
            kept = api.get(url, HTTP_ACCEPT_ENCODING=encoding, HTTP_IF_NONE_MATCH='"old"')
        assert len(queries) == 0
        assert kept.status_code == 200 and kept.content == made.content
        # The same headers as the view's, but for saying where the answer came from.
        assert made["Server-Timing"] == "cache;desc=miss"
        assert kept["Server-Timing"] == "cache;desc=hit"
        del made["Server-Timing"], kept["Server-Timing"]
        del made["X-Request-ID"], kept["X-Request-ID"]  # each names its own request
        assert dict(kept.items()) == dict(made.items())
    # A finished game: the kept answer is of the last mark and is not sent again.
    with django_capture_on_commit_callbacks(execute=True):
        play(tables(round_)[0].game, organizer, random.Random(3))
    after = api.get(url)
    assert after["ETag"] != made["ETag"]
    assert sum(row["games_played"] for row in after.json()["rows"]) == 4


def test_signed_in_and_browsing_pollers_are_never_sent_the_kept_answer(event, organizer):
    tournament, _, _ = event
    url = built_standings(tournament)
    APIClient().get(url)  # keeps the signed-out answer
    signed_in = APIClient()
    signed_in.force_login(organizer)
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION="Token nonsense")
    asks = [
        (signed_in, {}),  # a session: answered by the view for that account
        (token, {}),  # an Authorization header, even a wrong one, is the view's to judge
        (APIClient(), {"HTTP_ACCEPT": "text/html"}),  # the browsable API
    ]
    for client, headers in asks:
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(url, **headers)
        assert len(queries) > 0, headers
        assert answer.status_code in (200, 401)
    assert token.get(url).status_code == 401
    with CaptureQueriesContext(connection) as queries:
        assert APIClient().get(url + "?format=json").status_code == 200
    assert len(queries) > 0  # any other query parameter goes to the view


def test_an_event_taken_private_stops_the_kept_answer_at_once(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, _ = event
    url = built_standings(tournament)
    assert APIClient().get(url).status_code == 200
    assert APIClient().get(url).status_code == 200  # as kept
    with django_capture_on_commit_callbacks(execute=True):
        update_tournament(tournament, by=organizer, public=False)
    owner = APIClient()
    owner.force_login(organizer)
    assert owner.get(url).status_code == 200  # keeps the mark again, signed in
    assert APIClient().get(url).status_code == 404


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("br;q=1.0, GZIP;q=0.5", True),
        ("*", True),
        ("gzip;q=0", False),
        ("gzip;q=0.000", False),
        ("deflate, br", False),
        ("", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_which_clients_take_gzip(header, takes):
    assert live.accepts_gzip(header) is takes


def test_an_unreachable_broker_tells_api_pollers_the_standings_are_stale(event, organizer):
    tournament, _, round_ = event
    url = built_standings(tournament)
    api = APIClient()
    first = api.get(url)
    game = tables(round_)[0].game
    with mock.patch.object(
        runner.run_job, "apply_async", side_effect=ConnectionError("broker down")
    ):
        play(game, organizer, random.Random(3))
        runner.request("standings", tournament.pk)  # what the finished game asks after commit
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED  # every hand kept
    again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again.json()["stale"] is True


# --- changed polls ----------------------------------------------------------------------------


def test_a_hand_sends_only_its_table_out_of_band_and_re_renders_only_that_card(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = poll_url(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[2].game, organizer)
    from django.template import loader

    real = loader.render_to_string
    with mock.patch.object(answers, "render_to_string", side_effect=real) as rendered:
        changed = client.get(url, **HTMX)
    assert changed.status_code == 200
    cards = [call for call in rendered.call_args_list if call.args[0] == "tournaments/_table.html"]
    assert len(cards) == 1
    assert cards[0].args[1]["table"].match.table_number == 3
    body = changed.content.decode()
    assert body.count('class="table-card"') == 1
    assert '<li hx-swap-oob="true" class="table-card" id="table-3">' in body
    assert 'id="standings"' not in body and 'id="tables"' not in body  # unchanged
    # The answer's poller holds the new tags: polling again is unchanged.
    assert client.get(live_url_in(body), **HTMX).status_code == 204
    # Every other viewer gets the same answer from the cache.
    with mock.patch.object(answers, "render_to_string", side_effect=real) as cards:
        assert client.get(url, **HTMX).content == changed.content
    assert cards.call_count == 0


def test_a_changed_part_reaches_the_next_viewers_without_a_query(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = poll_url(client, tournament)
    client.cookies.clear()
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    first = client.get(url, **HTMX)
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        second = client.get(url, **HTMX)
    assert len(queries) == 0
    assert second.content == first.content and second["ETag"] == first["ETag"]


def test_a_finished_game_sends_the_new_standings_out_of_band(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    rebuild_standings(tournament.pk)
    url = poll_url(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        play(tables(round_)[1].game, organizer, random.Random(5))
    body = client.get(url, **HTMX).content.decode()
    assert '<div hx-swap-oob="true" id="standings">' in body
    assert 'id="table-2"' in body and 'id="table-1"' not in body


def test_a_poller_whose_tables_are_no_longer_known_gets_the_whole_tables_part(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = poll_url(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    live.cache.delete(live.was_key(url.split("&t=")[1]))
    body = client.get(url, **HTMX).content.decode()
    assert '<div hx-swap-oob="true" id="tables">' in body
    assert body.count('class="table-card"') == 4


def test_a_hand_marks_the_kept_tables_stale_within_the_hold_rather_than_forgetting_them(
    client, event, organizer, monkeypatch, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    monkeypatch.setattr(live, "TABLES_HOLD", 2)
    url = poll_url(client, tournament)
    client.cookies.clear()
    assert client.get(url, **HTMX).status_code == 204  # the state is kept
    key = live.tables_key(tournament.slug, str(stage.order), "")
    assert live.cache.get(key).fresh_until > time.time() + 10  # no game in play: at rest
    with mock.patch.object(live.cache, "set_many", wraps=live.cache.set_many) as marks:
        for _ in range(3):
            with django_capture_on_commit_callbacks(execute=True):
                one_hand(tables(round_)[0].game, organizer)
    assert live.cache.get(key).fresh_until <= time.time() + 2
    assert marks.call_count == 1  # later hands do not push the deadline back
    # Until then the pollers keep what they hold, without a query.
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, **HTMX).status_code == 204
    assert len(queries) == 0


def test_a_stale_state_is_read_again_by_one_poll_while_the_others_are_answered_from_it(
    client, event, organizer, monkeypatch, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    monkeypatch.setattr(live, "TABLES_HOLD", 2)
    url = poll_url(client, tournament)
    client.cookies.clear()
    assert client.get(url, **HTMX).status_code == 204  # the state is kept
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    key = live.tables_key(tournament.slug, str(stage.order), "")
    stale = live.cache.get(key)
    live.cache.set(key, live.replace(stale, fresh_until=time.time() - 1), live.TAG_SECONDS)
    assert live.claim_refresh(key)  # another poll is reading the database already
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, **HTMX).status_code == 204
    assert len(queries) == 0
    live.refreshed(key)
    changed = client.get(url, **HTMX)  # this one reads it again
    assert changed.status_code == 200 and 'id="table-1"' in changed.content.decode()
    assert live.cache.get(key).fresh  # in play: fresh for the hold


def test_a_tournament_made_private_stops_answering_from_the_cache(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = poll_url(client, tournament)
    client.cookies.clear()
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    assert client.get(url, **HTMX).status_code == 200  # kept for the next viewers
    with django_capture_on_commit_callbacks(execute=True):
        update_tournament(tournament, by=organizer, public=False)
    assert client.get(url, **HTMX).status_code == 404


# --- following the round ----------------------------------------------------------------------


def test_the_poll_moves_to_a_newly_published_round(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    url = poll_url(client, tournament)
    assert client.get(url, **HTMX).status_code == 204
    for match in tables(round_):
        play(match.game, organizer, random.Random(match.table_number))
    url = poll_url(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        second = generate_round(stage, by=organizer)
        publish_round(second, by=organizer)
    moved = client.get(url, **HTMX)
    assert moved.status_code == 200
    assert '<div hx-swap-oob="true" id="tables">' in moved.content.decode()
    assert "Round 2" in moved.content.decode()


def test_a_chosen_round_stays_chosen(client, event, organizer, django_capture_on_commit_callbacks):
    tournament, stage, round_ = event
    for match in tables(round_):
        play(match.game, organizer, random.Random(match.table_number))
    with django_capture_on_commit_callbacks(execute=True):
        publish_round(generate_round(stage, by=organizer), by=organizer)
    url = poll_url(client, tournament, f"?stage={stage.order}&round=1")
    assert "round=1&" in url
    assert client.get(url, **HTMX).status_code == 204


def test_a_staff_view_of_a_draft_round_never_reaches_the_public(client, event, organizer):
    tournament, stage, round_ = event
    for match in tables(round_):
        play(match.game, organizer, random.Random(match.table_number))
    generate_round(stage, by=organizer)  # a draft only staff see
    public_url = poll_url(client, tournament)
    assert client.get(public_url, **HTMX).status_code == 204  # the public tags are kept
    client.force_login(organizer)
    staff_url = poll_url(client, tournament)
    assert "&t=p" in public_url and "&t=s" in staff_url
    staff = client.get(bare(staff_url), **HTMX)
    assert "Round 2" in staff.content.decode()
    assert "private" in staff["Cache-Control"]
    client.logout()
    client.cookies.clear()
    assert client.get(public_url, **HTMX).status_code == 204
    public = client.get(bare(public_url), **HTMX)
    assert "Round 1" in public.content.decode() and "Round 2" not in public.content.decode()


# --- headers for a proxy in front -------------------------------------------------------------


def test_public_live_polls_carry_headers_a_proxy_can_cache_by(client, event, organizer):
    tournament, _, _ = event
    url = poll_url(client, tournament)
    client.cookies.clear()
    fresh = client.get(bare(url), **HTMX)
    assert fresh.status_code == 200
    assert "public" in fresh["Cache-Control"]
    assert f"max-age={live.PUBLIC_SECONDS}" in fresh["Cache-Control"]
    assert f"s-maxage={live.PUBLIC_SECONDS}" in fresh["Cache-Control"]
    assert "Accept-Language" in fresh["Vary"] and "Cookie" in fresh["Vary"]
    tag = fresh["ETag"]
    tags = url.split("&s=")[1].replace("&t=", ".")
    assert tag == f'"{tags}"'
    conditional = client.get(bare(url), HTTP_IF_NONE_MATCH=tag)
    assert conditional.status_code == 304
    unchanged = client.get(url, **HTMX)
    assert unchanged.status_code == 204
    assert "public" in unchanged["Cache-Control"]

    page = client.get(f"/t/{tournament.slug}/")
    assert "private" in page["Cache-Control"]  # it holds the visitor's CSRF token
    client.force_login(organizer)
    staff = client.get(bare(url), **HTMX)
    assert "private" in staff["Cache-Control"] and "public" not in staff["Cache-Control"]


def test_a_spanish_viewer_gets_the_spanish_parts_not_the_cached_english_ones(client, event):
    tournament, _, _ = event
    url = bare(poll_url(client, tournament))
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Table 1" in english
    assert "Mesa 1" in spanish


def test_a_withdrawal_reaches_the_pollers_at_once(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, _ = event
    url = poll_url(client, tournament)
    assert client.get(url, **HTMX).status_code == 204
    entrant = tournament.entrants.order_by("seed").first()
    with django_capture_on_commit_callbacks(execute=True):
        withdraw(entrant, by=organizer)
    # The parts are rebuilt from the database rather than answered from the old tags.
    with CaptureQueriesContext(connection) as queries:
        client.get(url, **HTMX)
    assert len(queries) > 0


def test_odd_poll_parameters_are_answered_not_crashed(client, event):
    tournament, _, _ = event
    for query in ("", "?stage=x&round=99999999", "?s=&t=", "?stage=9&round=9&t=p&s=zz", "?all=1"):
        assert client.get(f"/t/{tournament.slug}/live/{query}", **HTMX).status_code in (200, 204)


# --- a game's page ----------------------------------------------------------------------------


def test_a_game_page_poll_is_answered_from_the_cache_until_the_game_changes(
    client, event, organizer, django_capture_on_commit_callbacks
):
    _, _, round_ = event
    game = tables(round_)[0].game
    page = client.get(f"/games/{game.pk}/").content.decode()
    url = re.search(r'id="game-live"[^>]* hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, **HTMX).status_code == 204
    assert len(queries) == 0
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(game, organizer)
    changed = client.get(url, **HTMX)
    assert changed.status_code == 200
    # The next viewer gets the part rendered once for this revision.
    with mock.patch("scoring.live.render_to_string") as render:
        again = client.get(url, **HTMX)
    render.assert_not_called()
    assert again.content == changed.content


# --- the hall screen --------------------------------------------------------------------------


def test_a_hall_screen_turn_is_served_from_the_cache_until_what_it_shows_changes(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    url = f"/t/{tournament.slug}/screen/?page=1"
    assert client.get(f"/t/{tournament.slug}/screen/").status_code == 200
    first = client.get(url, **HTMX)
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, **HTMX)
    assert len(queries) == 0
    assert again.content == first.content
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    with CaptureQueriesContext(connection) as queries:
        client.get(url, **HTMX)
    assert len(queries) > 0  # the tables changed: the turn is rebuilt


def test_a_dispute_opened_and_resolved_reaches_its_table_card(
    client, event, organizer, django_capture_on_commit_callbacks
):
    from scoring import officiating

    tournament, _, round_ = event
    game = tables(round_)[1].game
    url = poll_url(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        dispute = officiating.open_dispute(game, by=organizer, note="Who played the 6-4?")
    body = client.get(url, **HTMX).content.decode()
    assert 'id="table-1"' not in body  # that table alone
    assert "under dispute" in card_of(body, 2)
    url = live_url_in(body)
    assert client.get(url, **HTMX).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        officiating.resolve_dispute(dispute, by=organizer, upheld=False, reason="Beto did")
    body = client.get(url, **HTMX).content.decode()
    assert "under dispute" not in card_of(body, 2)


def test_a_forfeited_game_is_marked_on_its_table_card(
    client, event, organizer, django_capture_on_commit_callbacks
):
    from scoring import officiating

    tournament, _, round_ = event
    url = poll_url(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        officiating.forfeit_seat(tables(round_)[0].game, "B", "left the hall", organizer)
    body = client.get(url, **HTMX).content.decode()
    assert 'class="pill forfeit">forfeit<' in card_of(body, 1)


def card_of(body: str, number: int) -> str:
    """The head of a table's card (its number and its marks)."""
    start = body.index(f'id="table-{number}"')
    return body[start : body.index('<ol class="seats">', start)]

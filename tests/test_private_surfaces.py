"""A private event stays private on every surface that answers from the cache or sums its
results elsewhere: the hall screen, the page's live poll, the standings API, a game's live
part, and the series standings (API, CSV, page)."""

import random
import re

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from circuit.services.series import create_next_event, create_series
from tests.factories import PlayerFactory, UserFactory, client_for, cutthroat_round
from tournaments import services as events
from tournaments.demo import play
from tournaments.models import Match
from tournaments.read import live
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def private_event(organizer):
    """A running private event whose organizer has opened its pages (the cache is warm)."""
    tournament, stage, round_ = cutthroat_round(organizer)
    events.update_tournament(tournament, by=organizer, public=False)
    rebuild_standings(tournament.pk)
    return tournament, stage, round_


def signed_in(client, user):
    client.force_login(user)
    return client


def test_a_private_events_hall_screen_is_never_served_from_the_cache_to_a_stranger(
    client, organizer, private_event
):
    tournament, _, _ = private_event
    screen = f"/t/{tournament.slug}/screen/"
    own = signed_in(client, organizer)
    assert own.get(screen).status_code == 200
    assert own.get(screen + "?page=0", **HTMX).status_code == 200  # the turn, kept
    assert own.get(screen + "?page=0", **HTMX).status_code == 200  # as kept
    client.logout()
    client.cookies.clear()
    assert client.get(screen + "?page=0", **HTMX).status_code == 404
    stranger = signed_in(client, UserFactory())
    assert stranger.get(screen + "?page=0", **HTMX).status_code == 404


def test_a_private_events_live_poll_is_never_answered_from_the_cache(
    client, organizer, private_event
):
    tournament, _, _ = private_event
    own = signed_in(client, organizer)
    assert own.get(f"/t/{tournament.slug}/").status_code == 200
    assert own.get(f"/t/{tournament.slug}/screen/?page=0", **HTMX).status_code == 200
    # Every tag a poller could hold is kept: a stranger holding them is still refused.
    mark = cache.get(live.standings_key(tournament.slug, ""))
    state = cache.get(live.tables_key(tournament.slug, "", ""))
    assert mark is not None and state is not None
    client.logout()
    client.cookies.clear()
    url = f"/t/{tournament.slug}/live/?stage=&round=&s={mark.tag}&t={state.tag}"
    assert client.get(url, **HTMX).status_code == 404
    assert client.get(url.replace(mark.tag, "old"), **HTMX).status_code == 404


def test_a_private_events_standings_api_sends_no_304_from_the_cache(organizer, private_event):
    tournament, _, _ = private_event
    url = f"/api/v1/tournaments/{tournament.slug}/standings/"
    own = client_for(organizer)
    first = own.get(url)
    assert first.status_code == 200
    assert own.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert APIClient().get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 404
    assert APIClient().get(url).status_code == 404


def test_a_private_events_game_poll_is_checked_before_the_cache(client, organizer, private_event):
    _, _, round_ = private_event
    game = Match.objects.filter(round=round_).order_by("table_number").first().game
    own = signed_in(client, organizer)
    page = own.get(f"/games/{game.pk}/").content.decode()
    url = re.search(r'id="game-live"[^>]* hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert own.get(url, **HTMX).status_code == 204
    client.logout()
    client.cookies.clear()
    assert client.get(url, **HTMX).status_code == 404


def test_an_event_taken_private_stops_its_game_polls_from_the_cache(
    client, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = cutthroat_round(organizer)
    game = Match.objects.filter(round=round_).order_by("table_number").first().game
    page = client.get(f"/games/{game.pk}/").content.decode()
    url = re.search(r'id="game-live"[^>]* hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert client.get(url, **HTMX).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        events.update_tournament(tournament, by=organizer, public=False)
    assert client.get(url, **HTMX).status_code == 404


def test_a_public_events_hall_screen_is_still_served_from_the_cache(client, organizer):
    tournament, _, _ = cutthroat_round(organizer)
    url = f"/t/{tournament.slug}/screen/?page=0"
    first = client.get(url, **HTMX)
    assert first.status_code == 200
    assert cache.get(live.everyone_key(tournament.slug)) is True
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, **HTMX)
    assert len(queries) == 0 and again.content == first.content


def test_an_event_taken_private_stops_its_hall_screen_from_the_cache(
    client, organizer, django_capture_on_commit_callbacks
):
    tournament, _, _ = cutthroat_round(organizer)
    url = f"/t/{tournament.slug}/screen/?page=0"
    assert client.get(url, **HTMX).status_code == 200
    assert client.get(url, **HTMX).status_code == 200  # as kept
    with django_capture_on_commit_callbacks(execute=True):
        events.update_tournament(tournament, by=organizer, public=False)
    assert client.get(url, **HTMX).status_code == 404
    assert cache.get(live.everyone_key(tournament.slug)) is False  # noted by the refusal


def test_a_draft_round_never_reaches_a_hall_screen_from_the_cache(client, organizer):
    tournament, stage, round_ = cutthroat_round(organizer, players=8)
    for match in Match.objects.filter(round=round_):
        play(match.game, organizer, random.Random(match.table_number))
    events.generate_round(stage, by=organizer)  # a draft only staff see
    own = signed_in(client, organizer)
    turns = [own.get(f"/t/{tournament.slug}/screen/?page={n}", **HTMX) for n in range(3)]
    client.logout()
    client.cookies.clear()
    for number, kept in enumerate(turns):
        seen = client.get(f"/t/{tournament.slug}/screen/?page={number}", **HTMX)
        assert seen.content == kept.content
        assert "Round 2" not in seen.content.decode()


# --- series ---------------------------------------------------------------------------------


def run_event(tournament, organizer, players, seed, committed):
    events.update_tournament(tournament, by=organizer, status="registration")
    for player in players:
        events.register_entrant(tournament, by=organizer, player=player)
    events.update_tournament(tournament, by=organizer, status="running")
    round_ = events.generate_round(tournament.stages.get(), by=organizer)
    events.publish_round(round_, by=organizer)
    with committed(execute=True):
        for match in round_.matches.filter(bye=False):
            play(match.game, organizer, random.Random(seed))


@pytest.fixture
def series_with_a_private_event(organizer, django_capture_on_commit_callbacks):
    """A public series of two played events, the second of them private."""
    series = create_series(
        by=organizer,
        name="Viernes",
        ruleset_key="cutthroat",
        table_size=4,
        stage_settings={"rounds": 1},
        series_points={"1": 10, "2": 6, "3": 4, "4": 2},
    )
    players = [PlayerFactory() for _ in range(4)]
    first = create_next_event(series, by=organizer)
    secret = create_next_event(series, by=organizer)
    events.update_tournament(secret, by=organizer, name="Secret final", public=False)
    run_event(first, organizer, players, 1, django_capture_on_commit_callbacks)
    run_event(secret, organizer, players, 2, django_capture_on_commit_callbacks)
    return series, first, secret


def test_a_private_events_results_stay_out_of_the_series_api_for_strangers(
    organizer, series_with_a_private_event
):
    series, first, secret = series_with_a_private_event
    for asker in (None, UserFactory()):
        standings = client_for(asker).get(f"/api/v1/series/{series.slug}/standings/").json()
        assert [e["slug"] for e in standings["events"]] == [first.slug]
        assert sorted(line["points"] for line in standings["lines"]) == [2, 4, 6, 10]
        assert all(r["event"] == 1 for line in standings["lines"] for r in line["results"])
        assert all(line["played"] == 1 for line in standings["lines"])
        assert standings["left_out"] == 1
        detail = client_for(asker).get(f"/api/v1/series/{series.slug}/").json()
        assert detail["standings"] == standings
    # The series' organizer sees every event it holds.
    own = client_for(organizer).get(f"/api/v1/series/{series.slug}/standings/").json()
    assert [e["slug"] for e in own["events"]] == [first.slug, secret.slug]
    assert all(line["played"] == 2 for line in own["lines"]) and own["left_out"] == 0


def test_a_private_events_results_stay_out_of_the_series_csv_and_page(
    client, organizer, series_with_a_private_event
):
    series, first, _ = series_with_a_private_event
    for url in (
        f"/api/v1/series/{series.slug}/standings.csv",
        f"/series/{series.slug}/standings.csv",
    ):
        body = b"".join(client.get(url).streaming_content).decode()
        header = body.splitlines()[0]
        assert header.endswith(",played,event_1")
        assert all(line.count(",") == header.count(",") for line in body.splitlines()[1:])
    page = client.get(f"/series/{series.slug}/").content.decode()
    assert first.name in page and "Secret final" not in page and "#2" not in page
    assert "count only its public events" in page
    own = signed_in(client, organizer).get(f"/series/{series.slug}/").content.decode()
    assert "Secret final" in own
    body = b"".join(client.get(f"/series/{series.slug}/standings.csv").streaming_content)
    assert body.decode().splitlines()[0].endswith(",event_1,event_2")

"""The live parts: tags that change only with what a viewer sees, unchanged polls answered
from the cache, cards rendered once per change, cache headers for a proxy in front."""

import random
import re
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from scoring.models import Game
from scoring.services import record_hand
from tests.factories import UserFactory
from tournaments import live, selectors, tasks
from tournaments.demo import play
from tournaments.models import Match, StandingsSnapshot
from tournaments.services import (
    add_stage,
    create_tournament,
    generate_round,
    publish_round,
    register_entrants,
    update_tournament,
    withdraw,
)
from tournaments.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def event(organizer):
    """Sixteen players at four tables of a published first round."""
    tournament = create_tournament(
        by=organizer, name="Copa en vivo", ruleset_key="cutthroat", table_size=4
    )
    update_tournament(tournament, by=organizer, status="registration")
    register_entrants(tournament, by=organizer, text="\n".join(f"P{i:02d}" for i in range(16)))
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 3}
    )
    update_tournament(tournament, by=organizer, status="running")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    return tournament, stage, round_


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


def poll_urls(client, tournament) -> tuple[str, str]:
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    standings = re.search(r'id="standings" hx-get="([^"]+)"', page).group(1)
    tables_url = re.search(r'id="tables" hx-get="([^"]+)"', page).group(1)
    return standings.replace("&amp;", "&"), tables_url.replace("&amp;", "&")


# --- the tag rules --------------------------------------------------------------------------


def test_a_hand_at_table_3_leaves_the_other_tables_and_the_standings_tags_unchanged(
    event, organizer, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    rebuild_standings(tournament.pk)
    before = dict(live.table_tags(round_))
    standings_before = selectors.standings_mark(tournament, stage).tag
    third = tables(round_)[2]
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(third.game, organizer)
    after = dict(live.table_tags(round_))
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
    with mock.patch.object(tasks, "request_recompute") as request:
        follow_game(Game, game_id=game.pk, change="hand_recorded", status="in_progress")
        assert request.call_count == 0
        follow_game(Game, game_id=game.pk, change="hand_recorded", status="finished")
        assert request.call_count == 1
        follow_game(Game, game_id=game.pk, change="hand_corrected", status="in_progress")
        assert request.call_count == 2
        tournament.include_live = True
        tournament.save(update_fields=["include_live"])
        follow_game(Game, game_id=game.pk, change="hand_recorded", status="in_progress")
        assert request.call_count == 3


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
        tasks.recompute_standings, "delay", side_effect=ConnectionError("broker down")
    ):
        tasks.request_recompute(tournament.pk)
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
    standings_url, tables_url = poll_urls(client, tournament)
    client.cookies.clear()
    assert client.get(standings_url, **HTMX).status_code == 204  # keeps the tag
    assert client.get(tables_url, **HTMX).status_code == 204
    with (
        CaptureQueriesContext(connection) as queries,
        mock.patch("django.template.loader.render_to_string") as render,
        mock.patch("django.template.base.Template.render") as template,
    ):
        assert client.get(standings_url, **HTMX).status_code == 204
        assert client.get(tables_url, **HTMX).status_code == 204
    assert len(queries) == 0, [query["sql"] for query in queries]
    render.assert_not_called()
    template.assert_not_called()


def test_an_unchanged_api_poll_makes_no_query(event):
    tournament, _, _ = event
    rebuild_standings(tournament.pk)
    api = APIClient()
    url = f"/api/v1/tournaments/{tournament.slug}/standings/"
    first = api.get(url)
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert len(queries) == 0


def test_an_unreachable_broker_tells_api_pollers_the_standings_are_stale(event, organizer):
    tournament, _, round_ = event
    rebuild_standings(tournament.pk)
    api = APIClient()
    url = f"/api/v1/tournaments/{tournament.slug}/standings/"
    first = api.get(url)
    game = tables(round_)[0].game
    with mock.patch.object(
        tasks.recompute_standings, "delay", side_effect=ConnectionError("broker down")
    ):
        play(game, organizer, random.Random(3))
        tasks.request_recompute(tournament.pk)  # what the finished game asks after commit
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED  # every hand kept
    again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again.json()["stale"] is True


def test_a_changed_table_re_renders_only_its_own_card(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    _, tables_url = poll_urls(client, tournament)
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[2].game, organizer)
    from django.template import loader

    real = loader.render_to_string
    with mock.patch.object(live, "render_to_string", side_effect=real) as cards:
        changed = client.get(tables_url, **HTMX)
    assert changed.status_code == 200
    assert cards.call_count == 1
    assert cards.call_args.args[1]["table"].match.table_number == 3
    assert changed.content.decode().count('class="table-card"') == 4
    # Every other viewer gets the same fragment from the cache.
    with mock.patch.object(live, "render_to_string", side_effect=real) as cards:
        assert client.get(tables_url, **HTMX).content == changed.content
    assert cards.call_count == 0


def test_a_changed_part_reaches_the_next_viewers_without_a_query(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    _, tables_url = poll_urls(client, tournament)
    client.cookies.clear()
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    first = client.get(tables_url, **HTMX)
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        second = client.get(tables_url, **HTMX)
    assert len(queries) == 0
    assert second.content == first.content and second["ETag"] == first["ETag"]


def test_a_tournament_made_private_stops_answering_from_the_cache(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, round_ = event
    standings_url, tables_url = poll_urls(client, tournament)
    client.cookies.clear()
    with django_capture_on_commit_callbacks(execute=True):
        one_hand(tables(round_)[0].game, organizer)
    assert client.get(tables_url, **HTMX).status_code == 200  # kept for the next viewers
    assert client.get(standings_url, **HTMX).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        update_tournament(tournament, by=organizer, public=False)
    assert client.get(tables_url, **HTMX).status_code == 404
    assert client.get(standings_url, **HTMX).status_code == 404


# --- following the round ----------------------------------------------------------------------


def test_the_tables_poll_moves_to_a_newly_published_round(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, stage, round_ = event
    _, tables_url = poll_urls(client, tournament)
    assert client.get(tables_url, **HTMX).status_code == 204
    for match in tables(round_):
        play(match.game, organizer, random.Random(match.table_number))
    with django_capture_on_commit_callbacks(execute=True):
        second = generate_round(stage, by=organizer)
        publish_round(second, by=organizer)
    moved = client.get(tables_url, **HTMX)
    assert moved.status_code == 200
    assert "Round 2" in moved.content.decode()


def test_a_chosen_round_stays_chosen(client, event, organizer, django_capture_on_commit_callbacks):
    tournament, stage, round_ = event
    for match in tables(round_):
        play(match.game, organizer, random.Random(match.table_number))
    with django_capture_on_commit_callbacks(execute=True):
        publish_round(generate_round(stage, by=organizer), by=organizer)
    page = client.get(f"/t/{tournament.slug}/?stage={stage.order}&round=1").content.decode()
    url = re.search(r'id="tables" hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert "round=1&" in url
    assert client.get(url, **HTMX).status_code == 204


def test_a_staff_view_of_a_draft_round_never_reaches_the_public(client, event, organizer):
    tournament, stage, round_ = event
    for match in tables(round_):
        play(match.game, organizer, random.Random(match.table_number))
    generate_round(stage, by=organizer)  # a draft only staff see
    _, public_url = poll_urls(client, tournament)
    bare = public_url.split("&since=")[0]
    assert client.get(public_url, **HTMX).status_code == 204  # the public tag is kept
    client.force_login(organizer)
    _, staff_url = poll_urls(client, tournament)
    assert "since=p" in public_url and "since=s" in staff_url
    staff = client.get(bare, **HTMX)
    assert "Round 2" in staff.content.decode()
    assert "private" in staff["Cache-Control"]
    client.logout()
    client.cookies.clear()
    assert client.get(public_url, **HTMX).status_code == 204
    public = client.get(bare, **HTMX)
    assert "Round 1" in public.content.decode() and "Round 2" not in public.content.decode()


# --- headers for a proxy in front -------------------------------------------------------------


def test_public_live_parts_carry_headers_a_proxy_can_cache_by(client, event, organizer):
    tournament, _, _ = event
    standings_url, tables_url = poll_urls(client, tournament)
    client.cookies.clear()
    fresh = client.get(tables_url.split("&since=")[0], **HTMX)
    assert fresh.status_code == 200
    assert "public" in fresh["Cache-Control"]
    assert f"max-age={live.PUBLIC_SECONDS}" in fresh["Cache-Control"]
    assert f"s-maxage={live.PUBLIC_SECONDS}" in fresh["Cache-Control"]
    assert "Accept-Language" in fresh["Vary"] and "Cookie" in fresh["Vary"]
    tag = fresh["ETag"]
    assert tag == f'"{tables_url.split("since=")[1]}"'
    conditional = client.get(tables_url.split("&since=")[0], HTTP_IF_NONE_MATCH=tag)
    assert conditional.status_code == 304
    unchanged = client.get(standings_url, **HTMX)
    assert unchanged.status_code == 204
    assert "public" in unchanged["Cache-Control"]

    page = client.get(f"/t/{tournament.slug}/")
    assert "private" in page["Cache-Control"]  # it holds the visitor's CSRF token
    client.force_login(organizer)
    staff = client.get(tables_url.split("&since=")[0], **HTMX)
    assert "private" in staff["Cache-Control"] and "public" not in staff["Cache-Control"]


def test_a_spanish_viewer_gets_the_spanish_fragment_not_the_cached_english_one(client, event):
    tournament, _, _ = event
    _, tables_url = poll_urls(client, tournament)
    bare = tables_url.split("&since=")[0]
    english = client.get(bare, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    spanish = client.get(bare, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Table 1" in english
    assert "Mesa 1" in spanish


def test_a_withdrawal_reaches_the_pollers_at_once(
    client, event, organizer, django_capture_on_commit_callbacks
):
    tournament, _, _ = event
    standings_url, tables_url = poll_urls(client, tournament)
    assert client.get(standings_url, **HTMX).status_code == 204
    assert client.get(tables_url, **HTMX).status_code == 204
    entrant = tournament.entrants.order_by("seed").first()
    with django_capture_on_commit_callbacks(execute=True):
        withdraw(entrant, by=organizer)
    # The parts are rebuilt from the database rather than answered from the old tags.
    with CaptureQueriesContext(connection) as queries:
        client.get(standings_url, **HTMX)
    assert len(queries) > 0

"""The HTML pages, per page and role: public, referee, organizer, stranger."""

import random
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.models import Game, Hand, ScoreEvent
from tests.factories import UserFactory, bulk_event, event_referee, start_game
from tournaments import services
from tournaments.demo import play
from tournaments.models import Match, Tournament

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def make_event(organizer, *, players=8, public=True, name="Copa Capicú", slug=""):
    tournament = services.create_tournament(
        by=organizer,
        name=name,
        slug=slug,
        ruleset_key="cutthroat",
        table_size=4,
        public=public,
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Player {i:02d}" for i in range(players))
    )
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    return tournament, round_


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def referee():
    return UserFactory(username="referee")


@pytest.fixture
def event(organizer, referee):
    tournament, round_ = make_event(organizer)
    event_referee(tournament, user=referee)
    matches = list(round_.matches.order_by("table_number"))
    for match in matches:
        services.assign_referee(match, referee, by=organizer)
    play(matches[0].game, organizer, random.Random(7))
    play(matches[1].game, organizer, random.Random(8), hands=2)
    return tournament, matches


def live_game(matches) -> Game:
    return Game.objects.get(pk=matches[1].game_id)


# --- public pages ------------------------------------------------------------------------


def test_public_pages_render_for_anyone(client, event):
    tournament, matches = event
    home = client.get("/")
    assert home.status_code == 200
    assert tournament.name in home.content.decode()

    page = client.get(f"/t/{tournament.slug}/")
    body = page.content.decode()
    assert page.status_code == 200
    assert "Four players, each for themselves to 250" in body or "4 players" in body
    assert 'id="standings"' in body and 'id="tables"' in body
    assert "Table 1" in body and "Table 2" in body
    entrant = matches[0].seats.first().entrant
    assert entrant.name in body

    player = client.get(f"/t/{tournament.slug}/entrants/{entrant.pk}/")
    assert player.status_code == 200
    assert "Round robin, round 1, table 1" in player.content.decode()

    game = client.get(f"/games/{matches[0].game_id}/")
    text = game.content.decode()
    assert game.status_code == 200
    assert "<svg" in text and "target 250" in text
    finished = Game.objects.get(pk=matches[0].game_id)
    assert text.count('<th scope="row">') == finished.hand_count
    assert tournament.name in text  # the link back to the tournament


def test_private_and_draft_events_are_hidden_from_the_public(client, organizer):
    private, _ = make_event(organizer, public=False, name="Private night", slug="private")
    draft = services.create_tournament(by=organizer, name="Not yet", ruleset_key="cutthroat")
    assert client.get("/t/private/").status_code == 404
    assert "Private night" not in client.get("/").content.decode()
    assert "Not yet" not in client.get("/").content.decode()
    game = Match.objects.filter(round__stage__tournament=private).first().game
    assert client.get(f"/games/{game.pk}/").status_code == 404
    client.force_login(organizer)
    assert client.get("/t/private/").status_code == 200
    assert client.get(f"/t/{draft.slug}/").status_code == 200
    assert client.get(f"/games/{game.pk}/").status_code == 200


def test_unknown_pages_are_404(client, event):
    tournament, _ = event
    assert client.get("/t/nope/").status_code == 404
    assert client.get("/games/999999/").status_code == 404
    assert client.get(f"/t/{tournament.slug}/entrants/999999/").status_code == 404


def test_live_regions_answer_204_while_nothing_changed(
    client, event, organizer, monkeypatch, django_capture_on_commit_callbacks
):
    from tournaments.read import live as live_parts

    monkeypatch.setattr(live_parts, "TABLES_HOLD", 0)  # a hand shows at the next poll
    tournament, matches = event
    game = live_game(matches)
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    poll = re.search(r'id="live" hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert client.get(poll, **HTMX).status_code == 204
    live = f"/games/{game.pk}/?since={game.revision}"
    assert client.get(live, **HTMX).status_code == 204

    with django_capture_on_commit_callbacks(execute=True):
        play(game, organizer, random.Random(9), hands=1)
    changed = client.get(poll, **HTMX).content.decode()
    game.refresh_from_db()
    assert str(game.total_of("A")) in changed
    # A hand of a game still being played cannot move a standing.
    assert 'id="standings"' not in changed
    assert client.get(live, **HTMX).status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        play(game, organizer, random.Random(9))  # to the end: standings follow on commit
    standings = client.get(poll, **HTMX)
    assert standings.status_code == 200
    assert 'id="standings"' in standings.content.decode()
    assert "<table" in standings.content.decode()


def test_bracket_is_drawn_with_slots_still_to_play(client, organizer):
    cup = services.create_tournament(
        by=organizer, name="Cup", ruleset_key="cutthroat", table_size=2, slug="cup"
    )
    services.register_entrants(cup, by=organizer, text="\n".join(f"P{i}" for i in range(8)))
    stage = services.add_stage(cup, by=organizer, name="Bracket", format="single_elimination")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    play(round_.matches.order_by("table_number").first().game, organizer, random.Random(3))
    body = client.get("/t/cup/").content.decode()
    assert 'class="bracket"' in body
    assert "Round 3" in body  # the final, not yet seated, is drawn
    assert "winner of R1-1" in body or "winner of R2-1" in body


# --- referee pages -----------------------------------------------------------------------


def test_referee_pages_need_a_login_and_the_right_role(client, event, referee):
    _, matches = event
    game = live_game(matches)
    for url in ("/referee/", f"/games/{game.pk}/score/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    client.force_login(UserFactory(username="stranger"))
    assert client.get(f"/games/{game.pk}/score/").status_code == 403
    assert client.post(f"/games/{game.pk}/score/hand/", {}).status_code == 403
    client.force_login(referee)
    tables = client.get("/referee/").content.decode()
    assert tables.index(str(game)) < tables.index(str(matches[0].game))  # in play first
    assert client.get(f"/games/{game.pk}/score/").status_code == 200


def hand_form(client, game: Game) -> dict:
    """The scoring page's hand form fields as the browser would send them."""
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    key = re.search(r'name="idempotency_key" value="([0-9a-f]+)"', page).group(1)
    return {"number": game.hand_count + 1, "idempotency_key": key}


def test_referee_records_a_hand_once_even_when_the_form_is_sent_twice(client, event, referee):
    _, matches = event
    game = live_game(matches)
    before = game.hand_count
    client.force_login(referee)
    data = hand_form(client, game) | {
        "ending": "A",
        "pips_B": "10",
        "pips_C": "12",
        "pips_D": "3",
    }
    first = client.post(f"/games/{game.pk}/score/hand/", data, **HTMX)
    assert first.status_code == 200
    assert f"Hand {before + 1} saved" in first.content.decode()
    again = client.post(f"/games/{game.pk}/score/hand/", data, **HTMX)
    assert "was already saved; it was not counted twice" in again.content.decode()
    game.refresh_from_db()
    assert game.hand_count == before + 1
    hand = Hand.objects.get(game=game, number=before + 1)
    assert hand.pips == {"A": 0, "B": 10, "C": 12, "D": 3}
    assert hand.awards["A"] == 25  # 25 pips, to the nearest five


def test_bad_hands_are_refused_beside_the_field_and_nothing_is_stored(client, event, referee):
    _, matches = event
    game = live_game(matches)
    before = game.hand_count
    client.force_login(referee)
    data = hand_form(client, game)
    missing = client.post(f"/games/{game.pk}/score/hand/", data | {"ending": "block"})
    assert missing.status_code == 400
    text = missing.content.decode()
    names = {seat.name: seat.display_name for seat in game.seats.all()}
    assert f"Give the pips left in {names['A']}&#x27;s hand" in text
    too_many = client.post(
        f"/games/{game.pk}/score/hand/",
        data | {"ending": "block", "pips_A": "99", "pips_B": "1", "pips_C": "2", "pips_D": "3"},
        **HTMX,
    )
    body = too_many.content.decode()
    assert f"{names['A']} cannot hold 99 pips" in body
    no_ending = client.post(f"/games/{game.pk}/score/hand/", data | {"pips_A": "1"})
    assert "Say who dominoed, or that the hand was blocked." in no_ending.content.decode()
    game.refresh_from_db()
    assert game.hand_count == before


HUGE = ["2147483648", "4294967306", str(2**63), str(10**30)]


def stored(game: Game) -> tuple:
    game.refresh_from_db()
    return (
        Hand.objects.filter(game=game).count(),
        ScoreEvent.objects.filter(game=game).count(),
        game.totals,
        game.revision,
    )


@pytest.mark.parametrize("value", [*HUGE, "337"])
def test_the_hand_form_refuses_numbers_no_hand_holds(client, event, referee, value):
    _, matches = event
    game = live_game(matches)
    client.force_login(referee)
    before = stored(game)
    data = hand_form(client, game) | {"ending": "block", "pips_B": "1", "pips_C": "2"}
    response = client.post(f"/games/{game.pk}/score/hand/", data | {"pips_A": value, "pips_D": "3"})
    assert response.status_code == 400
    assert "No hand holds more than 336 pips." in response.content.decode()
    wrong_number = client.post(
        f"/games/{game.pk}/score/hand/", data | {"pips_A": "4", "pips_D": "3", "number": value}
    )
    assert wrong_number.status_code == 400
    assert stored(game) == before


@pytest.mark.parametrize(
    ("kind", "value"),
    [("penalty", v) for v in [*HUGE, "501", "-4294967306"]] + [("in_play", v) for v in HUGE],
)
def test_points_during_play_outside_their_range_are_refused(client, event, referee, kind, value):
    _, matches = event
    game = live_game(matches)
    client.force_login(referee)
    before = stored(game)
    post = {"seat": "B", "kind": kind, "points": value, "hand": game.hand_count + 1, "key": value}
    response = client.post(f"/games/{game.pk}/score/event/", post, **HTMX)
    assert "Ensure this value" in response.content.decode() or "A penalty deducts" in (
        response.content.decode()
    )
    assert stored(game) == before


def test_a_correction_with_a_version_beyond_its_column_is_refused(client, event, referee):
    _, matches = event
    game = live_game(matches)
    client.force_login(referee)
    before = stored(game)
    url = f"/games/{game.pk}/score/hands/1/"
    base = {"number": 1, "ending": "block", "reason": "pips miscounted"}
    base |= {"pips_A": "5", "pips_B": "10", "pips_C": "15", "pips_D": "20"}
    for value in HUGE:
        assert client.post(url, base | {"expected_version": value}).status_code == 400
    assert stored(game) == before


def test_preview_shows_the_award_and_stores_nothing(client, event, referee):
    _, matches = event
    game = live_game(matches)
    client.force_login(referee)
    data = hand_form(client, game) | {"ending": "block", "pips_A": "4", "pips_B": "10"}
    partial = client.post(f"/games/{game.pk}/score/preview/", data).content.decode()
    assert "Fill in" in partial or "Give the pips" in partial
    data |= {"pips_C": "12", "pips_D": "9"}
    preview = client.post(f"/games/{game.pk}/score/preview/", data).content.decode()
    # A block: A holds fewest and scores the others' 10 + 12 + 9 less its own 4 = 27 -> 25.
    assert "If confirmed" in preview and "+25" in preview
    assert Hand.objects.filter(game=game).count() == Game.objects.get(pk=game.pk).hand_count


def test_in_play_points_count_once_and_can_be_undone(client, event, referee):
    _, matches = event
    game = live_game(matches)
    client.force_login(referee)
    number = game.hand_count + 1
    post = {"seat": "B", "kind": "in_play", "points": "15", "hand": number, "key": "k-1"}
    client.post(f"/games/{game.pk}/score/event/", post, **HTMX)
    repeat = client.post(f"/games/{game.pk}/score/event/", post, **HTMX)
    assert "Already counted" in repeat.content.decode()
    events = ScoreEvent.objects.filter(game=game, hand_number=number, active=True)
    assert [e.points for e in events] == [15]
    penalty = {"seat": "C", "kind": "penalty", "hand": number, "key": "k-2"}
    client.post(f"/games/{game.pk}/score/event/", penalty)
    assert events.filter(kind="penalty").get().points == -10
    before = Game.objects.get(pk=game.pk).total_of("B")
    undo = client.post(f"/games/{game.pk}/score/undo/{events.get(kind='in_play').pk}/")
    assert undo.status_code == 302
    assert Game.objects.get(pk=game.pk).total_of("B") == before - 15


def test_a_correction_needs_a_reason_and_the_current_version(client, event, referee):
    _, matches = event
    game = live_game(matches)
    client.force_login(referee)
    url = f"/games/{game.pk}/score/hands/1/"
    form = client.get(url)
    assert form.status_code == 200
    current = Hand.objects.get(game=game, number=1, is_current=True)
    base = {"number": 1, "expected_version": current.version, "ending": "block"}
    base |= {"pips_A": "5", "pips_B": "10", "pips_C": "15", "pips_D": "20"}
    no_reason = client.post(url, base)
    assert no_reason.status_code == 400
    assert "Say why the hand is being corrected." in no_reason.content.decode()
    stale = client.post(url, base | {"reason": "pips miscounted", "expected_version": 99})
    assert stale.status_code == 400
    assert "was changed meanwhile" in stale.content.decode()
    done = client.post(url, base | {"reason": "pips miscounted"})
    assert done.status_code == 302
    fixed = Hand.objects.get(game=game, number=1, is_current=True)
    assert fixed.version == current.version + 1 and fixed.ended == "block"
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "corrected (version 2): pips miscounted" in page


def test_a_finished_game_shows_its_winner_and_takes_no_more_hands(client, event, referee):
    _, matches = event
    game = Game.objects.get(pk=matches[0].game_id)
    client.force_login(referee)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert "Game over. Winner:" in page
    assert "Confirm hand" not in page
    data = {"number": game.hand_count + 1, "ending": "A", "pips_B": "1", "pips_C": "1"}
    refused = client.post(f"/games/{game.pk}/score/hand/", data | {"pips_D": "1"})
    assert refused.status_code == 400
    assert "This game is finished" in refused.content.decode()


# --- performance -------------------------------------------------------------------------


def page_queries(client, slug: str) -> int:
    connection.queries_log.clear()  # a full log (9,000 entries) would capture nothing
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/t/{slug}/")
    assert response.status_code == 200
    assert len(queries) > 0
    return len(queries)


def test_tournament_page_queries_do_not_grow_with_the_field(client, organizer):
    _, round_small = make_event(organizer, players=8, slug="small")
    _, round_large = make_event(organizer, players=40, name="Large", slug="large")
    for round_ in (round_small, round_large):
        for match in round_.matches.all()[:2]:
            play(match.game, organizer, random.Random(match.pk), hands=2)
    assert Tournament.objects.get(slug="large").entrants.count() == 40
    assert page_queries(client, "small") == page_queries(client, "large")


def test_tournament_page_for_1024_entrants_makes_as_many_queries_as_for_16(client):
    from tournaments.read.standings_store import rebuild_standings

    small, _ = bulk_event(16, 1)
    large, _ = bulk_event(1024, 1)
    for tournament in (small, large):
        rebuild_standings(tournament.pk)
    assert large.entrants.count() == 1024
    small_queries = page_queries(client, small.slug)
    assert small_queries == page_queries(client, large.slug)
    assert small_queries <= 20


@pytest.mark.parametrize("wanted", ["²", "\u0661", "99999999999999999999999", "-1", "x"])
@pytest.mark.parametrize("page", ["/t/{slug}/", "/t/{slug}/live/", "/t/{slug}/screen/"])
def test_public_pages_read_a_number_they_cannot_use_as_no_choice(client, event, page, wanted):
    tournament, _ = event
    url = page.format(slug=tournament.slug)
    plain = client.get(url)
    odd = client.get(url, {"stage": wanted, "round": wanted, "page": wanted})
    assert plain.status_code == odd.status_code == 200
    assert comparable(odd.content, url) == comparable(plain.content, url)


def comparable(html: bytes, url: str) -> bytes:
    """A page without its CSRF token and the way back to it (which repeats the query)."""
    html = re.sub(rb"[A-Za-z0-9]{64}", b"", html)
    return re.sub(rb"next=[^\"]*\"|name=\"next\" value=\"[^\"]*\"", b"", html)


def test_steal_button_takes_from_the_seat_the_referee_names(client):
    referee = UserFactory()
    game = start_game("two_box_cutthroat", 4, referee=referee)
    client.force_login(referee)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert 'name="from_seat"' in page and "the previous seat" in page
    url = f"/games/{game.pk}/score/event/"
    client.post(url, {"seat": "A", "kind": "in_play", "points": "10", "hand": 1, "key": "p-1"})
    steal = {"seat": "C", "kind": "steal", "points": "10", "hand": 1, "key": "p-2"}
    client.post(url, steal | {"from_seat": "A"}, **HTMX)
    assert Game.objects.get(pk=game.pk).totals == {"A": 0, "B": 0, "C": 10, "D": 0}
    client.post(url, steal | {"seat": "D", "from_seat": "", "key": "p-3"}, **HTMX)
    assert Game.objects.get(pk=game.pk).totals == {"A": 0, "B": 0, "C": 0, "D": 10}


# --- printing and language ---------------------------------------------------------------

ES = {"HTTP_ACCEPT_LANGUAGE": "es"}


def test_game_pages_name_their_table_in_the_pages_language(client, event, referee):
    _, matches = event
    game_id = matches[0].game_id
    client.force_login(referee)
    pages = [
        f"/games/{game_id}/",
        f"/games/{game_id}/score/",
        f"/games/{game_id}/sheet/",
        f"/games/{game_id}/score/hands/1/",
        "/referee/",
    ]
    for url in pages:
        spanish = client.get(url, **ES)
        assert spanish.status_code == 200, url
        assert "Round robin · ronda 1, mesa 1" in spanish.content.decode(), url
        assert "round 1, table 1" not in spanish.content.decode(), url
        english = client.get(url)
        assert "Round robin · round 1, table 1" in english.content.decode(), url


def test_the_game_chart_says_its_target_in_spanish(client, event):
    _, matches = event
    body = client.get(f"/games/{matches[0].game_id}/", **ES).content.decode()
    assert "meta 250" in body and "target 250" not in body
    assert "Total acumulado después de cada mano" in body and "Meta 250." in body


def test_a_game_outside_a_tournament_keeps_its_own_label(client):
    from tests.factories import start_game

    game = start_game(label="Friday friendly", public=True)
    assert "Friday friendly" in client.get(f"/games/{game.pk}/", **ES).content.decode()


def test_the_filled_sheet_names_the_assigned_referee(client, event, referee):
    _, matches = event
    body = client.get(f"/games/{matches[0].game_id}/sheet/").content.decode()
    assert f"Referee: <strong>{referee.username}</strong>" in body


def test_the_tournament_header_names_a_stage_once_when_its_name_is_its_format(client, event):
    tournament, _ = event
    for headers in ({}, ES):
        body = client.get(f"/t/{tournament.slug}/", **headers).content.decode()
        assert "Round robin (round robin)" not in body
        assert "Round robin (todos contra todos)" not in body
        assert "· Round robin</p>" in body


def test_a_new_events_standings_give_no_reasons_before_any_game(client, organizer):
    from tournaments.read.standings_store import rebuild_standings

    tournament, _ = make_event(organizer, players=12, slug="nuevo")
    rebuild_standings(tournament.pk)
    body = client.get("/t/nuevo/").content.decode()
    assert "Player 00" in body
    assert "ahead on" not in body and 'class="reason"' not in body
    assert "No game played yet." in body
    spanish = client.get("/t/nuevo/", **ES).content.decode()
    assert "Todavía no se ha jugado ninguna partida." in spanish


def test_standings_give_reasons_once_a_game_is_played(client, event):
    from tournaments.read.standings_store import rebuild_standings

    tournament, _ = event
    rebuild_standings(tournament.pk)
    body = client.get(f"/t/{tournament.slug}/").content.decode()
    assert 'class="reason"' in body
    assert "No game played yet." not in body

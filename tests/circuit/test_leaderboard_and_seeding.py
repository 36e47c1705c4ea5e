"""Leaderboards (page and API), a player's ratings (API and the player page's part),
seeding an event by rating (service, API and the manage page's button)."""

import pytest
from django.template.loader import render_to_string

from circuit.models import Rating
from circuit.services.common import CircuitConflict
from circuit.services.seeding import seed_by_rating
from tests.circuit.helpers import played_game
from tests.factories import PlayerFactory, UserFactory, client_for
from tournaments import services as events

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(committed):
    """Six players, three games: players 0 to 3 and 2 to 5, then 0 to 3 again."""
    players = [PlayerFactory(display_name=f"P{n}") for n in range(6)]
    by = UserFactory()
    for seed, seats in enumerate((players[:4], players[2:], players[:4])):
        played_game(seats, by=by, seed=seed, committed=committed)
    return players


def test_the_leaderboard_lists_players_with_enough_games_best_first(rated, client):
    everyone = client_for(None).get("/api/v1/ratings/individual/?min_games=0").json()
    assert everyone["count"] == 6
    ordinals = [row["ordinal"] for row in everyone["results"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert [row["rank"] for row in everyone["results"]] == [1, 2, 3, 4, 5, 6]
    regulars = client_for(None).get("/api/v1/ratings/individual/?min_games=3").json()
    assert {row["name"] for row in regulars["results"]} == {"P2", "P3"}
    assert client_for(None).get("/api/v1/ratings/individual/?min_games=-1").status_code == 400
    assert client_for(None).get("/api/v1/ratings/chess/").status_code == 404
    assert client_for(None).get("/api/v1/ratings/partners/").json()["count"] == 0

    page = client.get("/ratings/?min_games=3", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    # The names in the table only: a page's tokens (CSRF, CSP nonce) may hold "P0".
    rows = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert "<h1>Ranking</h1>" in page and "P2" in rows and "P0" not in rows
    assert client.get("/ratings/?min_games=zz").status_code == 200  # the default instead
    assert client.get("/ratings/none/").status_code == 404


def test_a_players_ratings_and_history(rated):
    player = rated[2]
    body = client_for(None).get(f"/api/v1/players/{player.pk}/ratings/").json()
    assert [entry["pool"] for entry in body] == ["individual"]
    (entry,) = body
    assert entry["games"] == 3 and [h["games"] for h in entry["history"]] == [1, 2, 3]
    assert entry["ordinal"] == entry["history"][-1]["ordinal"]
    assert client_for(None).get("/api/v1/players/999999/ratings/").status_code == 404

    part = render_to_string("players/_ratings.html", {"player": player})
    assert "<svg" in part and "after 3 games" in part and "<desc>" in part
    nothing = render_to_string("players/_ratings.html", {"player": PlayerFactory()})
    assert "No rated games yet." in nothing


def make_event(organizer, players, *, format="swiss"):
    tournament = events.create_tournament(
        by=organizer, name="Seeded", ruleset_key="cutthroat", table_size=4
    )
    for player in reversed(players):  # registered weakest first, on purpose
        events.register_entrant(tournament, by=organizer, player=player)
    events.register_entrant(tournament, by=organizer, name="Newcomer")
    events.add_stage(tournament, by=organizer, name="Swiss", format=format, settings={"rounds": 2})
    return tournament


def test_seeding_by_rating_orders_the_entrants_and_round_one_follows(rated):
    organizer = UserFactory()
    tournament = make_event(organizer, rated)
    ranked = seed_by_rating(tournament, by=organizer)
    ordinals = {r.player_id: r.ordinal for r in Rating.objects.filter(pool="individual")}
    expected = sorted(rated, key=lambda p: -ordinals[p.pk])
    assert [e.player_id for e in ranked[:6]] == [p.pk for p in expected]
    assert ranked[-1].name == "Newcomer" and [e.seed for e in ranked] == list(range(1, 8))
    events.update_tournament(tournament, by=organizer, status="running")
    round_ = events.generate_round(tournament.stages.get(), by=organizer)
    # A Swiss round 1 pairs by seed, so the best rated share the first table.
    top = round_.matches.order_by("table_number").first()
    seeds = set(top.seats.values_list("entrant__seed", flat=True))
    assert seeds == set(range(1, len(seeds) + 1)) and len(seeds) >= 3
    with pytest.raises(CircuitConflict):
        seed_by_rating(tournament, by=organizer)


def test_the_api_and_the_button_seed_by_rating(rated, client):
    organizer = UserFactory()
    tournament = make_event(organizer, rated)
    answer = client_for(organizer).post(f"/api/v1/tournaments/{tournament.slug}/seed-by-rating/")
    assert answer.status_code == 200
    assert [e["seed"] for e in answer.json()["entrants"]] == list(range(1, 8))
    stranger = client_for(UserFactory())
    assert (
        stranger.post(f"/api/v1/tournaments/{tournament.slug}/seed-by-rating/").status_code == 403
    )
    assert (
        client_for(None).post(f"/api/v1/tournaments/{tournament.slug}/seed-by-rating/").status_code
        == 401
    )

    client.force_login(organizer)
    manage = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Seed by rating" in manage
    response = client.post(f"/t/{tournament.slug}/seed-by-rating/", follow=True)
    assert "Seeds given by rating to 7 entrants." in response.content.decode()

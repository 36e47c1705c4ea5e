"""Many phones at once, on PostgreSQL: nothing lost, one hand per number."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from scoring.models import Hand
from tests.factories import UserFactory, start_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PIPS = {"A": 8, "B": 15, "C": 22, "D": 12}


def post_hand(user, game_id: int, number: int, results: list, barrier: threading.Barrier):
    client = APIClient()
    client.force_authenticate(user)
    try:
        barrier.wait(timeout=30)
        response = client.post(
            f"/api/v1/games/{game_id}/hands/",
            {"number": number, "ended": "block", "pips": PIPS},
            format="json",
        )
        results.append((game_id, response.status_code, response.json()))
    finally:
        connection.close()


def run_threads(targets):
    threads = [threading.Thread(target=post_hand, args=args) for args in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)


def test_twenty_threads_posting_to_twenty_games_lose_nothing():
    referee = UserFactory()
    games = [start_game("cutthroat", 4, referee=referee) for _ in range(20)]
    for round_number in (1, 2, 3):
        results: list = []
        barrier = threading.Barrier(len(games))
        run_threads([(referee, game.pk, round_number, results, barrier) for game in games])
        assert sorted(status for _, status, _ in results) == [201] * 20
    for game in games:
        assert Hand.objects.filter(game=game).count() == 3
        game.refresh_from_db()
        assert game.totals == {
            "A": 120,
            "B": 0,
            "C": 0,
            "D": 0,
        }


def test_two_devices_posting_the_same_hand_give_one_hand_and_one_conflict():
    referee = UserFactory()
    game = start_game("cutthroat", 4, referee=referee)
    for attempt in range(5):
        results: list = []
        barrier = threading.Barrier(2)
        run_threads([(referee, game.pk, attempt + 1, results, barrier)] * 2)
        statuses = sorted(status for _, status, _ in results)
        assert statuses == [201, 409], results
        conflict = next(body for _, status, body in results if status == 409)
        assert "already recorded" in conflict["detail"]
        assert conflict["game"]["next_hand"] == attempt + 2
    assert Hand.objects.filter(game=game).count() == 5


def test_a_retry_racing_its_original_replays_it():
    referee = UserFactory()
    game = start_game("cutthroat", 4, referee=referee)
    results: list = []
    barrier = threading.Barrier(2)

    def post(results):
        client = APIClient()
        client.force_authenticate(referee)
        try:
            barrier.wait(timeout=30)
            response = client.post(
                f"/api/v1/games/{game.pk}/hands/",
                {"number": 1, "ended": "block", "pips": PIPS},
                format="json",
                HTTP_IDEMPOTENCY_KEY="same-phone-1",
            )
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(results,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert [status for status, _ in results] == [201, 201]
    assert results[0][1] == results[1][1]
    assert Hand.objects.filter(game=game).count() == 1

"""Time recording a hand through the API against a floor endpoint that inserts one row.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/capicu .venv/bin/python bench/record_hand.py

Creates a throwaway test database, posts hands through the real API with Django's test
client and a token, and prints the median per hand next to the median of a minimal
authenticated endpoint that inserts one row (the floor), measured in the same run.
Target: a ratio of at most 2.
"""

import os
import statistics
import time

from bootstrap import throwaway_database
from django.conf import settings
from django.test.utils import override_settings
from django.urls import include, path
from rest_framework.authtoken.models import Token
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from players.models import Player

HANDS = int(os.environ.get("BENCH_HANDS", "300"))
GAMES = 10


class FloorView(APIView):
    """The least an authenticated write can do: check the token and insert one row."""

    permission_classes = [IsAuthenticated]

    def post(self, request):
        player = Player.objects.create(display_name=request.data.get("name", "floor"))
        return Response({"id": player.pk}, status=201)


urlpatterns = [
    path("floor/", FloorView.as_view()),
    path("", include("config.urls")),
]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    with throwaway_database(), override_settings(ROOT_URLCONF=__name__, DEBUG=False):
        run()


def run() -> None:
    from django.contrib.auth import get_user_model

    from scoring.bounds import TARGET_RANGE
    from scoring.services import start_game

    user = get_user_model().objects.create_user("bench-referee")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    games = [
        start_game(
            ruleset_key="cutthroat",
            seats=[Player.objects.create(display_name=f"P{g}-{i}") for i in range(4)],
            referees=[user],
            # The highest target a rule set takes: the 60 hands each game gets here
            # (about 2,400 points) never finish it.
            overrides={"target": TARGET_RANGE[1]},
        )
        for g in range(GAMES)
    ]
    pips = {"A": 8, "B": 15, "C": 22, "D": 12}
    # Warm up both paths (imports, connection, caches).
    for warm in range(5):
        client.post("/floor/", {"name": f"warm {warm}"}, format="json")
    # A referee's page records in-play points live, as events, and then the end of the
    # hand alone; an API client may send the in-play points with the hand instead.
    variants = {
        "end of hand only": {"ended": "block", "pips": pips},
        "with in-play points": {
            "ended": "block",
            "pips": pips,
            "in_play": [{"seat": "B", "points": 10}],
        },
    }
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"database: {engine}; {HANDS} hands per variant over {GAMES} games")
    number = 0
    for label, body in variants.items():
        hand_times, floor_times = [], []
        for index in range(HANDS):
            game = games[index % GAMES]
            if index % GAMES == 0:
                number += 1
            started = time.perf_counter()
            response = client.post(
                f"/api/v1/games/{game.pk}/hands/", {"number": number, **body}, format="json"
            )
            hand_times.append(time.perf_counter() - started)
            assert response.status_code == 201, response.content
            started = time.perf_counter()
            # A name of its own per row: one person per name and club.
            response = client.post("/floor/", {"name": f"row {label} {index}"}, format="json")
            floor_times.append(time.perf_counter() - started)
            assert response.status_code == 201, response.content
        hand, floor = median_ms(hand_times), median_ms(floor_times)
        print(
            f"record a hand, {label}: median {hand:.2f} ms; floor median {floor:.2f} ms; "
            f"ratio {hand / floor:.2f}x (target <= 2x)"
        )


if __name__ == "__main__":
    main()

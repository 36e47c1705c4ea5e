"""Seeding an event by rating writes its seeds in the same few queries whatever the size
of the field, and leaves them 1, 2, 3 ... in rating order."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from circuit.models import Rating
from circuit.services.seeding import seed_by_rating
from tests.factories import PlayerFactory, UserFactory
from tournaments import services

pytestmark = pytest.mark.django_db


def seeded(entrants: int) -> tuple[list[int], list[float], int]:
    """Seed an event of ``entrants`` rated players by rating: (seeds, ordinals in seed
    order, queries)."""
    organizer = UserFactory()
    tournament = services.create_tournament(
        by=organizer, name=f"Open {entrants}", ruleset_key="cutthroat", table_size=2
    )
    players = [PlayerFactory(display_name=f"Open{entrants} P{n}") for n in range(entrants)]
    for number, player in enumerate(players):
        Rating.objects.create(
            pool="individual", player=player, mu=25, sigma=8, ordinal=float(number % 7), games=1
        )
        services.register_entrant(tournament, by=organizer, name=player.display_name)
    with CaptureQueriesContext(connection) as queries:
        ranked = seed_by_rating(tournament, by=organizer)
    ordinals = dict(Rating.objects.values_list("player_id", "ordinal"))
    entrants_now = list(tournament.entrants.order_by("seed"))
    assert [e.pk for e in ranked] == [e.pk for e in entrants_now]
    return (
        [entrant.seed for entrant in entrants_now],
        [ordinals[entrant.player_id] for entrant in entrants_now],
        len(queries),
    )


def test_seeds_are_written_in_the_same_queries_for_any_field():
    small_seeds, small_order, small_queries = seeded(6)
    large_seeds, large_order, large_queries = seeded(20)
    assert small_seeds == list(range(1, 7)) and large_seeds == list(range(1, 21))
    assert small_order == sorted(small_order, reverse=True)
    assert large_order == sorted(large_order, reverse=True)
    assert large_queries == small_queries

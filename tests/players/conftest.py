"""What the players' tests share: an event with an organizer, users who are players."""

import pytest

from tests.factories import UserFactory
from tournaments import services


@pytest.fixture
def organizer(db):
    return UserFactory(username="org")


def event(organizer, *, slug="viernes", name="Viernes Cut-Throat", ruleset="cutthroat", size=4):
    tournament = services.create_tournament(
        by=organizer, name=name, slug=slug, ruleset_key=ruleset, table_size=size
    )
    return services.update_tournament(tournament, by=organizer, status="registration")


@pytest.fixture
def tournament(organizer):
    return event(organizer)


def entered_before(tournament, player):
    """An entry of ``player`` as earlier releases made them (any organizer could attach
    any player by name): what data from before the consent rules may hold."""
    from django.db.models import Max

    from tournaments.models import Entrant

    seed = (tournament.entrants.aggregate(m=Max("seed"))["m"] or 0) + 1
    return Entrant.objects.create(
        tournament=tournament, name=player.display_name, player=player, seed=seed
    )

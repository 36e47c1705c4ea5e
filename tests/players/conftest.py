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

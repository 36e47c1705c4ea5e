"""Taking back an event reads its seat with the event, in one query."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.models import ScoreEvent
from scoring.services import add_score_event, undo_event
from tests.factories import UserFactory, start_game

pytestmark = pytest.mark.django_db

SEAT_READ = re.compile(r'^SELECT .*? FROM "?scoring_seat"?[ ;]', re.IGNORECASE | re.DOTALL)


def test_undoing_an_event_reads_no_seat_on_its_own():
    referee = UserFactory()
    game = start_game("cutthroat", 4, referee=referee)
    (event,) = add_score_event(game, by=referee, hand=1, seat="B", kind="in_play", points=10)
    with CaptureQueriesContext(connection) as queries:
        undone = undo_event(game, event.pk, by=referee, reason="wrong seat")
    assert not undone.active and not ScoreEvent.objects.filter(active=True).exists()
    assert not [q for q in queries.captured_queries if SEAT_READ.match(q["sql"])]

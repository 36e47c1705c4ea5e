"""The sweep's list of brackets owed a move: a finished game of each running bracket,
read in one query however many stages run."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.officiating import forfeit_seat
from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Match
from tournaments.tasks import waiting_brackets

pytestmark = pytest.mark.django_db


def running_stage(organizer, slug: str, format: str, *, finished: int):
    """A running stage of four entrants with round 1 published, ``finished`` of its
    tables' games finished (first tables first); its round-1 matches."""
    tournament = services.create_tournament(
        by=organizer, name=slug, slug=slug, ruleset_key="cutthroat", table_size=2
    )
    services.register_entrants(tournament, by=organizer, text="A\nB\nC\nD")
    stage = services.add_stage(tournament, by=organizer, name="Stage", format=format)
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    matches = list(Match.objects.filter(round=round_, bye=False).order_by("table_number"))
    for match in matches[:finished]:
        forfeit_seat(match.game_id, "A", "did not come", organizer)
    return matches


def asked() -> tuple[list[int], int]:
    with CaptureQueriesContext(connection) as queries:
        found = waiting_brackets()
    return found, len(queries)


def test_each_running_bracket_names_its_first_finished_game_in_one_query():
    organizer = UserFactory()
    first = running_stage(organizer, "one", "single_elimination", finished=2)
    running_stage(organizer, "none-yet", "single_elimination", finished=0)
    running_stage(organizer, "league", "round_robin", finished=2)
    found, queries = asked()
    assert found == [first[0].pk] and queries == 1
    second = running_stage(organizer, "two", "single_elimination", finished=1)
    third = running_stage(organizer, "three", "double_elimination", finished=2)
    found, queries = asked()
    assert found == [first[0].pk, second[0].pk, third[0].pk] and queries == 1

"""A published round's table emails are asked of the job runner together: the same few
queries after the commit however many players are told, each email asked for once."""

from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobs import runner
from players import registration
from players.models import Notice
from tests.players.test_registration import user
from tournaments import services


def runner_queries_at_publication(organizer, tournament, count: int, capture) -> int:
    registration.open_registration(tournament, by=organizer)
    for number in range(count):
        registration.enter(tournament, by=user(f"P{number} Rivera"))
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    stub = mock.patch.object(runner.run_job, "apply_async")
    with stub as published, CaptureQueriesContext(connection) as queries, capture(execute=True):
        services.publish_round(round_, by=organizer)
    asked = [call.args[0] for call in published.call_args_list if call.args[0][0] == "notice"]
    table_notices = Notice.objects.filter(kind="table").values_list("pk", flat=True)
    assert sorted(key for _, key in asked) == sorted(table_notices)
    assert len(asked) == count
    return sum("jobs_job" in query["sql"] for query in queries.captured_queries)


@pytest.mark.parametrize("count", [4, 12])
def test_table_emails_cost_the_runner_the_same_queries_for_any_field(
    organizer, tournament, count, django_capture_on_commit_callbacks
):
    queries = runner_queries_at_publication(
        organizer, tournament, count, django_capture_on_commit_callbacks
    )
    assert queries <= 4  # rows made, marked, read and queued: not a few per player

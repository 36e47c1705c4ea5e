"""Many keys of one kind asked of the runner at once, and the sweep of many left behind:
the same few queries however many keys, each key queued once."""

from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobs import runner
from jobs.models import Job

pytestmark = pytest.mark.django_db


@pytest.fixture
def probe():
    runner.register("probe", lambda key: None)
    yield
    runner.KINDS.pop("probe", None)


def asked_all(keys) -> tuple[int, int, list]:
    """``request_all`` of ``keys`` with the broker stubbed: (queued now, queries, keys
    published)."""
    stub = mock.patch.object(runner.run_job, "apply_async")
    with stub as published, CaptureQueriesContext(connection) as queries:
        queued = runner.request_all("probe", keys)
    return queued, len(queries), [call.args[0][1] for call in published.call_args_list]


def test_requesting_many_keys_costs_the_same_queries_as_a_few(probe):
    few = asked_all(range(1, 4))
    many = asked_all(range(100, 160))
    assert few[0] == 3 and few[2] == [1, 2, 3]
    assert many[0] == 60 and many[2] == list(range(100, 160))
    assert many[1] == few[1]
    assert Job.objects.filter(kind="probe", dirty=True, queued=True).count() == 63


def test_a_key_already_queued_is_only_marked_dirty(probe):
    Job.objects.create(kind="probe", key=1, queued=True)
    queued, _, published = asked_all([1, 2, 2])
    assert queued == 1 and published == [2]
    assert set(Job.objects.filter(kind="probe").values_list("key", "dirty", "queued")) == {
        (1, True, True),
        (2, True, True),
    }


def test_nothing_to_request_asks_nothing(probe):
    assert asked_all([]) == (0, 0, [])


def test_the_sweep_queues_many_left_behind_in_the_same_queries_as_a_few():
    def swept(count: int) -> tuple[int, int]:
        runner.register("probe", lambda key: None, once=True, left_behind=lambda: range(count))
        stub = mock.patch.object(runner.run_job, "apply_async")
        with stub, CaptureQueriesContext(connection) as queries:
            queued = runner.sweep()
        Job.objects.filter(kind="probe").delete()
        return queued, len(queries)

    saved = dict(runner.KINDS)
    runner.KINDS.clear()  # the sweep walks every kind: only this one here
    try:
        few, many = swept(2), swept(50)
    finally:
        runner.KINDS.clear()
        runner.KINDS.update(saved)
    assert few[0] == 2 and many[0] == 50
    assert many[1] == few[1]

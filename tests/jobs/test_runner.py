"""The one job runner, on a kind of work of its own: coalesced requests, a run again
while dirty, a broker outage and spent retries left to the sweep, one-off rows."""

from datetime import timedelta
from unittest import mock

import pytest
from celery.exceptions import Retry
from django.utils import timezone

from jobs import runner
from jobs.models import Job

pytestmark = pytest.mark.django_db


@pytest.fixture
def done():
    """A kind "probe" whose work notes each key it ran for."""
    ran: list[int] = []
    runner.register("probe", ran.append)
    yield ran
    runner.KINDS.pop("probe", None)


def test_a_burst_of_requests_queues_one_run(done):
    with mock.patch.object(runner.run_job, "apply_async") as queued:
        assert runner.request("probe", 4) is True
        for _ in range(50):
            assert runner.request("probe", 4) is False
    assert queued.call_count == 1
    assert queued.call_args.kwargs["task_id"].startswith("probe:4:")  # names its job
    job = Job.objects.get(kind="probe", key=4)
    assert job.dirty and job.queued
    assert runner.run_job.apply(args=["probe", 4]).get() == 1
    job.refresh_from_db()
    assert not job.dirty and not job.queued and job.runs == 1 and job.finished_at
    assert done == [4]


def test_a_request_during_a_run_runs_it_again(done):
    def work(key):
        done.append(key)
        if len(done) == 1:
            runner.request("probe", key)  # arrives mid-run: only marks it dirty

    runner.register("probe", work)
    assert runner.request("probe", 1) is True  # in-process here: runs at once
    assert done == [1, 1]
    assert not Job.objects.get(kind="probe", key=1).queued


def test_a_broker_outage_leaves_the_job_for_the_sweep_and_never_fails_the_caller(done):
    outage = []
    runner.register("probe", done.append, on_outage=outage.append)
    with mock.patch.object(runner.run_job, "apply_async", side_effect=ConnectionError("down")):
        assert runner.request("probe", 2) is False
    job = Job.objects.get(kind="probe", key=2)
    assert job.dirty and not job.queued
    assert outage == [2] and done == []
    assert runner.sweep() == 1
    assert done == [2]


def test_the_sweep_queues_a_job_whose_worker_was_lost(done):
    Job.objects.create(
        kind="probe", key=3, queued=True, queued_at=timezone.now() - timedelta(minutes=6)
    )
    Job.objects.create(kind="probe", key=5, queued=True, queued_at=timezone.now())  # running
    assert runner.sweep() == 1
    assert done == [3]


def test_a_failed_run_waits_queued_for_its_retry_and_then_goes_to_the_sweep():
    def failing(key):
        raise OSError("away")

    runner.register("probe", failing, retries=2, retry_after=lambda retries: 60.0)
    try:
        Job.objects.create(kind="probe", key=6, queued=True, queued_at=timezone.now())
        with (
            mock.patch.object(runner.run_job, "retry", side_effect=Retry("later")) as retry,
            pytest.raises(Retry),
        ):
            runner.run_job.apply(args=["probe", 6])
        assert retry.call_args.kwargs["countdown"] == 60.0
        assert retry.call_args.kwargs["max_retries"] == 2
        job = Job.objects.get(kind="probe", key=6)
        assert job.dirty and job.queued  # the retry is its queued run: no second task
        assert job.queued_at > timezone.now() + timedelta(seconds=50)  # not taken as lost
        assert runner.request("probe", 6) is False
        with (
            mock.patch.object(runner.run_job, "retry", side_effect=OSError("away")),
            pytest.raises(OSError),
        ):
            runner.run_job.apply(args=["probe", 6])  # the retries are spent
        job.refresh_from_db()
        assert job.dirty and not job.queued  # the sweep's now
        # In-process (no broker) a failed run is not retried: the sweep has it at once.
        Job.objects.filter(pk=job.pk).update(dirty=False)
        assert runner.request("probe", 6) is False
        job.refresh_from_db()
        assert job.dirty and not job.queued
    finally:
        runner.KINDS.pop("probe", None)


def test_one_off_work_loses_its_row_and_names_what_it_owes(done):
    runner.register("probe", done.append, once=True, left_behind=lambda: [8, 9])
    assert runner.request("probe", 7) is True
    assert not Job.objects.filter(kind="probe").exists()
    assert runner.sweep() == 2
    assert sorted(done) == [7, 8, 9]


def test_a_held_job_runs_once_when_released(done):
    with runner.held("probe", 1):
        for _ in range(5):
            assert runner.request("probe", 1) is False
        assert done == []
    assert done == [1]


def test_work_without_a_key_and_an_unknown_kind():
    ran = []
    runner.register("probe", lambda: ran.append("all"), keyed=False)
    try:
        runner.request("probe")
        assert ran == ["all"]
        assert str(Job.objects.get(kind="probe")) == "probe"
    finally:
        runner.KINDS.pop("probe", None)
    assert runner.run_job.apply(args=["nothing-registered", 1]).get() == 0

"""Celery tasks that keep standings current: coalesced, idempotent, never in the request path.

A change to any game of a tournament calls ``request_recompute`` after its transaction
commits. The first request queues one task; while that task is queued or running,
further requests only mark the tournament dirty, and the task runs once more when it
finishes dirty. If the broker cannot be reached the hand is still saved: the state stays
dirty and unqueued, the pages show the snapshot as stale, and the beat sweep (or the
next successful request) catches up.
"""

import logging
from contextlib import contextmanager
from datetime import timedelta

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from tournaments.models import StandingsState

log = logging.getLogger(__name__)

# A task queued longer than this without finishing is taken as lost (its worker died
# before acknowledging and the broker has not redelivered yet): the sweep queues another.
LOST_AFTER = timedelta(minutes=5)
SWEEP_EVERY = 30.0


def request_recompute(tournament_id: int) -> bool:
    """Mark the tournament's standings dirty and queue one recompute unless one is pending."""
    now = timezone.now()
    state, _ = StandingsState.objects.get_or_create(tournament_id=tournament_id)
    StandingsState.objects.filter(pk=state.pk).update(dirty=True, requested_at=now)
    claimed = StandingsState.objects.filter(pk=state.pk, queued=False).update(
        queued=True, queued_at=now
    )
    if not claimed:
        return False
    return _enqueue(state.pk, tournament_id)


@contextmanager
def standings_held(tournament_id: int):
    """Hold a tournament's recomputes during a bulk load, then run one at the end.

    While held, changes only mark the standings dirty (as if a recompute were already
    queued); leaving the block releases the hold and queues the one recompute.
    """
    state, _ = StandingsState.objects.get_or_create(tournament_id=tournament_id)
    StandingsState.objects.filter(pk=state.pk).update(queued=True, queued_at=timezone.now())
    try:
        yield
    finally:
        StandingsState.objects.filter(pk=state.pk).update(queued=False, queued_at=None)
        request_recompute(tournament_id)


def _enqueue(state_id: int, tournament_id: int) -> bool:
    try:
        recompute_standings.delay(tournament_id)
    except Exception:  # the broker is down: leave it to the sweep
        log.warning(
            "standings recompute for tournament %s not queued", tournament_id, exc_info=True
        )
        StandingsState.objects.filter(pk=state_id).update(queued=False)
        from tournaments import live

        live.forget_standings_of(tournament_id)  # the API's pollers learn they are stale
        return False
    return True


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=5)
def recompute_standings(self, tournament_id: int) -> int:
    """Recompute every stage's standings snapshot, again while changes keep arriving."""
    from tournaments.standings_store import rebuild_standings

    runs = 0
    while True:
        StandingsState.objects.filter(tournament_id=tournament_id).update(dirty=False)
        try:
            rebuild_standings(tournament_id)
        except Exception as error:
            StandingsState.objects.filter(tournament_id=tournament_id).update(
                dirty=True, queued=False
            )
            raise self.retry(exc=error, countdown=2) from error
        runs += 1
        # Finish only if nothing changed meanwhile; otherwise run again.
        with transaction.atomic():
            done = StandingsState.objects.filter(tournament_id=tournament_id, dirty=False).update(
                queued=False, queued_at=None
            )
        if done:
            return runs


@shared_task
def sweep_standings() -> int:
    """Queue recomputes that a broker outage or a lost worker left behind."""
    cutoff = timezone.now() - LOST_AFTER
    pending = StandingsState.objects.filter(
        dirty=True, queued=False
    ) | StandingsState.objects.filter(queued=True, queued_at__lt=cutoff)
    queued = 0
    for state in pending:
        StandingsState.objects.filter(pk=state.pk).update(queued=True, queued_at=timezone.now())
        queued += _enqueue(state.pk, state.tournament_id)
    return queued


# --- schedules and brackets -------------------------------------------------------------------


def request_schedule(stage_id: int) -> bool:
    """Queue the search of a stage's schedule; the manage page shows it queued.

    If the broker cannot be reached nothing is lost: generating the next round searches
    the schedule itself (before it takes any lock).
    """
    from tournaments.models import StageSchedule

    StageSchedule.objects.update_or_create(
        stage_id=stage_id,
        defaults={
            "status": StageSchedule.Status.QUEUED,
            "requested_at": timezone.now(),
            "problem": {},
        },
    )
    try:
        plan_schedule.delay(stage_id)
    except Exception:  # the broker is down, or the search failed in an eager run
        log.warning("schedule of stage %s not planned", stage_id, exc_info=True)
        return False
    return True


@shared_task(acks_late=True, reject_on_worker_lost=True)
def plan_schedule(stage_id: int) -> str:
    """Search and store the schedule the stage's next round needs."""
    from tournaments.services.pairing import plan_stage

    return plan_stage(stage_id)


def request_advance(match_id: int) -> bool:
    """Queue moving a finished bracket game's winners on; never fails the caller.

    The referee's hand is saved whatever happens here: if the broker is down the sweep
    (or the organizer's next round) seats the winners later, and an error in the
    pairing marks the table for the organizer's attention instead of failing the hand.
    """
    try:
        advance_bracket.delay(match_id)
    except Exception:
        log.warning("bracket after match %s not advanced", match_id, exc_info=True)
        return False
    return True


@shared_task(acks_late=True, reject_on_worker_lost=True)
def advance_bracket(match_id: int) -> int:
    """Seat the winners of a finished bracket game (idempotent: seated tables stay)."""
    from tournaments.models import Match
    from tournaments.services.rounds import advance_bracket as advance

    match = Match.objects.select_related("round__stage__tournament").filter(pk=match_id).first()
    if match is None:
        return 0
    return len(advance(match))


@shared_task
def sweep_brackets() -> int:
    """Move on the winners an outage left waiting: every running bracket, once."""
    from tournaments.models import Match, Stage
    from tournaments.services.pairing import advances

    queued = 0
    for stage in Stage.objects.filter(status=Stage.Status.RUNNING).select_related("tournament"):
        if not advances(stage):
            continue
        first = (
            Match.objects.filter(round__stage=stage, game__status="finished")
            .exclude(slot="")
            .order_by("round__number", "table_number")
            .values_list("pk", flat=True)
            .first()
        )
        if first is not None:
            queued += request_advance(first)
    return queued

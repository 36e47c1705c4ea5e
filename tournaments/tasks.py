"""The tournaments' background work, run by the job runner (``jobs.runner``).

Three kinds, registered in ``register_jobs`` when the app is ready; other code asks for
them with ``runner.request(kind, key)`` (or ``request_on_commit`` in a transaction):

* ``standings`` (a tournament's id): rebuild every stage's standings snapshot. A change
  to any game asks for it after its commit; a burst of changes costs one run or two. Its
  requests are kept on the tournament's ``StandingsState``, which also says whether the
  snapshot is stale: if the broker cannot be reached the hand is still saved, the state
  stays dirty and unqueued, the pages show the snapshot as stale (the API's kept live
  parts are forgotten so its pollers learn it), and the beat sweep catches up.
* ``schedule`` (a stage's id): search the schedule the stage's next round needs. Nothing
  is lost if it never runs: generating the next round searches the schedule itself.
* ``bracket`` (a finished game's match id): seat a bracket game's winners. The referee's
  hand is saved whatever happens here; the sweep moves on the winners an outage left
  waiting (``waiting_brackets``), and an error in the pairing marks the table for the
  organizer's attention instead of failing anything.
"""

from django.db.models import OuterRef, Subquery

from jobs import runner
from scoring.models import Game
from tournaments.models import Match, Stage, StandingsState
from tournaments.read import live, standings_store
from tournaments.services.pairing import plan_stage
from tournaments.services.rounds import advance_bracket as advance
from tournaments.stage_facts import is_bracket


def recompute_standings(tournament_id: int) -> int:
    """Recompute every stage's standings snapshot of the tournament."""
    return standings_store.rebuild_standings(tournament_id)


def plan_schedule(stage_id: int) -> str:
    """Search and store the schedule the stage's next round needs."""
    return plan_stage(stage_id)


def advance_bracket(match_id: int) -> int:
    """Seat the winners of a finished bracket game (idempotent: seated tables stay)."""
    match = Match.objects.select_related("round__stage__tournament").filter(pk=match_id).first()
    if match is None:
        return 0
    return len(advance(match))


def waiting_brackets() -> list[int]:
    """A finished game of every running bracket, for the sweep: advancing it seats every
    winner the stage's finished games owe (an outage may have left some waiting). One
    query, however many stages run."""
    first_finished = (
        Match.objects.filter(round__stage=OuterRef("pk"), game__status=Game.Status.FINISHED)
        .exclude(slot="")
        .order_by("round__number", "table_number")
        .values("pk")[:1]
    )
    stages = (
        Stage.objects.filter(status=Stage.Status.RUNNING)
        .annotate(first_finished=Subquery(first_finished))
        .filter(first_finished__isnull=False)
        .only("pk", "format")
        .order_by("pk")
    )
    return [stage.first_finished for stage in stages if is_bracket(stage)]


def register_jobs() -> None:
    runner.register(
        "standings",
        recompute_standings,
        rows=StandingsState,
        key_field="tournament_id",
        on_outage=live.forget_standings_of,
    )
    # One-off work: no retries (a schedule is searched again when a round needs it, a
    # bracket is swept), and no row kept once done.
    runner.register("schedule", plan_schedule, retries=0, once=True)
    runner.register("bracket", advance_bracket, retries=0, once=True, left_behind=waiting_brackets)

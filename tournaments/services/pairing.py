"""The one adapter between the pure pairing engines and the database.

An engine says what it reads (``EngineBase``: bracket results, the previous round's
results, withdrawn entrants, schedules searched ahead of time); this module reads those
rows, hands them over and keeps the schedules. Nothing else in the services asks which
format a stage has.

Schedules: a round robin's (and pools') whole schedule is searched when the stage is
added or its field changes, in a task (``tournaments.tasks.plan_schedule``), and stored
round by round (``ScheduleEntry``): first from a quick search, then, where its small
budget stopped it, from the full one (``plan_stage``). Pairing a round reads its entry;
where none is stored yet, the quick search runs before the round's transaction takes any
lock, and the task's full search improves the rounds left.
"""

import logging
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from domain.say import Message
from jobs import runner
from tournaments.models import (
    Entrant,
    MatchSeat,
    ScheduleEntry,
    Stage,
    StageSchedule,
)
from tournaments.pairing.base import Engine, EntrantStub, PairingError, PairingResult
from tournaments.pairing.round_robin import (
    BYE,
    ScheduleNeed,
    compute_schedule,
    plan_repeats,
    stored_plan,
)
from tournaments.stage_facts import (
    allowed_sides,
    bracket_results,
    bye_match_points,
    engine_of,
    pairing_seeds,
    points_for_place,
    settings_for,
    stage_entrants,
)

log = logging.getLogger(__name__)


def needs_finished_round(stage: Stage) -> bool:
    """Whether the stage pairs a round from the results of the one before."""
    return engine_of(stage).needs_finished_round


# --- what the engines read -------------------------------------------------------------------


def history(stage: Stage, entrants: list[Entrant]) -> list[EntrantStub]:
    """Entrant stubs with whom each met, the seats sat, byes, short tables and score.

    The score is the tournament's match points (its placement points per table size,
    or a win 1), as the standings count them, so Swiss groups by what the table shows.
    """
    tournament = stage.tournament
    ranking = settings_for(tournament, stage)
    bye_points = bye_match_points(ranking)
    met: dict[int, dict[int, int]] = {e.pk: {} for e in entrants}
    seats: dict[int, list[int]] = {e.pk: [] for e in entrants}
    byes: dict[int, int] = dict.fromkeys(met, 0)
    short: dict[int, int] = dict.fromkeys(met, 0)
    score: dict[int, float] = dict.fromkeys(met, 0.0)
    tables: dict[int, list] = {}
    rows = MatchSeat.objects.filter(round__stage=stage).values(
        "match_id", "entrant_id", "position", "match__bye", "placement", "won", "sides"
    )
    for row in rows:
        tables.setdefault(row["match_id"], []).append(row)
    full = tournament.sides_per_table
    for seated in tables.values():
        ids = [row["entrant_id"] for row in seated]
        for row in seated:
            me = row["entrant_id"]
            if me not in met:
                continue
            if row["match__bye"]:
                byes[me] += 1
                score[me] += bye_points
                continue
            seats[me].append(row["position"])
            if len(seated) != full:
                short[me] += 1
            for other in ids:
                if other != me:
                    met[me][other] = met[me].get(other, 0) + 1
            if row["placement"] is not None:
                score[me] += points_for_place(
                    ranking, row["sides"], row["placement"], bool(row["won"])
                )
    seeds = pairing_seeds(stage, entrants)
    return [
        EntrantStub(
            id=e.pk,
            seed=seeds[e.pk],
            score=round(score[e.pk], 6),
            met=met[e.pk],
            seats=tuple(seats[e.pk]),
            byes=byes[e.pk],
            short_tables=short[e.pk],
            withdrawn=e.withdrawn,
        )
        for e in entrants
    ]


@dataclass
class Request:
    """One round's pairing as an engine takes it."""

    engine: Engine
    stubs: list[EntrantStub]
    number: int
    table_size: int
    settings: dict
    seed: int

    def needs(self) -> list[ScheduleNeed]:
        return self.engine.schedule_needs(
            self.stubs,
            round_number=self.number,
            table_size=self.table_size,
            settings=self.settings,
            seed=self.seed,
        )


def request_for(stage: Stage, entrants: list[Entrant], number: int, seed: int | None) -> Request:
    engine = engine_of(stage)
    stubs = history(stage, entrants)
    if not engine.keeps_withdrawn:
        stubs = [s for s in stubs if not s.withdrawn]
    tournament = stage.tournament
    return Request(
        engine=engine,
        stubs=stubs,
        number=number,
        table_size=tournament.sides_per_table,
        # The rule set's table sizes: a round seats the field by them (mixed sizes, byes).
        settings={**stage.settings, "table_sizes": list(allowed_sides(tournament))},
        seed=stage.settings.get("seed", stage.pk) if seed is None else seed,
    )


def pair(
    stage: Stage, request: Request, schedules: dict[str, dict], *, results=None
) -> PairingResult:
    """The engine's tables for the round, from the rows it says it reads."""
    if request.engine.reads_results and results is None:
        results = bracket_results(stage)
    return request.engine.pair(
        request.stubs,
        round_number=request.number,
        table_size=request.table_size,
        settings=request.settings,
        seed=request.seed,
        results=results,
        schedules=schedules,
    )


# Flag values that name an entrant by id: the round's flags name them as the pages do.
ENTRANT_PARAMS = ("id", "first", "second")


def flag_rows(flags, names: dict[int, str]) -> list[dict]:
    """A round's flags as stored: each message with its template and values, entrants
    named by their names rather than their ids."""
    rows = []
    for flag in flags:
        template = getattr(flag.message, "template", None)
        params = dict(getattr(flag.message, "params", {}) or {})
        for key in ENTRANT_PARAMS:
            if key in params and params[key] in names:
                params[key] = names[params[key]]
        plural = getattr(flag.message, "plural", None)
        count = getattr(flag.message, "count", 1)
        message = Message(template, plural, count, **params) if template else flag.message
        counted = {"plural": plural, "count": count} if plural else {}
        rows.append(
            {
                "code": flag.code,
                "message": str(message),
                "template": template or str(flag.message),
                "params": params,
                **counted,
                "entrants": list(flag.entrants),
            }
        )
    return rows


# --- schedules --------------------------------------------------------------------------------


def _as_engine_entry(entry: ScheduleEntry) -> dict:
    return {
        "round": entry.round_number,
        "tables": entry.tables,
        "repeats": entry.repeats,
        "unavoidable": entry.unavoidable,
        "quick": entry.quick,
        "work": entry.work,
    }


def stored(stage: Stage, keys) -> dict[str, dict]:
    """The stored schedule entries under these keys, as the engines take them."""
    return {
        entry.key: _as_engine_entry(entry)
        for entry in ScheduleEntry.objects.filter(stage=stage, key__in=list(keys))
    }


def _store(stage: Stage, entries: dict[str, dict]) -> None:
    ScheduleEntry.objects.bulk_create(
        [
            ScheduleEntry(
                stage=stage,
                key=key,
                round_number=entry["round"],
                tables=entry["tables"],
                repeats=entry["repeats"],
                unavoidable=entry["unavoidable"],
                quick=entry.get("quick", False),
                work=entry.get("work", 0),
            )
            for key, entry in entries.items()
        ],
        ignore_conflicts=True,  # the same search elsewhere stored the same entries
    )


def ensure_schedules(stage: Stage, needs: list[ScheduleNeed], *, quick: bool = False) -> list[dict]:
    """Search and store every need not stored yet; returns the entries computed.

    Runs outside any transaction that locks the tournament or the stage: the search
    may take seconds, and nothing else waits for it. ``quick`` searches with the small
    budget (well under a second for any field up to 64); where that budget stopped the
    search, the entries say so and the task's full search may replace them.
    """
    have = set(
        ScheduleEntry.objects.filter(stage=stage, key__in=[n.key for n in needs]).values_list(
            "key", flat=True
        )
    )
    computed = []
    for need in needs:
        if need.key in have:
            continue
        entries = compute_schedule(need, quick=quick)
        _store(stage, entries)
        computed.append(entries[need.key])
    return computed


def next_round_number(stage: Stage) -> int:
    last = stage.rounds.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def _needs_now(stage: Stage) -> tuple[list[ScheduleNeed], int, int]:
    """What the stage's next round reads now: its needs, its number and the total."""
    number = next_round_number(stage)
    request = request_for(stage, stage_entrants(stage), number, None)
    total = request.engine.total_rounds(
        len(request.stubs), table_size=request.table_size, settings=request.settings
    )
    return (request.needs() if number <= total else []), number, total


def settle_schedule(stage: Stage, need: ScheduleNeed, full: dict[str, dict]) -> bool:
    """Put the full search's plan for ``need`` in place of the quick one if it has fewer
    repeat meetings, while ``need`` is still what the next round reads; returns whether
    it still was (False: a round was generated, or the field changed, meanwhile).

    Under the stage's lock, which pairing a round also takes, so a round is paired from
    one plan or the other, never from a mix. Only what the rounds not yet generated
    read is replaced; the quick plan's entries are kept, marked searched in full, when
    the full search found no fewer repeats (it is the same search carried on, so from
    the same start it finds the same plan or a better one).
    """
    with transaction.atomic():
        stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
        try:
            needs, _number, _total = _needs_now(stage)
        except PairingError:
            return False
        if need.key not in {n.key for n in needs}:
            return False
        rows = ScheduleEntry.objects.filter(stage=stage, round_number__gte=need.first_round)
        chain = stored_plan(need, {row.key: _as_engine_entry(row) for row in rows}) or {}
        full_repeats = full[need.key]["repeats"]
        if chain and plan_repeats(need, chain) <= full_repeats:
            ScheduleEntry.objects.filter(stage=stage, key__in=list(chain)).update(quick=False)
            return True
        ScheduleEntry.objects.filter(stage=stage, key__in=[*chain, *full]).delete()
        _store(stage, full)
    return True


def plan_stage(stage_id: int, *, full: bool = True) -> str:
    """Search and store what the stage's next round needs, saying how far it got on the
    stage's ``StageSchedule`` (the manage page shows it). Returns the status.

    Anytime: a quick search first (``computing``), stored at once so that a round can be
    paired from it; where its small budget stopped it, the full search runs
    (``improving``, the quick plan usable meanwhile) and replaces the quick plan if it
    has fewer repeats. If a round was generated from the quick plan meanwhile, the rounds
    left are searched in full around the meetings played, and replace the quick plan's
    rest if they repeat fewer meetings. Not ``full``: the quick search only, the full
    one left to the round's generation (``deferred``).
    """
    stage = Stage.objects.select_related("tournament").filter(pk=stage_id).first()
    if stage is None:
        return ""
    state = StageSchedule.objects.filter(stage=stage)
    state.update(started_at=timezone.now())
    # Each pass settles the plan of the next round; a round generated during the full
    # search moves on to the rounds left (at most once a round).
    for _attempt in range(MAX_PASSES):
        stage.refresh_from_db(fields=["status"])
        if stage.status == Stage.Status.FINISHED:
            state.update(status=StageSchedule.Status.NOT_NEEDED, problem={})
            return StageSchedule.Status.NOT_NEEDED
        try:
            needs, number, total = _needs_now(stage)
            if not needs:
                state.update(status=StageSchedule.Status.NOT_NEEDED, problem={})
                return StageSchedule.Status.NOT_NEEDED
            shape = _shape(needs, number, total)
            have = stored(stage, [n.key for n in needs])
            if len(have) < len(needs):
                state.update(status=StageSchedule.Status.COMPUTING, quick=False, **shape)
                ensure_schedules(stage, needs, quick=True)
                have = stored(stage, [n.key for n in needs])
            quick = [need for need in needs if have.get(need.key, {}).get("quick")]
            if not quick:
                break
            if not full:
                state.update(status=StageSchedule.Status.DEFERRED, **shape, **_summary(have))
                return StageSchedule.Status.DEFERRED
            state.update(status=StageSchedule.Status.IMPROVING, **shape, **_summary(have))
            moved = False
            for need in quick:
                full = compute_schedule(need)  # no lock held: it may take seconds
                if not settle_schedule(stage, need, full):
                    moved = True
                    break
            if not moved:
                break
        except PairingError as error:
            return _failed(state, error)
    else:
        # Rounds kept being generated during the full searches: say what the next round
        # reads now (the rounds left of a quick plan, flagged as such).
        try:
            needs, number, total = _needs_now(stage)
        except PairingError as error:
            return _failed(state, error)
        if not needs:
            state.update(status=StageSchedule.Status.NOT_NEEDED, problem={})
            return StageSchedule.Status.NOT_NEEDED
        shape = _shape(needs, number, total)
    have = stored(stage, [n.key for n in needs])
    state.update(
        status=StageSchedule.Status.READY,
        finished_at=timezone.now(),
        **shape,
        **_summary(have),
    )
    return StageSchedule.Status.READY


def _shape(needs: list[ScheduleNeed], number: int, total: int) -> dict:
    return {
        "entrants": sum(1 for p in needs[0].players if p != BYE),
        "first_round": number,
        "rounds": total - number + 1,
        "problem": {},
    }


def _failed(state, error: PairingError) -> str:
    message = error.message if hasattr(error, "message") else str(error)
    state.update(
        status=StageSchedule.Status.FAILED,
        problem={
            "message": str(message),
            "template": getattr(message, "template", str(message)),
            "params": getattr(message, "params", {}),
        },
    )
    return StageSchedule.Status.FAILED


# Passes of ``plan_stage`` at most: rounds generated during its full searches move it on.
MAX_PASSES = 4


def _summary(entries: dict[str, dict]) -> dict:
    return {
        "repeats": sum(e["repeats"] for e in entries.values()),
        "unavoidable": all(e["unavoidable"] for e in entries.values()),
        "quick": any(e["quick"] for e in entries.values()),
    }


def request_schedules(tournament_id: int, *, field_changed: bool = False) -> None:
    """After the write commits, plan again every stage of the tournament still to play
    whose engine searches schedules (the field it plans for may have changed).

    ``field_changed``: the write was one of many that change the field (a check-in tap,
    a registration, a withdrawal). Where no worker runs, tasks run in the request: then
    only the quick search runs, so that no tap waits for the full one (a second or more
    for fields such as 13 or 17 at tables of four); generating the round runs it.
    """

    def queue():
        for stage in Stage.objects.filter(tournament_id=tournament_id).exclude(
            status=Stage.Status.FINISHED
        ):
            if not engine_of(stage).schedules:
                continue
            if field_changed and runner.in_process():
                plan_stage(stage.pk, full=False)
            else:
                request_schedule(stage.pk)

    transaction.on_commit(queue)


def settle_deferred(stage: Stage) -> None:
    """Run the full search a change of the field left to the round's generation where
    no worker runs (``deferred``), before the round is paired; no-op otherwise."""
    if (
        runner.in_process()
        and StageSchedule.objects.filter(stage=stage, status=StageSchedule.Status.DEFERRED).exists()
    ):
        plan_stage(stage.pk)


def request_schedule(stage_id: int) -> bool:
    """Queue the search of a stage's schedule (the runner's ``schedule`` kind); the
    manage page shows it queued. If the broker cannot be reached nothing is lost:
    generating the next round searches the schedule itself (before it takes any lock)."""
    StageSchedule.objects.update_or_create(
        stage_id=stage_id,
        defaults={
            "status": StageSchedule.Status.QUEUED,
            "requested_at": timezone.now(),
            "problem": {},
        },
    )
    return runner.request("schedule", stage_id)

"""The round clock: a time limit on every table of a round (RULES.md, "Round clock").

A stage's settings hold the limit: ``round_minutes`` (none: untimed), ``hands_after_time``
(0: when time is called the hand in play is finished; N: N more hands after it) and
``clock_starts`` (``publish``: the clock starts when the round is published;
``organizer``: when an organizer starts it). A round stores only its deadline (or, paused,
the seconds left), and each of its games the moment time is called on it, so that every
page counts down from the stored deadline on its own, with no traffic while it ticks.
When time is called, the scoring service ends each game after the allowed hands: the
highest total wins, equal top totals as the rule set says.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.permissions import require
from domain.say import say
from scoring.audit import record_act
from scoring.models import OfficialAct
from scoring.services import HANDS_AFTER_TIME_RANGE, time_limit
from tournaments.models import Match, Round, Stage
from tournaments.read import live
from tournaments.services.common import TournamentConflict, TournamentError

MINUTES_RANGE = (1, 600)
STARTS = ("publish", "organizer")


@dataclass(frozen=True)
class ClockSettings:
    """A stage's round clock: ``minutes`` None when rounds are untimed."""

    minutes: int | None = None
    hands_after_time: int = 0
    starts: str = "publish"


@dataclass(frozen=True)
class ClockState:
    """Where a round's clock stands at one moment.

    ``state``: ``off`` (untimed), ``waiting`` (timed, not started), ``running``,
    ``paused`` or ``called`` (time is up: the hands allowed are being finished)."""

    state: str
    minutes: int | None
    hands_after_time: int
    deadline: datetime | None
    seconds_left: int | None

    def as_dict(self) -> dict:
        return {
            "state": self.state,
            "minutes": self.minutes,
            "hands_after_time": self.hands_after_time,
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "seconds_left": self.seconds_left,
        }


def _whole(value, bounds: tuple[int, int]) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and bounds[0] <= value <= bounds[1]:
        return value
    return None


def settings_of(stage: Stage) -> ClockSettings:
    """The stage's round clock as its settings hold it (bad values read as untimed)."""
    raw = stage.settings or {}
    minutes = _whole(raw.get("round_minutes"), MINUTES_RANGE)
    hands = _whole(raw.get("hands_after_time", 0), HANDS_AFTER_TIME_RANGE) or 0
    starts = raw.get("clock_starts") if raw.get("clock_starts") in STARTS else "publish"
    return ClockSettings(minutes=minutes, hands_after_time=hands, starts=starts)


def state_of(round_: Round, *, now: datetime | None = None) -> ClockState:
    """The round's clock at ``now`` (default: now)."""
    settings = settings_of(round_.stage)
    now = now or timezone.now()
    hands = settings.hands_after_time
    if round_.clock_deadline is not None:
        left = max(0, int((round_.clock_deadline - now).total_seconds()))
        state = "running" if left > 0 else "called"
        return ClockState(state, settings.minutes, hands, round_.clock_deadline, left)
    if round_.clock_left is not None:
        return ClockState("paused", settings.minutes, hands, None, round_.clock_left)
    if settings.minutes is None:
        return ClockState("off", None, hands, None, None)
    return ClockState("waiting", settings.minutes, hands, None, settings.minutes * 60)


def set_stage_clock(
    stage: Stage, *, by, minutes, hands_after_time=0, starts: str = "publish"
) -> Stage:
    """Set (or, with no minutes, remove) the round time limit of the stage's rounds."""
    if minutes in (None, ""):
        minutes = None
    else:
        minutes = _whole(minutes, MINUTES_RANGE)
        if minutes is None:
            raise TournamentError(
                say(
                    "Minutes per round: a whole number from {low} to {high}.",
                    low=MINUTES_RANGE[0],
                    high=MINUTES_RANGE[1],
                ),
                "minutes",
            )
    hands = _whole(
        hands_after_time if hands_after_time not in (None, "") else 0, HANDS_AFTER_TIME_RANGE
    )
    if hands is None:
        raise TournamentError(
            say(
                "Hands after time is called: a whole number from {low} to {high}.",
                low=HANDS_AFTER_TIME_RANGE[0],
                high=HANDS_AFTER_TIME_RANGE[1],
            ),
            "hands_after_time",
        )
    if starts not in STARTS:
        raise TournamentError(
            say("Start the clock when the round is published, or by hand."), "starts"
        )
    with transaction.atomic():
        stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
        require(by, "tournament.manage", stage.tournament)
        settings = dict(stage.settings or {})
        for key in ("round_minutes", "hands_after_time", "clock_starts"):
            settings.pop(key, None)
        if minutes is not None:
            settings.update(round_minutes=minutes, hands_after_time=hands, clock_starts=starts)
        stage.settings = settings
        stage.save(update_fields=["settings"])
    return stage


def _lock(round_: Round) -> Round:
    return Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_.pk)


def _games(round_: Round) -> list[int]:
    return list(
        Match.objects.filter(round=round_, game__isnull=False).values_list("game_id", flat=True)
    )


def _run(round_: Round, deadline: datetime | None, *, by, action: str, **detail) -> Round:
    """Store the round's deadline, pass it to its games and keep the act in the audit."""
    settings = settings_of(round_.stage)
    time_limit(_games(round_), ends_at=deadline, hands_after_time=settings.hands_after_time)
    tournament = round_.stage.tournament
    record_act(
        OfficialAct.Kind.ROUND_CLOCK,
        by=by,
        scope=f"tournament:{tournament.pk}",
        subject=f"{round_.stage.name} · {round_.number}",
        action=action,
        deadline=deadline.isoformat() if deadline else None,
        **detail,
    )
    transaction.on_commit(lambda: live.forget_round(round_))
    return round_


def in_play(round_: Round) -> bool:
    """Whether a table of the round is still to finish (its clock still matters)."""
    return (
        Match.objects.filter(round=round_, game__isnull=False)
        .exclude(game__status="finished")
        .exists()
    )


def _require_timed(round_: Round) -> ClockSettings:
    settings = settings_of(round_.stage)
    if settings.minutes is None:
        raise TournamentConflict(
            say("This stage's rounds have no time limit: set minutes per round first."),
            "round",
        )
    if round_.status != Round.Status.PUBLISHED:
        raise TournamentConflict(
            say("Only a published round that is still being played has a clock."), "round"
        )
    return settings


def start_on_publish(round_: Round, *, by) -> None:
    """Inside ``publish_round``'s transaction: start the clock if the stage says so."""
    settings = settings_of(round_.stage)
    if settings.minutes is None or settings.starts != "publish":
        return
    now = timezone.now()
    round_.clock_started_at = now
    round_.clock_deadline = now + timedelta(minutes=settings.minutes)
    round_.clock_left = None
    round_.save(update_fields=["clock_started_at", "clock_deadline", "clock_left"])
    _run(round_, round_.clock_deadline, by=by, action="start", minutes=settings.minutes)


def start(round_: Round, *, by) -> Round:
    """Start the round's clock for the stage's minutes (once)."""
    with transaction.atomic():
        round_ = _lock(round_)
        require(by, "tournament.manage", round_.stage.tournament)
        settings = _require_timed(round_)
        if round_.clock_started_at is not None:
            raise TournamentConflict(
                say("The clock of round {number} has already started.", number=round_.number),
                "round",
            )
        now = timezone.now()
        round_.clock_started_at = now
        round_.clock_deadline = now + timedelta(minutes=settings.minutes)
        round_.save(update_fields=["clock_started_at", "clock_deadline"])
        return _run(round_, round_.clock_deadline, by=by, action="start", minutes=settings.minutes)


def pause(round_: Round, *, by) -> Round:
    """Stop the clock with the time left kept (a dispute, a break)."""
    with transaction.atomic():
        round_ = _lock(round_)
        require(by, "tournament.manage", round_.stage.tournament)
        _require_timed(round_)
        now = timezone.now()
        if round_.clock_deadline is None or round_.clock_deadline <= now:
            raise TournamentConflict(say("Only a running clock can be paused."), "round")
        round_.clock_left = max(1, int((round_.clock_deadline - now).total_seconds()))
        round_.clock_deadline = None
        round_.save(update_fields=["clock_deadline", "clock_left"])
        return _run(round_, None, by=by, action="pause", seconds_left=round_.clock_left)


def resume(round_: Round, *, by) -> Round:
    """Run a paused clock again from the time it had left."""
    with transaction.atomic():
        round_ = _lock(round_)
        require(by, "tournament.manage", round_.stage.tournament)
        _require_timed(round_)
        if round_.clock_left is None:
            raise TournamentConflict(say("Only a paused clock can be resumed."), "round")
        round_.clock_deadline = timezone.now() + timedelta(seconds=round_.clock_left)
        round_.clock_left = None
        round_.save(update_fields=["clock_deadline", "clock_left"])
        return _run(round_, round_.clock_deadline, by=by, action="resume")


def extend(round_: Round, *, by, minutes) -> Round:
    """Give the round ``minutes`` more (also after time was called: the tables that have
    not finished play on to the new deadline)."""
    added = _whole(minutes, MINUTES_RANGE)
    if added is None:
        raise TournamentError(
            say(
                "Minutes to add: a whole number from {low} to {high}.",
                low=MINUTES_RANGE[0],
                high=MINUTES_RANGE[1],
            ),
            "minutes",
        )
    with transaction.atomic():
        round_ = _lock(round_)
        require(by, "tournament.manage", round_.stage.tournament)
        _require_timed(round_)
        if round_.clock_started_at is None:
            raise TournamentConflict(say("Start the clock first."), "round")
        if round_.clock_left is not None:
            round_.clock_left += added * 60
            round_.save(update_fields=["clock_left"])
            return _run(round_, None, by=by, action="extend", minutes=added)
        now = timezone.now()
        round_.clock_deadline = max(round_.clock_deadline, now) + timedelta(minutes=added)
        round_.save(update_fields=["clock_deadline"])
        return _run(round_, round_.clock_deadline, by=by, action="extend", minutes=added)


ACTIONS = {"start": start, "pause": pause, "resume": resume, "extend": extend}

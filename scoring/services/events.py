"""Points scored during a hand: in-play points, steals, penalties, forced passes and
clock violations, and taking one back."""

from collections.abc import Iterable

from django.db import transaction

from accounts.permissions import require
from domain.say import say
from scoring import engine, statements
from scoring.audit import record_act
from scoring.bounds import PENALTY_RANGE, whole_number, within
from scoring.engine import ScoringError
from scoring.models import Game, OfficialAct, ScoreEvent
from scoring.rulesets import RuleSet
from scoring.services.common import (
    GameConflict,
    add_to_totals,
    begin_play,
    changed,
    check_play_count,
    check_play_points,
    decide,
    lock,
    lock_to_score,
    recompute,
    require_playable,
    ruleset_of,
    seat_named,
    table,
    user_or_none,
)


def add_score_event(
    game: Game | int,
    *,
    by,
    hand: int,
    seat: str,
    kind: str,
    points: int | None = None,
    note: str = "",
    double: bool = False,
    from_seat: str | None = None,
    sanction: bool = False,
) -> list[ScoreEvent]:
    """Record in-play points, a steal, a penalty, a forced pass or a clock violation
    during hand ``hand``.

    A steal takes from ``from_seat``, the last player who played a tile, or from the
    previous seat when the referee does not name one. A clock violation is decided here
    (RULES.md, Officiating): the seat's first in the game is a forced pass, each later
    one a penalty of the rule set's ``penalty_points``.
    """
    with transaction.atomic():
        # A sanction is an organizer's; any other event the table's.
        if sanction:
            game = lock(game)
            require(by, "game.manage", game)
        else:
            game = lock_to_score(game, by)
        require_playable(game)
        if hand != game.hand_count + 1:
            raise GameConflict(
                say(
                    "Points during play belong to the hand in progress, hand {value}.",
                    value=game.hand_count + 1,
                ),
                game=game,
            )
        ruleset = ruleset_of(game)
        seats, seats_by_name = table(game)
        actor = seat_named(seats_by_name, seat, field="seat")
        common = {
            "game": game,
            "hand_number": hand,
            "note": note[:300],
            "created_by": user_or_none(by),
        }
        if from_seat and kind != ScoreEvent.Kind.STEAL:
            raise ScoringError(say("Only a steal takes points from another seat."), "from_seat")
        if kind in (ScoreEvent.Kind.IN_PLAY, ScoreEvent.Kind.STEAL):
            check_play_count(ruleset, _plays_scored(game, hand) + 1, field="hand")
        if kind == ScoreEvent.Kind.IN_PLAY:
            check_play_points(ruleset, points, field="points")
            events = [ScoreEvent(seat=actor, side=actor.side, kind=kind, points=points, **common)]
        elif kind == ScoreEvent.Kind.STEAL:
            check_play_points(ruleset, points, field="points")
            gained, lost = engine.score_stack(ruleset, points, double=double)
            previous = seats_by_name[
                engine.steal_victim([each.name for each in seats], actor.name, from_seat)
            ]
            gain = ScoreEvent(seat=actor, side=actor.side, kind=kind, points=gained, **common)
            events = [gain]
            if lost:
                events.append(
                    ScoreEvent(
                        seat=previous,
                        side=previous.side,
                        kind=ScoreEvent.Kind.STOLEN,
                        points=-lost,
                        **common,
                    )
                )
        elif kind == ScoreEvent.Kind.PENALTY:
            deduction = ruleset.penalty_points if points is None else points
            # Written 10 or -10, a deduction is ten points off.
            if not whole_number(deduction) or not within(abs(deduction), PENALTY_RANGE):
                raise ScoringError(
                    say(
                        "A penalty deducts a whole number of points from {low} to {high}.",
                        low=PENALTY_RANGE[0],
                        high=PENALTY_RANGE[1],
                    ),
                    "points",
                )
            events = [
                ScoreEvent(seat=actor, side=actor.side, kind=kind, points=-abs(deduction), **common)
            ]
        elif kind == ScoreEvent.Kind.FORCED_PASS:
            if points:
                raise ScoringError(say("A forced pass carries no points."), "points")
            events = [ScoreEvent(seat=actor, side=actor.side, kind=kind, points=0, **common)]
        elif kind == CLOCK_VIOLATION:
            if points:
                raise ScoringError(
                    say("The server decides what a clock violation costs: send no points."),
                    "points",
                )
            earlier = ScoreEvent.objects.filter(
                game=game, seat=actor, violation=True, active=True
            ).count()
            if earlier and not ruleset.penalty_points:
                raise ScoringError(
                    say(
                        "This rule set names no penalty amount: record this violation as a "
                        "penalty with its points."
                    ),
                    "kind",
                )
            became, deduction = _violation_outcome(ruleset, earlier)
            events = [
                ScoreEvent(
                    seat=actor,
                    side=actor.side,
                    kind=became,
                    points=deduction,
                    violation=True,
                    **common,
                )
            ]
        else:
            raise ScoringError(
                say("Kind must be in_play, steal, penalty, forced_pass or clock_violation."),
                "kind",
            )
        if game.status == Game.Status.SCHEDULED:
            begin_play(game, ruleset)
        created = ScoreEvent.objects.bulk_create(events)
        if len(created) == 2:
            ScoreEvent.objects.filter(pk=created[1].pk).update(pair=created[0])
            ScoreEvent.objects.filter(pk=created[0].pk).update(pair=created[1])
        add_to_totals(game, {}, [(e.side.name, e.points) for e in created])
        game.tallies = engine.count_tallies(
            game.totals, penalties=_penalties(created), start=game.tallies
        )
        if ruleset.win_check == "immediate":
            decide(game, ruleset)
        statements.save_game(game, ["totals", "tallies", "status", "winner", "finished_at"])
        if kind in OFFICIATED_KINDS:
            record_act(
                OfficialAct.Kind.CLOCK_VIOLATION
                if kind == CLOCK_VIOLATION
                else OfficialAct.Kind.DEDUCTION
                if sanction
                else kind,
                by=by,
                game=game,
                subject=actor.display_name,
                hand=hand,
                reason=note,
                seat=actor.name,
                became=created[0].kind,
                points=created[0].points,
                event=created[0].pk,
            )
        changed(game, "event_added")
    return created


CLOCK_VIOLATION = "clock_violation"
OFFICIATED_KINDS = frozenset(
    {ScoreEvent.Kind.PENALTY, ScoreEvent.Kind.FORCED_PASS, CLOCK_VIOLATION}
)


def _violation_outcome(ruleset: RuleSet, earlier: int) -> tuple[str, int]:
    """What a seat's clock violation becomes after ``earlier`` standing ones in the game:
    (kind, points)."""
    if earlier == 0:
        return ScoreEvent.Kind.FORCED_PASS, 0
    return ScoreEvent.Kind.PENALTY, -ruleset.penalty_points


def _redecide_violations(game: Game, ruleset: RuleSet, seat_id: int) -> None:
    """Decide a seat's standing clock violations again, in order, after one was undone:
    the first is the forced pass, every later one a penalty."""
    standing = ScoreEvent.objects.filter(
        game=game, seat_id=seat_id, violation=True, active=True
    ).order_by("pk")
    for index, event in enumerate(standing):
        kind, points = _violation_outcome(ruleset, index)
        if (event.kind, event.points) != (kind, points):
            ScoreEvent.objects.filter(pk=event.pk).update(kind=kind, points=points)


def undo_event(game: Game | int, event_id: int, *, by, reason: str = "undone") -> ScoreEvent:
    """Take back an event of the hand in progress (and its steal partner)."""
    with transaction.atomic():
        game = lock_to_score(game, by)
        require_playable(game)
        event = (
            ScoreEvent.objects.filter(game=game, pk=event_id, active=True)
            .select_related("seat")
            .first()
        )
        if event is None:
            raise ScoringError(say("That event does not exist or was already undone."), "event")
        if event.hand_number != game.hand_count + 1:
            raise GameConflict(
                say("Only events of the hand in progress can be undone; correct the hand instead."),
                game=game,
            )
        ruleset = ruleset_of(game)
        ids = [event.pk] + ([event.pair_id] if event.pair_id else [])
        ScoreEvent.objects.filter(pk__in=ids).update(
            active=False, removed_reason=(reason or "undone")[:300], removed_by=user_or_none(by)
        )
        if event.violation:
            _redecide_violations(game, ruleset, event.seat_id)
        recompute(game, ruleset)
        record_act(
            OfficialAct.Kind.UNDONE,
            by=by,
            game=game,
            subject=event.seat.display_name,
            hand=event.hand_number,
            reason=reason or "undone",
            seat=event.seat.name,
            event=event.pk,
            undone_kind=event.kind,
            points=event.points,
            violation=event.violation,
        )
        changed(game, "event_undone")
    event.refresh_from_db()
    return event


def _plays_scored(game: Game, number: int) -> int:
    """In-play scores and steals already recorded for hand ``number``."""
    return ScoreEvent.objects.filter(
        game=game,
        hand_number=number,
        active=True,
        kind__in=[ScoreEvent.Kind.IN_PLAY, ScoreEvent.Kind.STEAL],
    ).count()


def _penalties(events: Iterable[ScoreEvent]) -> list[tuple[str, int]]:
    return [(e.side.name, e.points) for e in events if e.kind == ScoreEvent.Kind.PENALTY]

"""Recording, correcting and voiding hands.

A hand arrives as a ``HandEntry``: how it ended and the counts that score it, as the
table entered them. ``record_hand`` and ``correct_hand`` each lock the game and check
that it takes the hand, then hand the entry to ``_apply``, which weighs it by the game's
rules once and writes it: as the game's next hand, or as a new version of an earlier
one.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from domain.say import say
from scoring import engine, statements
from scoring.audit import record_act
from scoring.engine import ScoringError
from scoring.models import Game, Hand, OfficialAct, ScoreEvent, seat_names
from scoring.rulesets import RuleSet
from scoring.services.common import (
    GameConflict,
    add_to_totals,
    changed,
    check_play_count,
    check_play_points,
    decide,
    lock_to_score,
    no_such_seat,
    recompute,
    require_open,
    require_playable,
    ruleset_of,
    table,
    user_or_none,
)


@dataclass(frozen=True)
class HandEntry:
    """How a hand ended, as the table entered it, before the game's rules weigh it.

    ``in_play`` lists the points scored during play, each ``{"seat", "points"}`` or a
    ``(seat, points)`` pair; ``None`` says nothing of them (a correction then keeps those
    recorded). ``leader`` is who led the hand, when known.
    """

    ended: str
    domino_by: str | None = None
    pips: Mapping[str, int] | None = None
    tiles: Mapping[str, Sequence] | None = None
    leader: str | None = None
    in_play: Iterable | None = None
    lowest_tiles: Mapping | None = None

    def __post_init__(self):
        if self.in_play is not None:
            object.__setattr__(self, "in_play", tuple(self.in_play))


@dataclass(frozen=True)
class HandOutcome:
    """What ``record_hand`` and ``correct_hand`` report back to the table."""

    hand: Hand
    game: Game
    next_leader: str | None
    replayed: bool = False


def record_hand(
    game: Game | int,
    *,
    by,
    number: int,
    idempotency_key: str | None = None,
    **entered: Any,
) -> HandOutcome:
    """Record how hand ``number`` ended (``entered``: the fields of a ``HandEntry``),
    award it, update the totals and decide the game."""
    entry = HandEntry(**entered)
    with transaction.atomic():
        game = lock_to_score(game, by)
        if idempotency_key:
            earlier = Hand.objects.filter(
                game=game, idempotency_key=idempotency_key, version=1
            ).first()
            if earlier is not None:
                return HandOutcome(
                    hand=earlier, game=game, next_leader=game.next_leader or None, replayed=True
                )
        require_playable(game)
        _require_next(game, number)
        hand = _apply(game, entry, number=number, by=by, idempotency_key=idempotency_key or "")
    return HandOutcome(hand=hand, game=game, next_leader=game.next_leader or None)


def correct_hand(
    game: Game | int,
    hand_number: int,
    *,
    by,
    reason: str,
    expected_version: int,
    **entered: Any,
) -> HandOutcome:
    """Write a new version of an earlier hand (``entered``: the fields of a
    ``HandEntry``) and recompute every total after it."""
    entry = HandEntry(**entered)
    reason = _reason(reason, say("Say why the hand is being corrected."))
    with transaction.atomic():
        game = lock_to_score(game, by)
        require_open(game)
        current = _current_hand(game, hand_number)
        if current.version != expected_version:
            raise GameConflict(
                say(
                    "Hand {hand_number} was changed meanwhile: it is at version {version}, "
                    "not {expected_version}. Check it and correct again.",
                    hand_number=hand_number,
                    version=current.version,
                    expected_version=expected_version,
                ),
                game=game,
                current=current,
            )
        hand = _apply(game, entry, number=hand_number, by=by, replacing=current, reason=reason)
    return HandOutcome(hand=hand, game=game, next_leader=game.next_leader or None)


def void_hand(game: Game | int, hand_number: int, *, by, reason: str) -> HandOutcome:
    """Cancel a hand's award (a misdeal recorded by mistake); its number and history stay."""
    reason = _reason(reason, say("Say why the hand is being voided."))
    with transaction.atomic():
        game = lock_to_score(game, by)
        require_open(game)
        current = _current_hand(game, hand_number)
        if current.voided:
            raise GameConflict(
                say("Hand {hand_number} is already void.", hand_number=hand_number),
                game=game,
                current=current,
            )
        ruleset = ruleset_of(game)
        hand = _new_version(
            game,
            current,
            by=by,
            reason=reason,
            voided=True,
            awards=dict.fromkeys(current.awards, 0),
            winners=[],
        )
        ScoreEvent.objects.filter(game=game, hand_number=hand_number, active=True).update(
            active=False, removed_reason=f"hand voided: {reason}"[:300], removed_by=user_or_none(by)
        )
        game.last_hand_at = hand.recorded_at
        recompute(game, ruleset)
        record_act(OfficialAct.Kind.VOIDED, by=by, game=game, hand=hand_number, reason=reason)
        changed(game, "hand_voided")
    return HandOutcome(hand=hand, game=game, next_leader=game.next_leader or None)


# --- the core: one entry, weighed once, applied to the locked game ------------------------


@dataclass(frozen=True)
class _Weighed:
    """An entry weighed by the game's rules: the hand's row, its result, its in-play
    events (None: keep those recorded) and who leads next."""

    row: dict
    result: engine.HandResult
    events: list[ScoreEvent] | None
    next_leader: str


def _apply(
    game: Game,
    entry: HandEntry,
    *,
    number: int,
    by,
    replacing: Hand | None = None,
    reason: str = "",
    idempotency_key: str = "",
) -> Hand:
    """Weigh ``entry`` by the locked game's rules and write it as hand ``number``: the
    game's next hand, or a new version of ``replacing``; then bring the totals, the next
    leader and the game's state up to date."""
    ruleset = ruleset_of(game)
    leader = entry.leader
    if replacing is None and leader is None:
        leader = game.next_leader or None  # the table was told who leads
    weighed = _weigh(
        game, ruleset, entry, number=number, by=by, leader=leader, correcting=bool(replacing)
    )
    if replacing is None:
        return _append(game, ruleset, weighed, number=number, by=by, key=idempotency_key)
    return _replace(game, ruleset, weighed, current=replacing, by=by, reason=reason)


def _weigh(
    game: Game,
    ruleset: RuleSet,
    entry: HandEntry,
    *,
    number: int,
    by,
    leader: str | None,
    correcting: bool,
) -> _Weighed:
    """Check ``entry`` against the rules and score it: the only place a hand is validated."""
    names = seat_names(ruleset.players)
    result = engine.score_ending(
        ruleset,
        names,
        ended=entry.ended,
        domino_by=entry.domino_by,
        pips=entry.pips,
        tiles=entry.tiles,
        leader=leader,
        lowest_tiles=entry.lowest_tiles,
    )
    # A correction that says nothing of the in-play points keeps those recorded. Bounded
    # per request here and per hand as points come in live; counting both together
    # would cost every hand a query, for a bound already finite.
    events = (
        None
        if correcting and entry.in_play is None
        else _in_play_events(game, ruleset, number, entry.in_play or (), by)
    )
    row = {
        "ended": entry.ended,
        "domino_by": entry.domino_by or "",
        "leader": leader or "",
        "pips": _pips_of(entry),
        "tiles": entry.tiles,
        "lowest_tiles": entry.lowest_tiles,
        "awards": dict(result.awards),
        "winners": list(result.winners),
    }
    return _Weighed(row, result, events, _leader_after(ruleset, names, leader, result))


def _append(game: Game, ruleset: RuleSet, weighed: _Weighed, *, number: int, by, key: str) -> Hand:
    """Write the game's next hand: its totals grow by the hand, the game is decided."""
    result, events = weighed.result, weighed.events
    hand = Hand(
        game=game, number=number, idempotency_key=key, recorded_by=user_or_none(by), **weighed.row
    )
    add_to_totals(game, result.awards, [(e.side_name, e.points) for e in events])
    game.tallies = engine.count_tallies(
        game.totals, [(result.winners, weighed.row["domino_by"], False)], start=game.tallies
    )
    game.hand_count = number
    game.next_leader = weighed.next_leader
    game.revision += 1
    called = _time_called(game, number)
    decide(game, ruleset)
    _write_hand(game, hand, events, _APPENDED)
    if called and game.status == Game.Status.FINISHED:
        record_act(
            OfficialAct.Kind.TIME_CALLED,
            by=by,
            game=game,
            hand=number,
            winner=game.winner,
            hands_after_time=game.hands_after_time,
            totals=dict(game.totals),
        )
    changed(game, "hand_recorded", revision_saved=True)
    return hand


# What writing the next hand changes on the game.
_APPENDED = [
    "totals",
    "tallies",
    "last_hand_at",
    "hand_count",
    "next_leader",
    "status",
    "winner",
    "finished_at",
    "revision",
    "time_called_hand",
]


def _replace(
    game: Game, ruleset: RuleSet, weighed: _Weighed, *, current: Hand, by, reason: str
) -> Hand:
    """Write a new version of an earlier hand (and its in-play points, when given), then
    recompute the game from its current hands."""
    hand = _new_version(game, current, by=by, reason=reason, **weighed.row)
    if weighed.events is not None:
        ScoreEvent.objects.filter(
            game=game, hand_number=current.number, kind=ScoreEvent.Kind.IN_PLAY, active=True
        ).update(active=False, removed_reason=f"replaced by correction v{hand.version}")
        ScoreEvent.objects.bulk_create(_seat_events(game, weighed.events))
    if current.number == game.hand_count:
        game.next_leader = weighed.next_leader
    game.last_hand_at = hand.recorded_at
    recompute(game, ruleset)
    changed(game, "hand_corrected")
    return hand


# --- the pieces ----------------------------------------------------------------------------


def _reason(reason: str, refusal: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ScoringError(refusal, "reason")
    return reason


def _require_next(game: Game, number: int) -> None:
    expected = game.hand_count + 1
    if number != expected:
        raise GameConflict(
            say(
                "Hand {number} cannot be recorded: the next hand of this game is "
                "{expected} (hand {number} is already recorded).",
                number=number,
                expected=expected,
            )
            if number < expected
            else say(
                "Hand {number} cannot be recorded: the next hand of this game is {expected}.",
                number=number,
                expected=expected,
            ),
            game=game,
        )


def _in_play_events(
    game: Game, ruleset: RuleSet, number: int, in_play: Iterable, by
) -> list[ScoreEvent]:
    """Hand ``number``'s in-play points, checked, as events that name their seat and side
    (``seat_name``, ``side_name``); ``_seat_events`` or the hand's write fills in the ids."""
    names = seat_names(ruleset.players)
    side_of = engine.side_of(ruleset, names)
    in_play = list(in_play)
    check_play_count(ruleset, len(in_play), field="in_play")
    events = []
    for index, entry in enumerate(in_play):
        seat_name, points = (
            (entry["seat"], entry["points"]) if isinstance(entry, dict) else tuple(entry)
        )
        if not isinstance(seat_name, str) or seat_name not in side_of:
            raise no_such_seat(seat_name, names, f"in_play[{index}].seat")
        check_play_points(ruleset, points, field=f"in_play[{index}].points")
        event = ScoreEvent(
            game=game,
            hand_number=number,
            kind=ScoreEvent.Kind.IN_PLAY,
            points=points,
            created_by=user_or_none(by),
        )
        event.seat_name, event.side_name = seat_name, side_of[seat_name]
        events.append(event)
    return events


def _seat_events(game: Game, events: list[ScoreEvent]) -> list[ScoreEvent]:
    """Give named events their seat and side rows (one query)."""
    if events:
        _, seats_by_name = table(game)
        for event in events:
            seat = seats_by_name[event.seat_name]
            event.seat, event.side = seat, seat.side
    return events


def _pips_of(entry: HandEntry) -> dict:
    """The pips left in each hand, as entered or counted from the tiles entered."""
    if entry.pips is not None:
        return {seat: int(value) for seat, value in entry.pips.items()}
    return {seat: sum(a + b for a, b in hand) for seat, hand in entry.tiles.items()}


def _leader_after(ruleset: RuleSet, names: list[str], leader: str | None, result) -> str:
    if leader is None and ruleset.next_leader == "rotate":
        return ""  # without knowing who led this hand, nobody can say who is next
    return engine.next_leader(ruleset, names, leader=leader, result=result) or ""


def _time_called(game: Game, number: int) -> bool:
    """Whether time has been called on the game by the time hand ``number`` is recorded;
    the first hand recorded after the call fixes how many came before it."""
    if game.time_limit_at is None or timezone.now() < game.time_limit_at:
        return False
    if game.time_called_hand is None:
        game.time_called_hand = number - 1
    return True


def _write_hand(game: Game, hand: Hand, events: list[ScoreEvent], fields: Sequence[str]) -> None:
    """Store a new hand, its in-play events (named by seat) and the game's new state: on
    PostgreSQL in one statement, elsewhere the same rows through the ORM."""
    if connection.vendor == "postgresql":
        statements.write_hand(game, hand, events, fields)
        return
    hand.save(force_insert=True)
    if events:
        ScoreEvent.objects.bulk_create(_seat_events(game, events))
    game.last_hand_at = hand.recorded_at
    statements.save_game(game, fields)


def _current_hand(game: Game, number: int) -> Hand:
    hand = Hand.objects.filter(game=game, number=number, is_current=True).first()
    if hand is None:
        raise ScoringError(say("This game has no hand {number}.", number=number), "hand")
    return hand


def _new_version(game: Game, current: Hand, *, by, reason: str, **changes) -> Hand:
    """Hand ``current`` of the locked ``game`` again, as its next version with ``changes``."""
    Hand.objects.filter(pk=current.pk).update(is_current=False)
    fields = {
        "ended": current.ended,
        "domino_by": current.domino_by,
        "leader": current.leader,
        "pips": current.pips,
        "tiles": current.tiles,
        "lowest_tiles": current.lowest_tiles,
        "awards": current.awards,
        "winners": current.winners,
        "voided": current.voided,
        **changes,
    }
    return Hand.objects.create(
        game=game,
        number=current.number,
        version=current.version + 1,
        reason=reason[:500],
        recorded_by=user_or_none(by),
        **fields,
    )

"""Every write to a game: one function per referee or organizer action, one transaction each.

Each service locks the game row, validates through the pure engine, writes, bumps the
game's revision, sends ``game_saved`` for a followed game and, once the transaction
commits, ``game_changed``.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import BooleanField, Case, F, Sum, Value, When
from django.utils import timezone

from accounts.permissions import require
from domain.errors import Conflict
from domain.say import say
from scoring import engine, statements
from scoring.audit import record_act
from scoring.bounds import (
    MAX_PLAY_POINTS,
    MOST_PLAY_POINTS,
    MOST_TILES,
    PENALTY_RANGE,
    whole_number,
    within,
)
from scoring.engine import ScoringError
from scoring.models import SEAT_NAMES, Game, Hand, OfficialAct, ScoreEvent, Seat, Side
from scoring.rulesets import RuleSet, get_ruleset
from scoring.signals import game_changed, game_saved


class GameConflict(Conflict):
    """The game is not in a state that allows this write (finished, stale, out of turn)."""

    def __init__(self, message: str, *, game: Game | None = None, current: Any = None):
        super().__init__(message)
        self.game = game
        self.current = current


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in a seat when a game is created: a player, or just a name."""

    player: Any = None
    display_name: str = ""


@dataclass(frozen=True)
class HandOutcome:
    """What ``record_hand`` and ``correct_hand`` report back to the table."""

    hand: Hand
    game: Game
    next_leader: str | None
    replayed: bool = False


# --- creating and starting games -------------------------------------------------------


def _side_names(ruleset: RuleSet, seat_names: Sequence[str]) -> list[list[str]]:
    """Seat names grouped by side in side order: partners sit across (seats 0 and 2)."""
    if ruleset.teams == "partners":
        return [[seat_names[0], seat_names[2]], [seat_names[1], seat_names[3]]]
    return [[name] for name in seat_names]


def create_game(
    *,
    ruleset_key: str,
    seats: Sequence[SeatSpec | Any],
    by=None,
    overrides: dict | None = None,
    label: str = "",
    public: bool = True,
    referees: Iterable = (),
    start: bool = False,
    followed: bool = False,
    held: bool = False,
) -> Game:
    """Create a game with its sides and seats; ``start=True`` freezes its rules at once.

    ``followed`` marks a game that something above scoring listens to (a tournament's
    table); ``game_changed`` says so with every change. ``held`` keeps it closed until
    ``release_games`` opens it (a table whose round is still a draft).
    """
    with transaction.atomic():
        (game,) = create_games(
            ruleset_key=ruleset_key,
            tables=[(seats, label)],
            by=by,
            overrides=overrides,
            public=public,
            followed=followed,
            held=held,
            start=start,
        )
        if referees:
            game.referees.add(*referees)
    return game


def create_games(
    *,
    ruleset_key: str,
    tables: Sequence[tuple[Sequence[SeatSpec | Any], str]],
    by=None,
    overrides: dict | None = None,
    public: bool = True,
    followed: bool = False,
    held: bool = False,
    start: bool = False,
) -> list[Game]:
    """Create one game per ``(seats, label)`` under one rule set, in a few bulk inserts.

    A round of a large event seats a hundred tables at once: three inserts for all of
    them rather than several per table.
    """
    overrides = dict(overrides or {})
    specs = [
        [seat if isinstance(seat, SeatSpec) else SeatSpec(player=seat) for seat in seats]
        for seats, _ in tables
    ]
    layouts = {}
    for count in sorted({len(seats) for seats in specs}):
        # Resolving now refuses an unknown preset, a bad override or a table size the
        # rule set does not allow before anything is written.
        ruleset = get_ruleset(ruleset_key, players=count, overrides=overrides)
        seat_names = list(SEAT_NAMES[:count])
        sides = ["+".join(names) for names in _side_names(ruleset, seat_names)]
        layouts[count] = (seat_names, sides, ruleset)
    creator = by if getattr(by, "pk", None) else None
    with transaction.atomic():
        games = Game.objects.bulk_create(
            Game(
                totals=dict.fromkeys(layouts[len(seats)][1], 0),
                tallies={name: dict(engine.TALLY_ZERO) for name in layouts[len(seats)][1]},
                ruleset_key=ruleset_key,
                overrides=overrides,
                label=label,
                public=public,
                followed=followed,
                held=held and not start,
                created_by=creator,
                revision=1,
            )
            for seats, (_, label) in zip(specs, tables, strict=True)
        )
        sides = Side.objects.bulk_create(
            Side(game=game, position=index, name=name)
            for game, seats in zip(games, specs, strict=True)
            for index, name in enumerate(layouts[len(seats)][1])
        )
        side_of = {(side.game_id, name): side for side in sides for name in side.name.split("+")}
        Seat.objects.bulk_create(
            Seat(
                game=game,
                position=index,
                name=name,
                side=side_of[game.pk, name],
                player=spec.player,
                display_name=spec.display_name or (str(spec.player) if spec.player else name),
            )
            for game, seats in zip(games, specs, strict=True)
            for index, (name, spec) in enumerate(zip(layouts[len(seats)][0], seats, strict=True))
        )
        for game, seats in zip(games, specs, strict=True):
            if start:
                _start(game, layouts[len(seats)][2])
            _changed(game, "created", revision_saved=True)
    return games


def start_game(
    *,
    ruleset_key: str,
    seats: Sequence[SeatSpec | Any],
    by=None,
    overrides: dict | None = None,
    label: str = "",
    public: bool = True,
    referees: Iterable = (),
) -> Game:
    """Create a game and start it now: the way a referee opens a game at a table."""
    return create_game(
        ruleset_key=ruleset_key,
        seats=seats,
        by=by,
        overrides=overrides,
        label=label,
        public=public,
        referees=referees,
        start=True,
    )


def _start(game: Game, ruleset: RuleSet | None = None) -> RuleSet:
    """Freeze the rule set and move a scheduled game to in progress (inside a transaction)."""
    if ruleset is None:
        ruleset = get_ruleset(
            game.ruleset_key, players=game.seats.count(), overrides=game.overrides
        )
    game.ruleset = ruleset.to_dict()
    game.status = Game.Status.IN_PROGRESS
    game.started_at = timezone.now()
    statements.save_game(game, ["ruleset", "status", "started_at"])
    return ruleset


# --- shared plumbing ---------------------------------------------------------------------


def _lock(game: Game | int, *, by=None) -> Game:
    """The game row, locked for the rest of the transaction (see ``statements.lock_game``)."""
    return statements.lock_game(game.pk if isinstance(game, Game) else game, by=by)


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


def _ruleset_of(game: Game) -> RuleSet:
    if game.ruleset is None:
        return _start(game)
    return RuleSet.from_dict(game.ruleset)


def _table(game: Game) -> tuple[list[Seat], dict[str, Seat]]:
    """The game's seats in the order of play (with their sides), and by name."""
    seats = list(game.seats.select_related("side").order_by("position"))
    return seats, {seat.name: seat for seat in seats}


def _seat_names(ruleset: RuleSet) -> list[str]:
    """Seat names in the order of play: A, B, C ... (fixed when the game was created)."""
    return list(SEAT_NAMES[: ruleset.players])


def _changed(game: Game, change: str, *, revision_saved: bool = False) -> None:
    """Bump the revision (unless the caller saved it), tell whatever holds the game now,
    and announce the change on commit."""
    if not revision_saved:
        Game.objects.filter(pk=game.pk).update(revision=F("revision") + 1)
    game_id, followed, status = game.pk, game.followed, game.status
    if followed:
        game_saved.send(sender=Game, game=game, change=change)
    transaction.on_commit(
        lambda: game_changed.send(
            sender=Game, game_id=game_id, change=change, followed=followed, status=status
        )
    )


def _require_open(game: Game) -> None:
    # A flag on the game rather than a rule: rules only grant and superusers pass them
    # all, yet nobody may record in a draft; and the flag comes with the locked row.
    if game.held:
        raise GameConflict(
            say(
                "This table is not published yet: nothing can be recorded until the "
                "organizers publish its round."
            ),
            game=game,
        )


def _require_playable(game: Game) -> None:
    _require_open(game)
    if game.status == Game.Status.FINISHED:
        raise GameConflict(
            say(
                "This game is finished: {value} won. An organizer can reopen it.",
                value=game.winner or "nobody",
            ),
            game=game,
        )


def _in_play_events(
    game: Game,
    ruleset: RuleSet,
    number: int,
    in_play: Iterable,
    by,
) -> list[ScoreEvent]:
    """Hand ``number``'s in-play points, checked, as events that name their seat and side
    (``seat_name``, ``side_name``); ``_seat_events`` or the hand's write fills in the ids."""
    seat_names = _seat_names(ruleset)
    side_of = engine.side_of(ruleset, seat_names)
    in_play = list(in_play or ())
    _check_play_count(ruleset, len(in_play), field="in_play")
    events = []
    for index, entry in enumerate(in_play):
        seat_name, points = (
            (entry["seat"], entry["points"]) if isinstance(entry, dict) else tuple(entry)
        )
        if not isinstance(seat_name, str) or seat_name not in side_of:
            raise _no_such_seat(seat_name, seat_names, f"in_play[{index}].seat")
        _check_play_points(ruleset, points, field=f"in_play[{index}].points")
        event = ScoreEvent(
            game=game,
            hand_number=number,
            kind=ScoreEvent.Kind.IN_PLAY,
            points=points,
            created_by=_user(by),
        )
        event.seat_name, event.side_name = seat_name, side_of[seat_name]
        events.append(event)
    return events


def _seat_events(game: Game, events: list[ScoreEvent]) -> list[ScoreEvent]:
    """Give named events their seat and side rows (one query)."""
    if events:
        _, seats_by_name = _table(game)
        for event in events:
            seat = seats_by_name[event.seat_name]
            event.seat, event.side = seat, seat.side
    return events


def _seat(seats_by_name: dict[str, Seat], name: Any, *, field: str) -> Seat:
    seat = seats_by_name.get(name) if isinstance(name, str) else None
    if seat is None:
        raise _no_such_seat(name, seats_by_name, field)
    return seat


def _no_such_seat(name: Any, known: Iterable[str], field: str) -> ScoringError:
    return ScoringError(
        say(
            "There is no seat {name!r} at this table (seats: {known}).",
            name=name,
            known=", ".join(known),
        ),
        field,
    )


def _check_play_count(ruleset: RuleSet, count: int, *, field: str) -> None:
    """Each tile played scores at most once: a hand has no more in-play scores than
    tiles in the set(s)."""
    most = min(len(ruleset.tiles), MOST_TILES)
    if count > most:
        raise ScoringError(
            say(
                "A hand plays at most {most} tiles, so it has at most {most} in-play scores; "
                "this one would have {count}.",
                most=most,
                count=count,
            ),
            field,
        )


def _plays_scored(game: Game, number: int) -> int:
    """In-play scores and steals already recorded for hand ``number``."""
    return ScoreEvent.objects.filter(
        game=game,
        hand_number=number,
        active=True,
        kind__in=[ScoreEvent.Kind.IN_PLAY, ScoreEvent.Kind.STEAL],
    ).count()


def _check_play_points(ruleset: RuleSet, points: Any, *, field: str) -> None:
    if not ruleset.in_play_scoring:
        raise ScoringError(say("This rule set scores no points during play."), field)
    most = MAX_PLAY_POINTS.get(ruleset.boxes, MOST_PLAY_POINTS)
    if isinstance(points, bool) or not isinstance(points, int) or points <= 0 or points % 5:
        raise ScoringError(
            say(
                "In-play points are a positive multiple of five (5, 10 … {most}); got {points!r}.",
                most=most,
                points=points,
            ),
            field,
        )
    if points > most:
        raise ScoringError(
            say(
                "No play can score {points}: the most the ends can show is {most}.",
                points=points,
                most=most,
            ),
            field,
        )


def _user(by):
    return by if getattr(by, "pk", None) else None


def _score(ruleset: RuleSet, seat_names: list[str], **ending) -> engine.HandResult:
    return engine.score_ending(ruleset, seat_names, **ending)


def _pips_of(result: engine.HandResult, pips: dict | None, tiles: dict | None) -> dict:
    if pips is not None:
        return {seat: int(value) for seat, value in pips.items()}
    return {seat: sum(a + b for a, b in hand) for seat, hand in tiles.items()}


def _decide(game: Game, ruleset: RuleSet, totals: dict[str, int] | None = None) -> None:
    """Set the game's status and winner from its totals, or from ``totals`` where only
    some of them count (RULES.md, winning). A forfeit ends the game whatever the totals:
    the leader of the sides that did not forfeit wins (RULES.md, Officiating); sides level
    at the top share first place, so there is no single winner: a drawn game among them,
    with match points as for any draw (their placings are shared, ``standings.side_results``)."""
    if game.forfeits:
        others = {
            name: total for name, total in game.totals.items() if name not in game.forfeited_sides
        }
        top = max(others.values(), default=None)
        leaders = [name for name, total in others.items() if total == top]
        game.status = Game.Status.FINISHED
        game.winner = leaders[0] if len(leaders) == 1 else ""
        game.finished_at = game.finished_at or timezone.now()
        return
    totals = game.totals if totals is None else totals
    if game.time_called_hand is not None:
        outcome = engine.decide_game_on_time(
            ruleset,
            totals,
            hands_since_call=game.hand_count - game.time_called_hand,
            hands_after_time=game.hands_after_time,
        )
    else:
        outcome = engine.decide_game(ruleset, totals)
    if outcome.finished:
        game.status = Game.Status.FINISHED
        game.winner = outcome.winner or ""  # no winner: a drawn game (no play-on at a tie)
        game.finished_at = game.finished_at or timezone.now()
    else:
        game.status = Game.Status.IN_PROGRESS
        game.winner = ""
        game.finished_at = None


# After the hand in play, a few more at most: a round clock that left tables playing on
# for many hands would not limit the round.
HANDS_AFTER_TIME_RANGE = (0, 10)


def _time_called(game: Game, number: int) -> bool:
    """Whether time has been called on the game by the time hand ``number`` is recorded;
    the first hand recorded after the call fixes how many came before it."""
    if game.time_limit_at is None or timezone.now() < game.time_limit_at:
        return False
    if game.time_called_hand is None:
        game.time_called_hand = number - 1
    return True


def time_limit(game_ids: Iterable[int], *, ends_at, hands_after_time: int = 0) -> int:
    """Call time on these games at ``ends_at`` (None: untimed, as while a round clock is
    paused), finishing the hand in play and ``hands_after_time`` more after it. Finished
    games are left as they are; a game whose call moves forgets when it was called. Runs
    inside the caller's transaction; returns how many games changed."""
    if not within(hands_after_time, HANDS_AFTER_TIME_RANGE):
        low, high = HANDS_AFTER_TIME_RANGE
        raise ScoringError(
            say(
                "Hands after time is called: a whole number from {low} to {high}.",
                low=low,
                high=high,
            ),
            "hands_after_time",
        )
    games = list(
        Game.objects.select_for_update()
        .filter(pk__in=list(game_ids))
        .exclude(status=Game.Status.FINISHED)
        .order_by("pk")
    )
    for game in games:
        game.time_limit_at = ends_at
        game.hands_after_time = hands_after_time
        game.time_called_hand = None
        game.revision += 1
    Game.objects.bulk_update(
        games, ["time_limit_at", "hands_after_time", "time_called_hand", "revision", "updated_at"]
    )
    for game in games:
        _changed(game, "time_limit", revision_saved=True)
    return len(games)


def _leader_after(ruleset: RuleSet, seat_names: list[str], leader: str | None, result) -> str:
    if leader is None and ruleset.next_leader == "rotate":
        return ""  # without knowing who led this hand, nobody can say who is next
    return engine.next_leader(ruleset, seat_names, leader=leader, result=result) or ""


def _add_to_totals(game: Game, awards: dict[str, int], points: Iterable[tuple[str, int]]) -> None:
    """Add a hand's awards and (side name, points) of events to the running totals."""
    totals = dict(game.totals)
    for name, award in awards.items():
        totals[name] = totals.get(name, 0) + award
    for name, value in points:
        totals[name] = totals.get(name, 0) + value
    game.totals = totals


def _penalties(events: Iterable[ScoreEvent]) -> list[tuple[str, int]]:
    return [(e.side.name, e.points) for e in events if e.kind == ScoreEvent.Kind.PENALTY]


# --- hands -------------------------------------------------------------------------------


def record_hand(
    game: Game | int,
    *,
    by,
    number: int,
    ended: str,
    domino_by: str | None = None,
    pips: dict | None = None,
    tiles: dict | None = None,
    leader: str | None = None,
    in_play: Iterable = (),
    lowest_tiles: dict | None = None,
    idempotency_key: str | None = None,
) -> HandOutcome:
    """Record how hand ``number`` ended, award it, update the totals and decide the game."""
    with transaction.atomic():
        game = _lock(game, by=by)
        require(by, "game.score", game)
        if idempotency_key:
            earlier = Hand.objects.filter(
                game=game, idempotency_key=idempotency_key, version=1
            ).first()
            if earlier is not None:
                return HandOutcome(
                    hand=earlier, game=game, next_leader=game.next_leader or None, replayed=True
                )
        _require_playable(game)
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
        ruleset = _ruleset_of(game)
        seat_names = _seat_names(ruleset)
        if leader is None and game.next_leader:
            leader = game.next_leader
        result = _score(
            ruleset,
            seat_names,
            ended=ended,
            domino_by=domino_by,
            pips=pips,
            tiles=tiles,
            leader=leader,
            lowest_tiles=lowest_tiles,
        )
        # Bounded per request here and per hand as points come in live; counting both
        # together would cost every hand a query, for a bound already finite.
        events = _in_play_events(game, ruleset, number, in_play, by)
        hand = Hand(
            game=game,
            number=number,
            ended=ended,
            domino_by=domino_by or "",
            leader=leader or "",
            pips=_pips_of(result, pips, tiles),
            tiles=tiles,
            lowest_tiles=lowest_tiles,
            awards=dict(result.awards),
            winners=list(result.winners),
            idempotency_key=idempotency_key or "",
            recorded_by=_user(by),
        )
        _add_to_totals(game, result.awards, [(e.side_name, e.points) for e in events])
        game.tallies = engine.count_tallies(
            game.totals, [(result.winners, domino_by or "", False)], start=game.tallies
        )
        game.hand_count = number
        game.next_leader = _leader_after(ruleset, seat_names, leader, result)
        game.revision += 1
        called = _time_called(game, number)
        _decide(game, ruleset)
        _write_hand(
            game,
            hand,
            events,
            [
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
            ],
        )
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
        _changed(game, "hand_recorded", revision_saved=True)
    return HandOutcome(hand=hand, game=game, next_leader=game.next_leader or None)


def correct_hand(
    game: Game | int,
    hand_number: int,
    *,
    by,
    reason: str,
    expected_version: int,
    ended: str,
    domino_by: str | None = None,
    pips: dict | None = None,
    tiles: dict | None = None,
    leader: str | None = None,
    in_play: Iterable | None = None,
    lowest_tiles: dict | None = None,
) -> HandOutcome:
    """Write a new version of an earlier hand and recompute every total after it."""
    reason = (reason or "").strip()
    if not reason:
        raise ScoringError(say("Say why the hand is being corrected."), "reason")
    with transaction.atomic():
        game = _lock(game)
        require(by, "game.score", game)
        _require_open(game)
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
        ruleset = _ruleset_of(game)
        seat_names = _seat_names(ruleset)
        result = _score(
            ruleset,
            seat_names,
            ended=ended,
            domino_by=domino_by,
            pips=pips,
            tiles=tiles,
            leader=leader,
            lowest_tiles=lowest_tiles,
        )
        new_events = (
            None if in_play is None else _in_play_events(game, ruleset, hand_number, in_play, by)
        )
        hand = _new_version(
            current,
            by=by,
            reason=reason,
            ended=ended,
            domino_by=domino_by or "",
            leader=leader or "",
            pips=_pips_of(result, pips, tiles),
            tiles=tiles,
            lowest_tiles=lowest_tiles,
            awards=dict(result.awards),
            winners=list(result.winners),
        )
        if new_events is not None:
            ScoreEvent.objects.filter(
                game=game, hand_number=hand_number, kind=ScoreEvent.Kind.IN_PLAY, active=True
            ).update(active=False, removed_reason=f"replaced by correction v{hand.version}")
            ScoreEvent.objects.bulk_create(_seat_events(game, new_events))
        if hand_number == game.hand_count:
            game.next_leader = _leader_after(ruleset, seat_names, leader, result)
        game.last_hand_at = hand.recorded_at
        _recompute(game, ruleset)
        _changed(game, "hand_corrected")
    return HandOutcome(hand=hand, game=game, next_leader=game.next_leader or None)


def void_hand(game: Game | int, hand_number: int, *, by, reason: str) -> HandOutcome:
    """Cancel a hand's award (a misdeal recorded by mistake); its number and history stay."""
    reason = (reason or "").strip()
    if not reason:
        raise ScoringError(say("Say why the hand is being voided."), "reason")
    with transaction.atomic():
        game = _lock(game)
        require(by, "game.score", game)
        _require_open(game)
        current = _current_hand(game, hand_number)
        if current.voided:
            raise GameConflict(
                say("Hand {hand_number} is already void.", hand_number=hand_number),
                game=game,
                current=current,
            )
        ruleset = _ruleset_of(game)
        hand = _new_version(
            current,
            by=by,
            reason=reason,
            voided=True,
            awards=dict.fromkeys(current.awards, 0),
            winners=[],
        )
        ScoreEvent.objects.filter(game=game, hand_number=hand_number, active=True).update(
            active=False, removed_reason=f"hand voided: {reason}"[:300], removed_by=_user(by)
        )
        game.last_hand_at = hand.recorded_at
        _recompute(game, ruleset)
        record_act(OfficialAct.Kind.VOIDED, by=by, game=game, hand=hand_number, reason=reason)
        _changed(game, "hand_voided")
    return HandOutcome(hand=hand, game=game, next_leader=game.next_leader or None)


def _current_hand(game: Game, number: int) -> Hand:
    hand = Hand.objects.filter(game=game, number=number, is_current=True).first()
    if hand is None:
        raise ScoringError(say("This game has no hand {number}.", number=number), "hand")
    return hand


def _new_version(current: Hand, *, by, reason: str, **changes) -> Hand:
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
        game=current.game,
        number=current.number,
        version=current.version + 1,
        reason=reason[:500],
        recorded_by=_user(by),
        **fields,
    )


def _recompute(game: Game, ruleset: RuleSet) -> None:
    """Set every side's total and tallies from the current hands and active events, then
    decide."""
    sides = engine.side_names(ruleset, _seat_names(ruleset))
    totals = dict.fromkeys(sides, 0)
    hands = []
    for awards, winners, domino_by, voided in Hand.objects.filter(
        game=game, is_current=True
    ).values_list("awards", "winners", "domino_by", "voided"):
        for name, award in awards.items():
            totals[name] += award
        hands.append((winners, domino_by, voided))
    by_side = (
        ScoreEvent.objects.filter(game=game, active=True)
        .annotate(
            in_progress=Case(
                When(hand_number__gt=game.hand_count, then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
        .values("side__name", "kind", "in_progress")
        .annotate(points=Sum("points"))
        .order_by()
    )
    penalties = []
    at_hand_end = dict(totals)
    for row in by_side:
        totals[row["side__name"]] += row["points"]
        if not row["in_progress"]:
            at_hand_end[row["side__name"]] += row["points"]
        if row["kind"] == ScoreEvent.Kind.PENALTY:
            penalties.append((row["side__name"], row["points"]))
    game.totals = totals
    game.tallies = engine.count_tallies(sides, hands, penalties)
    # Under end_of_hand only the end of a hand decides the game: points of the hand in
    # progress count in the totals but wait for its end (RULES.md, winning a game).
    _decide(game, ruleset, at_hand_end if ruleset.win_check == "end_of_hand" else None)
    statements.save_game(
        game,
        ["totals", "tallies", "last_hand_at", "status", "winner", "finished_at", "next_leader"],
    )


# --- score events ------------------------------------------------------------------------


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
        game = _lock(game)
        # A sanction is an organizer's; any other event the table's.
        require(by, "game.manage" if sanction else "game.score", game)
        _require_playable(game)
        if hand != game.hand_count + 1:
            raise GameConflict(
                say(
                    "Points during play belong to the hand in progress, hand {value}.",
                    value=game.hand_count + 1,
                ),
                game=game,
            )
        ruleset = _ruleset_of(game)
        seats, seats_by_name = _table(game)
        actor = _seat(seats_by_name, seat, field="seat")
        common = {"game": game, "hand_number": hand, "note": note[:300], "created_by": _user(by)}
        if from_seat and kind != ScoreEvent.Kind.STEAL:
            raise ScoringError(say("Only a steal takes points from another seat."), "from_seat")
        if kind in (ScoreEvent.Kind.IN_PLAY, ScoreEvent.Kind.STEAL):
            _check_play_count(ruleset, _plays_scored(game, hand) + 1, field="hand")
        if kind == ScoreEvent.Kind.IN_PLAY:
            _check_play_points(ruleset, points, field="points")
            events = [ScoreEvent(seat=actor, side=actor.side, kind=kind, points=points, **common)]
        elif kind == ScoreEvent.Kind.STEAL:
            _check_play_points(ruleset, points, field="points")
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
            _start(game, ruleset)
        created = ScoreEvent.objects.bulk_create(events)
        if len(created) == 2:
            ScoreEvent.objects.filter(pk=created[1].pk).update(pair=created[0])
            ScoreEvent.objects.filter(pk=created[0].pk).update(pair=created[1])
        _add_to_totals(game, {}, [(e.side.name, e.points) for e in created])
        game.tallies = engine.count_tallies(
            game.totals, penalties=_penalties(created), start=game.tallies
        )
        if ruleset.win_check == "immediate":
            _decide(game, ruleset)
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
        _changed(game, "event_added")
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
        game = _lock(game)
        require(by, "game.score", game)
        _require_playable(game)
        event = ScoreEvent.objects.filter(game=game, pk=event_id, active=True).first()
        if event is None:
            raise ScoringError(say("That event does not exist or was already undone."), "event")
        if event.hand_number != game.hand_count + 1:
            raise GameConflict(
                say("Only events of the hand in progress can be undone; correct the hand instead."),
                game=game,
            )
        ruleset = _ruleset_of(game)
        ids = [event.pk] + ([event.pair_id] if event.pair_id else [])
        ScoreEvent.objects.filter(pk__in=ids).update(
            active=False, removed_reason=(reason or "undone")[:300], removed_by=_user(by)
        )
        if event.violation:
            _redecide_violations(game, ruleset, event.seat_id)
        _recompute(game, ruleset)
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
        _changed(game, "event_undone")
    event.refresh_from_db()
    return event


# --- organizer's undo --------------------------------------------------------------------


def reopen_game(game: Game | int, *, by, reason: str) -> Game:
    """Undo a finished game's result so that hands can be corrected or added."""
    reason = (reason or "").strip()
    if not reason:
        raise ScoringError(say("Say why the game is being reopened."), "reason")
    with transaction.atomic():
        game = _lock(game)
        require(by, "game.manage", game)
        if game.status != Game.Status.FINISHED:
            raise GameConflict(say("Only a finished game can be reopened."), game=game)
        game.status = Game.Status.IN_PROGRESS
        game.winner = ""
        game.finished_at = None
        forfeits, game.forfeits = game.forfeits, ""  # reopened, a forfeit is taken back too
        game.reopened_reason = reason[:500]
        statements.save_game(
            game, ["status", "winner", "finished_at", "forfeits", "reopened_reason"]
        )
        record_act(OfficialAct.Kind.REOPENED, by=by, game=game, reason=reason, forfeits=forfeits)
        _changed(game, "game_reopened")
    return game


def release_games(game_ids: Iterable[int]) -> int:
    """Open held games: whoever may see them now sees them, and their referees score them.

    Called by whatever held them (a tournament publishing a round), inside its transaction.
    """
    return Game.objects.filter(pk__in=list(game_ids), held=True).update(
        held=False, revision=F("revision") + 1
    )


def add_referee(game: Game | int, user, *, by) -> None:
    """Let ``user`` score ``game``."""
    with transaction.atomic():
        game = _lock(game)
        require(by, "game.manage", game)
        game.referees.add(user)
        _changed(game, "referee_added")


__all__ = [
    "GameConflict",
    "HandOutcome",
    "SeatSpec",
    "add_referee",
    "add_score_event",
    "correct_hand",
    "create_game",
    "record_hand",
    "release_games",
    "reopen_game",
    "start_game",
    "time_limit",
    "undo_event",
    "void_hand",
]

"""What every write to a game does: lock the row, check that the game takes the write,
decide it from its totals, and announce the change.

The services of this package and ``scoring.officiating`` build on these steps; nothing
outside scoring needs them.
"""

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import BooleanField, Case, F, Sum, Value, When
from django.utils import timezone

from accounts.permissions import is_signed_in, require
from domain.errors import Conflict
from domain.say import say
from scoring import engine, statements
from scoring.bounds import MAX_PLAY_POINTS, MOST_PLAY_POINTS, MOST_TILES
from scoring.engine import ScoringError
from scoring.models import Game, Hand, ScoreEvent, Seat, seat_names
from scoring.rulesets import RuleSet, get_ruleset
from scoring.signals import game_changed, game_saved


class GameConflict(Conflict):
    """The game is not in a state that allows this write (finished, stale, out of turn)."""

    def __init__(self, message: str, *, game: Game | None = None, current: Any = None):
        super().__init__(message)
        self.game = game
        self.current = current


def lock(game: Game | int) -> Game:
    """The game row, locked for the rest of the transaction (see ``statements.lock_game``)."""
    return statements.lock_game(game.pk if isinstance(game, Game) else game)


def lock_to_score(game: Game | int, by) -> Game:
    """The game row, locked, once ``by`` is known to be allowed to score it.

    The lock's own query says whether ``by`` referees the game, and a referee may score
    it (``scoring.permissions.referee_scores``): the busiest caller asks nothing more.
    Anyone else is asked of every rule.
    """
    locked, referees = statements.lock_game_for(game.pk if isinstance(game, Game) else game, by)
    if not (referees and is_signed_in(by)):
        require(by, "game.score", locked)
    return locked


def begin_play(game: Game, ruleset: RuleSet | None = None) -> RuleSet:
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


def ruleset_of(game: Game) -> RuleSet:
    """The game's frozen rules; a scheduled game is started, which freezes them."""
    if game.ruleset is None:
        return begin_play(game)
    return RuleSet.from_dict(game.ruleset)


def changed(game: Game, change: str, *, revision_saved: bool = False) -> None:
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


def require_open(game: Game) -> None:
    """Refuse a write to a held game (a table whose round is still a draft)."""
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


def require_playable(game: Game) -> None:
    """Refuse a write of play to a held or finished game."""
    require_open(game)
    if game.status == Game.Status.FINISHED:
        raise GameConflict(
            say(
                "This game is finished: {value} won. An organizer can reopen it.",
                value=game.winner or "nobody",
            ),
            game=game,
        )


def user_or_none(by):
    """``by`` as a row's author: nobody for an anonymous caller or a system write."""
    return by if getattr(by, "pk", None) else None


# --- seats -------------------------------------------------------------------------------


def table(game: Game) -> tuple[list[Seat], dict[str, Seat]]:
    """The game's seats in the order of play (with their sides), and by name."""
    seats = list(game.seats.select_related("side").order_by("position"))
    return seats, {seat.name: seat for seat in seats}


def seat_named(seats_by_name: dict[str, Seat], name: Any, *, field: str) -> Seat:
    """The seat called ``name``, or a refusal on ``field`` listing the table's seats."""
    seat = seats_by_name.get(name) if isinstance(name, str) else None
    if seat is None:
        raise no_such_seat(name, seats_by_name, field)
    return seat


def no_such_seat(name: Any, known: Iterable[str], field: str) -> ScoringError:
    """The refusal of a seat name the table does not have, listing those it has."""
    return ScoringError(
        say(
            "There is no seat {name!r} at this table (seats: {known}).",
            name=name,
            known=", ".join(known),
        ),
        field,
    )


# --- points during play ------------------------------------------------------------------


def check_play_count(ruleset: RuleSet, count: int, *, field: str) -> None:
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


def check_play_points(ruleset: RuleSet, points: Any, *, field: str) -> None:
    """In-play points as the ends of a layout can show them under these rules."""
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


# --- totals and the game's state ---------------------------------------------------------


def add_to_totals(game: Game, awards: dict[str, int], points: Iterable[tuple[str, int]]) -> None:
    """Add a hand's awards and (side name, points) of events to the running totals."""
    totals = dict(game.totals)
    for name, award in awards.items():
        totals[name] = totals.get(name, 0) + award
    for name, value in points:
        totals[name] = totals.get(name, 0) + value
    game.totals = totals


def decide(game: Game, ruleset: RuleSet, totals: dict[str, int] | None = None) -> None:
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


def recompute(game: Game, ruleset: RuleSet) -> None:
    """Set every side's total and tallies from the current hands and active events, then
    decide."""
    sides = engine.side_names(ruleset, seat_names(ruleset.players))
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
    decide(game, ruleset, at_hand_end if ruleset.win_check == "end_of_hand" else None)
    statements.save_game(
        game,
        ["totals", "tallies", "last_hand_at", "status", "winner", "finished_at", "next_leader"],
    )

"""Opening, timing and reopening games: the writes around the hands."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from accounts.permissions import require
from domain.say import say
from scoring import engine, statements
from scoring.audit import record_act
from scoring.bounds import within
from scoring.engine import ScoringError
from scoring.models import Game, OfficialAct, Seat, Side, seat_names
from scoring.rulesets import get_ruleset
from scoring.services.common import GameConflict, begin_play, changed, lock


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in a seat when a game is created: a player, or just a name."""

    player: Any = None
    display_name: str = ""


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
        names = seat_names(count)
        layouts[count] = (names, engine.side_names(ruleset, names), ruleset)
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
                begin_play(game, layouts[len(seats)][2])
            changed(game, "created", revision_saved=True)
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


# After the hand in play, a few more at most: a round clock that left tables playing on
# for many hands would not limit the round.
HANDS_AFTER_TIME_RANGE = (0, 10)


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
        changed(game, "time_limit", revision_saved=True)
    return len(games)


def reopen_game(game: Game | int, *, by, reason: str) -> Game:
    """Undo a finished game's result so that hands can be corrected or added."""
    reason = (reason or "").strip()
    if not reason:
        raise ScoringError(say("Say why the game is being reopened."), "reason")
    with transaction.atomic():
        game = lock(game)
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
        changed(game, "game_reopened")
    return game


def release_games(game_ids: Iterable[int]) -> int:
    """Open held games: whoever may see them now sees them, and their referees score them.

    Called by whatever held them (a tournament publishing a round), inside its transaction.
    """
    return Game.objects.filter(pk__in=list(game_ids), held=True).update(
        held=False, revision=F("revision") + 1
    )

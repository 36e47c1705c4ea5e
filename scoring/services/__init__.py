"""Every write to a game: one function per referee or organizer action, one transaction each.

Each service locks the game row, validates through the pure engine, writes, bumps the
game's revision, sends ``game_saved`` for a followed game and, once the transaction
commits, ``game_changed``. ``games`` opens, times and reopens games, ``hands`` records,
corrects and voids hands, ``events`` scores points during a hand; ``common`` holds the
steps they share.
"""

from scoring.engine import ScoringError
from scoring.services.common import GameConflict
from scoring.services.events import CLOCK_VIOLATION, OFFICIATED_KINDS, add_score_event, undo_event
from scoring.services.games import (
    HANDS_AFTER_TIME_RANGE,
    SeatSpec,
    create_game,
    create_games,
    release_games,
    reopen_game,
    start_game,
    time_limit,
)
from scoring.services.hands import HandEntry, HandOutcome, correct_hand, record_hand, void_hand

__all__ = [
    "CLOCK_VIOLATION",
    "HANDS_AFTER_TIME_RANGE",
    "OFFICIATED_KINDS",
    "GameConflict",
    "HandEntry",
    "HandOutcome",
    "ScoringError",
    "SeatSpec",
    "add_score_event",
    "correct_hand",
    "create_game",
    "create_games",
    "record_hand",
    "release_games",
    "reopen_game",
    "start_game",
    "time_limit",
    "undo_event",
    "void_hand",
]

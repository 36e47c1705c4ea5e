"""Games the circuit tests play: followed like an event's table, played from shuffled tiles."""

import random
from contextlib import nullcontext

from scoring import services as scoring
from tests.factories import PlayerFactory, UserFactory
from tournaments.demo import play


def played_game(
    players=None, *, ruleset_key="cutthroat", size=4, by=None, seed=1, hands=None, committed=None
):
    """A followed game (rated like an event's table) played to its end from ``seed``."""
    by = by or UserFactory()
    players = players or [PlayerFactory() for _ in range(size)]
    game = scoring.create_game(
        ruleset_key=ruleset_key,
        seats=[scoring.SeatSpec(player=p, display_name=p.display_name) for p in players],
        by=by,
        referees=[by],
        start=True,
        followed=True,
    )
    with (committed or nullcontext)():
        play(game, by, random.Random(seed), hands=hands)
    game.refresh_from_db()
    return game

"""The pairing engines, one per stage format, behind one registry.

Every engine is pure: ``validate_settings(settings, table_size=)`` refuses bad options
up front, ``total_rounds(count, table_size=, settings=)`` says how long the stage is, and
``pair(entrants, round_number=, table_size=, settings=, seed=, results=)`` returns a
``PairingResult`` (tables in seat order plus flags). ``results`` (bracket slot → entrant
ids best first) is read by the elimination engine only. The same input and seed always
give the same tables.
"""

from domain.say import say
from tournaments.pairing.base import Engine, PairingError
from tournaments.pairing.elimination import DoubleElimination, SingleElimination
from tournaments.pairing.pools import Pools
from tournaments.pairing.round_robin import RoundRobin
from tournaments.pairing.swiss import Swiss

ENGINES: dict[str, Engine] = {
    engine.key: engine
    for engine in (RoundRobin(), Swiss(), SingleElimination(), DoubleElimination(), Pools())
}


def get_engine(format: str) -> Engine:
    """The engine for a stage format."""
    try:
        return ENGINES[format]
    except KeyError as error:
        raise PairingError(
            say("There is no pairing engine for {format!r}.", format=format)
        ) from error


__all__ = ["ENGINES", "PairingError", "get_engine"]

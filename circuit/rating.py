"""OpenSkill ratings over plain rows (no ORM): the same replay serves the incremental
update and the full rebuild, so both give the same numbers to the last bit.

A game is a list of sides, each side a tuple of player ids, with each side's placing
(1 for the highest total; equal totals share a placing). Free-for-all tables of two to
six have one player per side; Partners two per side, each rated.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from openskill.models import PlackettLuce, PlackettLuceRating

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma
Z = 3  # the ordinal is mu - 3 sigma: a rating the player is very likely above


class Skill(NamedTuple):
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - Z * self.sigma


NEW = Skill()


@dataclass(frozen=True)
class RatedGame:
    game_id: int
    sides: tuple[tuple[int, ...], ...]
    placings: tuple[int, ...]


def rate(skills: dict[int, Skill], game: RatedGame) -> dict[int, Skill]:
    """Each player's skill after ``game`` (``skills`` holds those already rated)."""
    before = [[skills.get(player, NEW) for player in side] for side in game.sides]
    teams = [[PlackettLuceRating(s.mu, s.sigma) for s in side] for side in before]
    rated = MODEL.rate(teams, ranks=list(game.placings))
    after = {}
    for side, was, team in zip(game.sides, before, rated, strict=True):
        for player, old, rating in zip(side, was, team, strict=True):
            after[player] = Skill(rating.mu, rating.sigma, old.games + 1)
    return after


def replay(
    skills: dict[int, Skill], games: Iterable[RatedGame]
) -> Iterator[tuple[RatedGame, dict[int, Skill]]]:
    """Rate ``games`` in order, updating ``skills`` in place; yields each game's new skills."""
    for game in games:
        after = rate(skills, game)
        skills.update(after)
        yield game, after

"""What every organizer's action shares: its errors, the tournament lock and the
live parts it makes stale."""

from django.db import transaction

from domain.errors import Conflict, UserError
from domain.say import say_n
from tournaments.entries import LineProblem
from tournaments.models import Entrant, Tournament
from tournaments.read import live


class TournamentError(UserError):
    """An organizer's request that cannot be carried out, with the field at fault."""


class TournamentConflict(TournamentError, Conflict):
    """The tournament's state forbids this now (round already generated, started ...)."""


class BulkRegistrationError(TournamentError):
    """A pasted list had bad or duplicate lines; nothing was registered."""

    def __init__(self, problems: list[LineProblem]):
        super().__init__(
            say_n(
                "{count} line needs fixing; nothing was registered.",
                "{count} lines need fixing; nothing was registered.",
                len(problems),
                count=len(problems),
            ),
            "entrants",
        )
        self.problems = problems

    def body(self, tell) -> dict:
        """Every line at fault, so the organizer can fix them all at once."""
        return {
            "detail": tell(self.message),
            "errors": {"text": [f"line {p.line}: {tell(p.message)}" for p in self.problems]},
            "problems": [
                {"line": p.line, "text": p.text, "message": tell(p.message)} for p in self.problems
            ],
        }


STATUS_ORDER = [choice for choice, _ in Tournament.Status.choices]


def lock_tournament(tournament: Tournament) -> Tournament:
    """The tournament's row, locked until the transaction ends: an organizer's writes to
    one event take their turns."""
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def forget_live_parts(tournament_id: int) -> None:
    """After the write commits, pollers of the event's live parts get them afresh."""
    transaction.on_commit(lambda: live.forget_tournament(tournament_id))


def game_seats(tournament: Tournament, entrants: list[Entrant]) -> list:
    """Players in the order of play: partners sit across (team 1, team 2, team 1, team 2)."""
    if tournament.is_teams:
        first, second = entrants
        return [first.player, second.player, first.partner, second.partner]
    return [entrant.player for entrant in entrants]

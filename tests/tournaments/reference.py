"""The standings' reference inputs: every game of a tournament read as rows through the
ORM, for the pure ``compute_standings``. A recompute sums the seat results in the
database instead; the tests hold the two to the same ranking."""

from scoring.models import Game
from tournaments.models import Match, Round, Tournament
from tournaments.read.standings import ByeRow, EntrantInfo, EntrantResult, GameRow, side_results


def stage_entrants(tournament: Tournament) -> dict[int, list[EntrantInfo]]:
    """Every stage's entrants, in stage order, read through the ORM (a stage without its
    own list has every entrant of the event)."""
    infos = {
        e.pk: EntrantInfo(e.pk, e.seed, e.withdrawn) for e in tournament.entrants.order_by("pk")
    }
    stages = tournament.stages.order_by("order", "pk").prefetch_related("entrants")
    return {
        stage.pk: [infos[pk] for pk in sorted(e.pk for e in stage.entrants.all())]
        or list(infos.values())
        for stage in stages
    }


def load_rows(tournament: Tournament) -> dict[int, tuple[list, list, list]]:
    """Per stage id: (entrant infos, game rows, bye rows), from the games themselves."""
    per_stage = {pk: (infos, [], []) for pk, infos in stage_entrants(tournament).items()}
    matches = (
        Match.objects.filter(round__stage__tournament=tournament)
        .exclude(round__status=Round.Status.DRAFT)
        .select_related("round", "game")
        .prefetch_related("seats")
        .order_by("pk")
    )
    counted = (Game.Status.IN_PROGRESS, Game.Status.FINISHED)
    for match in matches:
        table = sorted((seat.position, seat.entrant_id) for seat in match.seats.all())
        _, games, byes = per_stage[match.round.stage_id]
        if match.bye:
            byes.extend(ByeRow(entrant_id, match.round.number) for _, entrant_id in table)
            continue
        game = match.game
        if game is None or game.status not in counted:
            continue
        results = side_results(game.totals, game.tallies, game.winner, game.forfeited_sides)
        games.append(
            GameRow(
                game.pk,
                match.round.number,
                tuple(
                    EntrantResult(entrant_id, position, *result[:6])
                    for (position, entrant_id), result in zip(table, results, strict=True)
                ),
                game.status == Game.Status.FINISHED,
            )
        )
    return per_stage

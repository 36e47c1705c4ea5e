"""Finishing a stage, and the result each game leaves on its match seats."""

from django.db import transaction
from django.db.models import Case, Count, Q, Sum, Value, When

from accounts.permissions import require
from domain.say import say, say_n
from scoring.models import Game
from tournaments.models import (
    Match,
    MatchSeat,
    Round,
    Stage,
    Tournament,
)
from tournaments.pairing import PairingError
from tournaments.read import standings_store
from tournaments.read.standings import side_results
from tournaments.services.common import (
    TournamentConflict,
    forget_live_parts,
    lock_tournament,
)
from tournaments.stage_facts import engine_of, stage_entrants


def _stage_games_state(stage: Stage) -> tuple[int, int, int]:
    """(games, unfinished games, sum of their revisions) of a stage's tables: every change
    to a game bumps its revision, so an equal triple means the same results."""
    games = Game.objects.filter(match__round__stage=stage, match__bye=False)
    state = games.aggregate(
        games=Count("pk"),
        unfinished=Count("pk", filter=~Q(status=Game.Status.FINISHED)),
        revisions=Sum("revision"),
    )
    return state["games"], state["unfinished"], state["revisions"] or 0


def _check_finishable(stage: Stage, state: tuple[int, int, int]) -> None:
    if stage.status == Stage.Status.FINISHED:
        raise TournamentConflict(say("This stage is already finished."), "stage")
    if not state[0]:
        raise TournamentConflict(
            say("No game of this stage has been played: pair and play its rounds first."),
            "stage",
        )
    if state[1]:
        raise TournamentConflict(
            say("Games of this stage not finished yet: {value}.", value=state[1]), "stage"
        )


class RankingChanged(TournamentConflict):
    """The entrants the organizer confirmed are no longer those who would go through."""


class RoundsUnplayed(TournamentConflict):
    """The stage has rounds not played yet, and the organizer did not confirm leaving
    exactly those out."""


def rounds_unplayed(stage: Stage) -> list[int]:
    """The numbers of the stage's rounds not published yet: those the stage's format
    plans (a Swiss stage's rounds, a round robin's schedule) that were never paired, and
    those still in draft. A field the format cannot pair (a bracket of one) plans none."""
    try:
        total = engine_of(stage).total_rounds(
            len(stage_entrants(stage)),
            table_size=stage.tournament.sides_per_table,
            settings=stage.settings,
        )
    except PairingError:
        total = 0
    published = set(
        stage.rounds.filter(status=Round.Status.PUBLISHED).values_list("number", flat=True)
    )
    return [number for number in range(1, total + 1) if number not in published]


def _check_unplayed(stage: Stage, confirmed: list[int] | None) -> None:
    unplayed = rounds_unplayed(stage)
    if unplayed and sorted(confirmed or []) != unplayed:
        raise RoundsUnplayed(
            say_n(
                "Round {rounds} of {stage} is not played. Finishing now ends the stage "
                "without it: confirm to finish anyway.",
                "Rounds {rounds} of {stage} are not played. Finishing now ends the stage "
                "without them: confirm to finish anyway.",
                len(unplayed),
                rounds=", ".join(map(str, unplayed)),
                stage=stage.name,
            ),
            "unplayed_rounds",
        )


def finish_stage(
    stage: Stage,
    *,
    by,
    top: int | None = None,
    per_pool: int | None = None,
    expected: list[int] | None = None,
    unplayed_rounds: list[int] | None = None,
) -> Stage | None:
    """Close a stage and seed the next one from its standings (top N, or top k per pool).

    The ranking is computed with no transaction open (it reads every game of the stage);
    the write then re-checks, under the tournament's, the stage's and its games' locks,
    that nothing changed meanwhile, and starts over if a result did. ``expected`` is the
    list the organizer was shown (entrant ids, in order): if who goes through is not that
    list any more, nothing is written and ``RankingChanged`` says so. A stage with rounds
    not played yet finishes only when ``unplayed_rounds`` names exactly those rounds (the
    organizer saw them and agreed); otherwise ``RoundsUnplayed`` names them.
    """
    require(by, "tournament.manage", stage.tournament)
    for _attempt in range(3):
        stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
        seen = _stage_games_state(stage)
        _check_finishable(stage, seen)
        _check_unplayed(stage, unplayed_rounds)
        ranking = standings_store.stage_ranking(stage, per_pool=per_pool)
        chosen = ranking[:top] if top else ranking
        if expected is not None and list(expected) != list(chosen):
            raise RankingChanged(
                say(
                    "Who goes through changed since the list was shown (a result was entered "
                    "or corrected): check the new list below and confirm again."
                ),
                "stage",
            )
        with transaction.atomic():
            tournament = lock_tournament(stage.tournament)
            stage = Stage.objects.select_for_update().get(pk=stage.pk)
            require(by, "tournament.manage", tournament)
            # Holding the games' locks keeps a correction from landing between the check
            # and the commit.
            list(
                Game.objects.select_for_update()
                .filter(match__round__stage=stage)
                .values_list("pk", flat=True)
            )
            now = _stage_games_state(stage)
            _check_finishable(stage, now)
            _check_unplayed(stage, unplayed_rounds)
            if now == seen:
                return _close_stage(tournament, stage, chosen)
    raise TournamentConflict(
        say("Results of this stage keep changing; finish it once the tables are settled."),
        "stage",
    )


def finish_preview(
    stage: Stage, *, by, top: int | None = None, per_pool: int | None = None
) -> list[int]:
    """Who would go through if the stage finished now (entrant ids, in seeding order),
    after the same checks as ``finish_stage``; nothing is written."""
    require(by, "tournament.manage", stage.tournament)
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    _check_finishable(stage, _stage_games_state(stage))
    ranking = standings_store.stage_ranking(stage, per_pool=per_pool)
    return ranking[:top] if top else ranking


def _close_stage(tournament: Tournament, stage: Stage, chosen: list[int]) -> Stage | None:
    """Mark the stage finished and seed the next one (or finish the tournament)."""
    forget_live_parts(tournament.pk)
    stage.status = Stage.Status.FINISHED
    stage.save(update_fields=["status"])
    following = tournament.stages.filter(order__gt=stage.order).order_by("order").first()
    if following is None:
        tournament.status = Tournament.Status.FINISHED
        tournament.save(update_fields=["status", "updated_at"])
        return None
    through = Stage.entrants.through
    through.objects.filter(stage=following).delete()
    through.objects.bulk_create(
        (through(stage=following, entrant_id=entrant_id) for entrant_id in chosen),
        batch_size=2000,
    )
    # The next stage seeds by this stage's finishing order.
    following.settings = {**following.settings, "seeding": chosen}
    following.save(update_fields=["settings"])
    return following


def seat_results(game: Game) -> list[dict]:
    """A finished game's result columns for each of its match seats, in seat order."""
    results = side_results(game.totals, game.tallies, game.winner, game.forfeited_sides)
    everyone = sum(result.total for result in results)
    return [
        {
            "total": result.total,
            "placement": result.placement,
            "won": result.won,
            "sides": len(results),
            "opponents_total": everyone - result.total,
            "hands_won": result.hands_won,
            "dominoes": result.dominoes,
            "penalties": result.penalties,
            "last_hand_at": game.last_hand_at,
            "forfeit": result.forfeit,
        }
        for result in results
    ]


def record_seat_results(game: Game) -> int:
    """Write the game's result on its match seats while it is finished, clear it otherwise.

    Runs inside the scoring transaction that changed the game (``game_saved``); returns
    the number of seats written.
    """
    seats = MatchSeat.objects.filter(match__game_id=game.pk)
    if game.status != Game.Status.FINISHED:
        # A reopened game takes its forfeits back, and with them why a seat did not play.
        seats.exclude(did_not_play="").update(did_not_play="")
        return seats.exclude(total=None).update(**dict.fromkeys(MatchSeat.RESULT_FIELDS))
    by_position = seat_results(game)
    columns = {}
    for name in MatchSeat.RESULT_FIELDS:
        values = [seat[name] for seat in by_position]
        if len(set(values)) == 1:  # the same at every seat (the table size, the last hand)
            columns[name] = values[0]
            continue
        columns[name] = Case(
            *(When(position=i, then=Value(value)) for i, value in enumerate(values)),
            output_field=MatchSeat._meta.get_field(name),
        )
    return seats.update(**columns)


def refresh_seat_results(tournament: Tournament) -> int:
    """Rewrite the seat results of every game of the tournament that disagree with the
    game itself (after a repair made outside the services); returns how many games."""
    rewritten = 0
    games = Match.objects.filter(round__stage__tournament=tournament).exclude(game=None)
    for game_id in games.values_list("game_id", flat=True):
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            kept = list(
                MatchSeat.objects.filter(match__game_id=game_id)
                .order_by("position")
                .values(*MatchSeat.RESULT_FIELDS)
            )
            if game.status == Game.Status.FINISHED:
                expected = seat_results(game)
            else:
                expected = [dict.fromkeys(MatchSeat.RESULT_FIELDS) for _ in kept]
            if kept != expected:
                record_seat_results(game)
                rewritten += 1
    return rewritten

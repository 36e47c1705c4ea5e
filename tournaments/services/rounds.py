"""Stages, and the rounds paired inside them: seating, publishing, swapping and moving
bracket winners on."""

import secrets

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from accounts.permissions import require
from domain.say import say, say_n
from jobs import runner
from scoring.models import Game, Hand, Seat
from scoring.services import create_games, release_games
from tournaments import round_clock
from tournaments.models import (
    Entrant,
    Match,
    MatchSeat,
    Round,
    Stage,
    Tournament,
)
from tournaments.pairing import PairingError, get_engine
from tournaments.pairing.base import PairingResult, allowed_sizes, check_positive_int, seating
from tournaments.read import live
from tournaments.read.standings import BYE_SCORES, POINTS_BASES
from tournaments.services import pairing as adapter
from tournaments.services.common import (
    TournamentConflict,
    TournamentError,
    forget_live_parts,
    game_seats,
    lock_tournament,
)
from tournaments.services.events import create_tournament
from tournaments.services.forfeits import absent, is_walkover, walkover_reason
from tournaments.signals import tables_seated
from tournaments.stage_facts import (
    allowed_sides,
    bracket_results,
    engine_of,
    is_bracket,
    stage_entrants,
)


def create_tournament_with_stage(
    *, by, stage_name: str, stage_format: str, stage_settings: dict | None = None, **fields
) -> Tournament:
    """A new tournament (``create_tournament``'s ``fields``) and its first stage, in one
    transaction: the organizer's form makes both, and neither is kept without the other."""
    with transaction.atomic():
        tournament = create_tournament(by=by, **fields)
        add_stage(tournament, by=by, name=stage_name, format=stage_format, settings=stage_settings)
    return tournament


def add_stage(
    tournament: Tournament, *, by, name: str, format: str, settings: dict | None = None
) -> Stage:
    """Add the next stage (a round robin, Swiss, bracket or pools) to the tournament."""
    if format not in Stage.Format.values:
        formats = ", ".join(Stage.Format.values)
        raise TournamentError(
            say(
                "Unknown format {format!r}; choose from {formats}.", format=format, formats=formats
            ),
            "format",
        )
    settings = dict(settings or {})
    if settings.get("points_basis", POINTS_BASES[0]) not in POINTS_BASES:
        raise TournamentError(
            say(
                "points_basis is one of {bases}, not {value!r}.",
                bases=", ".join(POINTS_BASES),
                value=settings["points_basis"],
            ),
            "settings",
        )
    if settings.get("bye_scores", BYE_SCORES[0]) not in BYE_SCORES:
        raise TournamentError(
            say(
                "bye_scores is one of {choices}, not {value!r}.",
                choices=", ".join(BYE_SCORES),
                value=settings["bye_scores"],
            ),
            "settings",
        )
    points = settings.get("bye_match_points", 0)
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 <= points < 1e6:
        raise TournamentError(
            say(
                "bye_match_points is a number of match points from 0 up, not {value!r}.",
                value=points,
            ),
            "settings",
        )
    engine = get_engine(format)
    try:
        if "seed" in settings:
            check_positive_int(settings, "seed")
        engine.validate_settings(settings, table_size=tournament.sides_per_table)
    except ValueError as error:
        raise TournamentError(str(error), "settings") from error
    with transaction.atomic():
        tournament = lock_tournament(tournament)
        require(by, "tournament.manage", tournament)
        order = (tournament.stages.aggregate(m=Max("order"))["m"] or 0) + 1
        adapter.request_schedules(tournament.pk)  # after the commit, in a task
        try:
            return Stage.objects.create(
                tournament=tournament,
                order=order,
                name=" ".join((name or "").split()) or Stage.Format(format).label,
                format=format,
                settings=settings,
            )
        except IntegrityError as error:  # pragma: no cover - guarded by the lock
            raise TournamentConflict(say("Another stage was added at the same time.")) from error


def _seat_tables(stage: Stage, round_: Round, result, *, first_table: int = 1) -> list[Match]:
    """Write a pairing's tables: their games, matches and seats, in a few bulk inserts."""
    tournament = stage.tournament
    ids = {entrant_id for table in result.tables for entrant_id in table.entrants}
    by_id = Entrant.objects.select_related("player", "partner").in_bulk(ids)
    # A bye takes no table number: the tables in play are numbered 1, 2, … and the byes
    # after them (a number no page shows; each says "bye").
    in_order = [t for t in result.tables if not t.bye] + [t for t in result.tables if t.bye]
    numbered = [
        (first_table + offset, table, [by_id[entrant_id] for entrant_id in table.entrants])
        for offset, table in enumerate(in_order)
    ]
    walkovers = {
        number for number, table, entrants in numbered if is_walkover(stage, table, entrants)
    }
    played = [
        (number, entrants)
        for number, table, entrants in numbered
        if not table.bye and number not in walkovers
    ]
    games = create_games(
        ruleset_key=tournament.ruleset_key,
        overrides=tournament.overrides,
        tables=[
            (
                game_seats(tournament, entrants),
                f"{tournament.name} · {stage.name} · round {round_.number}, table {number}",
            )
            for number, entrants in played
        ],
        public=tournament.public,
        followed=True,
        held=round_.status == Round.Status.DRAFT,
    )
    game_at = {number: game for (number, _), game in zip(played, games, strict=True)}
    matches = Match.objects.bulk_create(
        Match(
            round=round_,
            table_number=number,
            game=game_at.get(number),
            bye=table.bye,
            slot=table.slot or (f"P{table.pool}" if table.pool else ""),
        )
        for number, table, _ in numbered
    )
    MatchSeat.objects.bulk_create(
        MatchSeat(
            match=match,
            round=round_,
            entrant=entrant,
            position=position,
            did_not_play=walkover_reason(stage, entrant)
            if number in walkovers and absent(stage, entrant)
            else "",
        )
        for match, (number, _, entrants) in zip(matches, numbered, strict=True)
        for position, entrant in enumerate(entrants)
    )
    return matches


def _check_seating(tournament: Tournament, count: int) -> None:
    """Refuse a field the rule set's table sizes cannot seat, saying why and which
    counts would (RULES.md, "Fields that don't divide")."""
    size = tournament.sides_per_table
    try:
        seating(count, size, allowed_sizes({"table_sizes": allowed_sides(tournament)}, size))
    except PairingError as error:
        raise TournamentError(error.message, "entrants") from error


class _FieldMoved(Exception):
    """The field changed between the search and the locks: search again, outside them."""


def generate_round(stage: Stage, *, by, seed: int | None = None) -> Round:
    """Pair the stage's next round: its tables, seats and games, all in one transaction.

    A schedule the round reads is normally stored already (searched when the field last
    changed); if not, it is searched here before the transaction takes any lock. Under
    the locks the round only reads it; if the field changed in between, the search runs
    again, outside the locks.
    """
    require(by, "tournament.manage", stage.tournament)  # nobody else starts a search
    for _attempt in range(3):
        problem = _prepare_schedules(stage, seed)
        try:
            return _generate(stage, by=by, seed=seed)
        except _FieldMoved:
            if problem is not None:
                # The search could not seat the field: say why, not that it moved.
                raise TournamentError(problem.message, "stage") from problem
            continue
    raise TournamentConflict(
        say("The entrants changed while the round was being paired; try again."), "stage"
    )


def _prepare_schedules(stage: Stage, seed: int | None):
    """Search and store what the next round reads, holding no lock (a no-op when stored);
    returns the engine's refusal, if it refused the field."""
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    if not engine_of(stage).schedules:
        return  # nothing searched ahead: Swiss and brackets pair from the results
    last = stage.rounds.order_by("-number").first()
    if stage.status == Stage.Status.FINISHED or (
        last is not None and last.status == Round.Status.DRAFT
    ):
        return  # refused under the lock, with the reason
    entrants = stage_entrants(stage)
    try:
        request = adapter.request_for(stage, entrants, adapter.next_round_number(stage), seed)
        if seed is None:  # the stage's own plan, which plan_stage searches
            adapter.settle_deferred(stage)
        adapter.ensure_schedules(stage, request.needs(), quick=True)
    except PairingError as error:
        return error  # said under the lock where it can be, else by generate_round
    return None


def _generate(stage: Stage, *, by, seed: int | None) -> Round:
    with transaction.atomic():
        tournament = lock_tournament(stage.tournament)
        stage = Stage.objects.select_for_update().get(pk=stage.pk)
        require(by, "tournament.manage", tournament)
        if stage.status == Stage.Status.FINISHED:
            raise TournamentConflict(say("This stage is finished."), "stage")
        earlier = Stage.objects.filter(tournament=tournament, order__lt=stage.order).exclude(
            status=Stage.Status.FINISHED
        )
        if earlier.exists():
            raise TournamentConflict(say("Finish the earlier stage first."), "stage")
        last = stage.rounds.order_by("-number").first()
        if last is not None and last.status == Round.Status.DRAFT:
            raise TournamentConflict(
                say(
                    "Round {number} is not published yet: publish it (or fix it) first.",
                    number=last.number,
                ),
                "round",
            )
        engine = engine_of(stage)
        if (
            last is not None
            and engine.needs_finished_round
            and Match.objects.filter(round=last, bye=False, game__isnull=False)
            .exclude(game__status="finished")
            .exists()
        ):
            raise TournamentConflict(
                say(
                    "Round {number} has games still in play; Swiss and brackets pair from "
                    "its results.",
                    number=last.number,
                ),
                "round",
            )
        entrants = stage_entrants(stage)
        active = [e for e in entrants if not e.withdrawn]
        if active and not engine.advances:
            _check_seating(tournament, len(active))
        number = (last.number if last else 0) + 1
        total = engine.total_rounds(
            len(entrants), table_size=tournament.sides_per_table, settings=stage.settings
        )
        if number > total:
            raise TournamentConflict(
                say_n(
                    "This stage has {total} round; it is paired.",
                    "This stage has {total} rounds; all are paired.",
                    total,
                    total=total,
                ),
                "round",
            )
        request = adapter.request_for(stage, entrants, number, seed)
        try:
            needs = request.needs()
            schedules = adapter.stored(stage, [need.key for need in needs])
            if len(schedules) < len(needs):
                raise _FieldMoved  # never search here: the locks are held
            result = adapter.pair(stage, request, schedules)
        except PairingError as error:
            raise TournamentError(error.message, "stage") from error
        if not active:
            raise TournamentError(say("Nobody is left to pair."), "entrants")
        round_ = Round.objects.create(
            stage=stage,
            number=number,
            flags=adapter.flag_rows(result.flags, {e.pk: e.name for e in entrants}),
        )
        _seat_tables(stage, round_, result)
        if stage.status == Stage.Status.PENDING:
            stage.status = Stage.Status.RUNNING
            stage.save(update_fields=["status"])
        if tournament.status in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
            tournament.status = Tournament.Status.RUNNING
            tournament.save(update_fields=["status", "updated_at"])
    return round_


def publish_round(round_: Round, *, by) -> Round:
    """Make a generated round's tables official: visible to everyone who may see the
    event, and open for scoring."""
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_.pk)
        )
        require(by, "tournament.manage", round_.stage.tournament)
        if round_.status != Round.Status.DRAFT:
            raise TournamentConflict(
                say("Round {number} is already published.", number=round_.number), "round"
            )
        round_.status = Round.Status.PUBLISHED
        round_.published_at = timezone.now()
        round_.save(update_fields=["status", "published_at"])
        release_games(
            Match.objects.filter(round=round_, game__isnull=False).values_list("game_id", flat=True)
        )
        round_clock.start_on_publish(round_, by=by)
        # Pages opened before it move to the new round at their next poll.
        transaction.on_commit(lambda: live.forget_round(round_))
        # The standings list everyone from the first round on (a bye counts from the
        # moment its round is published); hands of games in play move no standing, so
        # this is the round's only recompute until a game finishes.
        runner.request_on_commit("standings", round_.stage.tournament_id)
    return round_


def swap_seats(round_: Round, first: Entrant, second: Entrant, *, by) -> Round:
    """An organizer's fix before the round starts: two entrants trade places."""
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_.pk)
        )
        tournament = round_.stage.tournament
        require(by, "tournament.manage", tournament)
        if first.pk == second.pk:
            raise TournamentError(say("Choose two different entrants."), "entrants")
        seats = {
            s.entrant_id: s
            for s in MatchSeat.objects.filter(
                round=round_, entrant_id__in=[first.pk, second.pk]
            ).select_related("match")
        }
        if len(seats) != 2:
            raise TournamentError(say("Both entrants must be seated in this round."), "entrants")
        one, two = seats[first.pk], seats[second.pk]
        games = [m.game_id for m in (one.match, two.match) if m.game_id]
        if Hand.objects.filter(game_id__in=games).exists() or any(
            m.game and m.game.status != "scheduled" for m in (one.match, two.match)
        ):
            raise TournamentConflict(
                say("A game at those tables has started; seats are fixed."), "round"
            )
        # Trade places through a parking position so the unique constraints hold throughout.
        one_match, one_position = one.match_id, one.position
        MatchSeat.objects.filter(pk=one.pk).update(position=999)
        MatchSeat.objects.filter(pk=two.pk).update(match_id=one_match, position=one_position)
        MatchSeat.objects.filter(pk=one.pk).update(match_id=two.match_id, position=two.position)
        # Re-validate: every table still seats distinct entrants; rebuild the games' seats.
        for match in {one.match, two.match}:
            if match.game_id:
                ordered = [
                    s.entrant
                    for s in MatchSeat.objects.filter(match=match)
                    .select_related("entrant__player", "entrant__partner")
                    .order_by("position")
                ]
                players = game_seats(tournament, ordered)
                for seat, player in zip(
                    Seat.objects.filter(game_id=match.game_id).order_by("position"),
                    players,
                    strict=True,
                ):
                    seat.player = player
                    seat.display_name = player.display_name
                    seat.save(update_fields=["player", "display_name"])
        round_.flags = [
            *round_.flags,
            {
                "code": "swap",
                "message": f"Organizer swapped {first.name} and {second.name}.",
                "template": say(
                    "Organizer swapped {first} and {second}.", first="", second=""
                ).template,
                "params": {"first": first.name, "second": second.name},
                "entrants": [first.pk, second.pk],
            },
        ]
        round_.save(update_fields=["flags"])
        forget_live_parts(tournament.pk)
    return round_


def advance_bracket(match: Match) -> list[Match]:
    """Seat the winners of a finished bracket game at the tables they now reach.

    Idempotent: tables already seated stay. Runs in a job after the hand's commit (the
    runner's ``bracket`` kind, ``tournaments.tasks``); a pairing error marks the game's
    table for the organizer's attention instead of failing.
    """
    stage = match.round.stage
    if not is_bracket(stage) or not match.slot:
        return []
    with transaction.atomic():
        tournament = lock_tournament(stage.tournament)
        stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
        results = bracket_results(stage)
        entrants = stage_entrants(stage)
        created = []
        engine = engine_of(stage)
        try:
            last = engine.total_rounds(
                len(entrants), table_size=tournament.sides_per_table, settings=stage.settings
            )
            for number in range(match.round.number + 1, last + 1):
                request = adapter.request_for(stage, entrants, number, None)
                pairing = adapter.pair(stage, request, {}, results=results)
                existing = Match.objects.filter(round__stage=stage, round__number=number)
                taken = {m.slot: m for m in existing}
                fresh = [t for t in pairing.tables if t.slot not in taken]
                _flag_changed_successors(stage, pairing, taken)
                if not fresh:
                    continue
                round_, _ = Round.objects.get_or_create(
                    stage=stage,
                    number=number,
                    defaults={"status": Round.Status.PUBLISHED, "published_at": timezone.now()},
                )
                first = (existing.aggregate(m=Max("table_number"))["m"] or 0) + 1
                seated = _seat_tables(stage, round_, PairingResult(tuple(fresh)), first_table=first)
                if round_.status == Round.Status.PUBLISHED:
                    tables_seated.send(Round, round=round_, matches=seated)
                created += seated
        except PairingError as error:
            Match.objects.filter(pk=match.pk).update(
                needs_attention=True,
                attention_reason=str(
                    say("The bracket could not move the winners on: {error}", error=str(error))
                )[:300],
            )
    return created


def _flag_changed_successors(stage: Stage, pairing, taken: dict[str, Match]) -> None:
    """A correction changed who reached a table already seated: say so, rewrite nothing."""
    wanted = {t.slot: set(t.entrants) for t in pairing.tables}
    for slot, match in taken.items():
        if slot not in wanted:
            continue
        seated = set(match.seats.values_list("entrant_id", flat=True))
        if seated != wanted[slot] and not match.needs_attention:
            match.needs_attention = True
            match.attention_reason = (
                "A correction changed who reached this table after it was seated; "
                "check it before play goes on."
            )
            match.save(update_fields=["needs_attention", "attention_reason"])


def delete_draft_round(round_: Round, *, by) -> Stage:
    """Throw away a round still in draft: its tables, seats and (unplayed, held) games.

    A stage left without rounds is pending again, so that its settings read as new."""
    with transaction.atomic():
        tournament = lock_tournament(round_.stage.tournament)
        require(by, "tournament.manage", tournament)
        round_ = Round.objects.select_for_update().select_related("stage").get(pk=round_.pk)
        stage = round_.stage
        if round_.status != Round.Status.DRAFT:
            raise TournamentConflict(
                say(
                    "Round {number} is published: only a draft round can be deleted.",
                    number=round_.number,
                ),
                "round",
            )
        games = list(
            Match.objects.filter(round=round_, game__isnull=False).values_list("game_id", flat=True)
        )
        round_.delete()  # its matches and seats go with it
        Game.objects.filter(pk__in=games, held=True).delete()
        if not stage.rounds.exists() and stage.status == Stage.Status.RUNNING:
            stage.status = Stage.Status.PENDING
            stage.save(update_fields=["status"])
        forget_live_parts(tournament.pk)
    return stage


def regenerate_round(round_: Round, *, by, seed: int | None = None) -> Round:
    """Pair a draft round afresh (another draw where the format leaves a choice)."""
    with transaction.atomic():
        stage = delete_draft_round(round_, by=by)
        return generate_round(
            stage, by=by, seed=secrets.randbelow(2**31 - 1) if seed is None else seed
        )

"""Registering entrants, checking them in, seeding and withdrawing them."""

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.models import Player
from accounts.permissions import require
from domain.say import say
from scoring.bounds import within
from tournaments.bounds import SEED_RANGE
from tournaments.entries import MAX_NAME, EntryLine, read_entries
from tournaments.models import (
    Entrant,
    Tournament,
)
from tournaments.services.common import (
    BulkRegistrationError,
    TournamentConflict,
    TournamentError,
    _forget_live_parts,
    _lock_tournament,
)
from tournaments.services.pairing import request_schedules


def _player(name: str) -> Player:
    return Player.objects.create(display_name=name)


def _next_seed(tournament: Tournament) -> int:
    return (Entrant.objects.filter(tournament=tournament).aggregate(m=Max("seed"))["m"] or 0) + 1


def register_entrant(
    tournament: Tournament,
    *,
    by,
    name: str = "",
    partner_name: str = "",
    player: Player | None = None,
    partner: Player | None = None,
    seed: int | None = None,
) -> Entrant:
    """Enter a player (or, for Partners, a team of two) in the tournament."""
    with transaction.atomic():
        tournament = _lock_tournament(tournament)
        require(by, "tournament.manage", tournament)
        _check_open(tournament)
        player = player or (_player_named(name, "name"))
        teams = tournament.is_teams
        if teams:
            partner = partner or (_player_named(partner_name, "partner_name"))
            if partner.pk == player.pk:
                raise TournamentError(say("A team needs two different players."), "partner_name")
            label = f"{player.display_name} & {partner.display_name}"
        else:
            if partner is not None or partner_name:
                raise TournamentError(
                    say("Players enter alone in this tournament."), "partner_name"
                )
            label = player.display_name
        if Entrant.objects.filter(tournament=tournament, name__iexact=label).exists():
            raise TournamentError(say("{label} is already registered.", label=label), "name")
        if seed is not None:
            _check_seed(seed)
        if seed is not None and Entrant.objects.filter(tournament=tournament, seed=seed).exists():
            raise TournamentError(say("Seed {seed} is taken.", seed=seed), "seed")
        _check_room(tournament, 1)
        request_schedules(tournament.pk)  # after the commit: the field changed
        return Entrant.objects.create(
            tournament=tournament,
            name=label,
            player=player,
            partner=partner if teams else None,
            seed=seed or _next_seed(tournament),
        )


def _player_named(name: str, field: str) -> Player:
    name = " ".join((name or "").split())
    if not name:
        raise TournamentError(say("Give the player's name."), field)
    return _player(name)


def _check_room(tournament: Tournament, adding: int) -> None:
    """Refuse entrants past ``MAX_ENTRANTS``: every per-stage computation and page is
    bounded by it. Called with the tournament locked, so two lists cannot both fit."""
    cap = settings.MAX_ENTRANTS
    registered = Entrant.objects.filter(tournament=tournament).count()
    if registered + adding <= cap:
        return
    if adding == 1:
        message = say(
            "This tournament is full: it takes at most {cap} entrants and {registered} are "
            "registered.",
            cap=cap,
            registered=registered,
        )
    else:
        message = say(
            "Nothing was registered: the list has {adding} entrants, this tournament takes at "
            "most {cap} and {registered} are registered.",
            adding=adding,
            cap=cap,
            registered=registered,
        )
    raise TournamentError(message, "entrants")


def _check_paste_size(text: str) -> None:
    """A pasted list longer than a full tournament could need is refused before reading."""
    # Two names of MAX_NAME a line, ' & ' and the line's end, for every possible entrant.
    longest = settings.MAX_ENTRANTS * (2 * MAX_NAME + 4)
    if len(text) > longest:
        raise TournamentError(
            say(
                "The list is too long: a tournament takes at most {cap} entrants.",
                cap=settings.MAX_ENTRANTS,
            ),
            "entrants",
        )


def _check_open(tournament: Tournament) -> None:
    if tournament.status == Tournament.Status.FINISHED:
        raise TournamentConflict(say("This tournament is finished."), "tournament")


def register_entrants(tournament: Tournament, *, by, text: str) -> list[Entrant]:
    """Register a pasted list (one entrant a line, ``A & B`` for a team), all or nothing."""
    _check_paste_size(text)
    with transaction.atomic():
        tournament = _lock_tournament(tournament)
        require(by, "tournament.manage", tournament)
        _check_open(tournament)
        taken = set(Entrant.objects.filter(tournament=tournament).values_list("name", flat=True))
        entries, problems = read_entries(text, teams=tournament.is_teams, taken=taken)
        # Past the cap no line's fix would help: say so before listing the lines.
        _check_room(tournament, len(entries) + len(problems))
        if problems:
            raise BulkRegistrationError(problems)
        if not entries:
            raise TournamentError(say("The list has no names."), "entrants")
        request_schedules(tournament.pk)
        return _create_entrants(tournament, entries)


def preview_entrants(tournament: Tournament, text: str) -> tuple[list[EntryLine], list]:
    """What ``register_entrants`` would register, and every problem, without saving."""
    _check_paste_size(text)
    taken = set(Entrant.objects.filter(tournament=tournament).values_list("name", flat=True))
    return read_entries(text, teams=tournament.is_teams, taken=taken)


def _create_entrants(tournament: Tournament, entries: list[EntryLine]) -> list[Entrant]:
    players = Player.objects.bulk_create(
        Player(display_name=name) for entry in entries for name in entry.names
    )
    seed = _next_seed(tournament)
    made, index = [], 0
    for offset, entry in enumerate(entries):
        own = players[index : index + len(entry.names)]
        index += len(entry.names)
        made.append(
            Entrant(
                tournament=tournament,
                name=entry.label,
                player=own[0],
                partner=own[1] if len(own) > 1 else None,
                seed=seed + offset,
            )
        )
    return Entrant.objects.bulk_create(made)


def check_in(entrant: Entrant, *, by, checked_in: bool = True) -> Entrant:
    """Mark an entrant present (or not) at the venue."""
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        require(by, "tournament.manage", entrant.tournament)
        entrant.checked_in = checked_in
        entrant.save(update_fields=["checked_in"])
        request_schedules(entrant.tournament_id)
    return entrant


def withdraw(entrant: Entrant, *, by) -> Entrant:
    """Withdraw an entrant: later rounds skip them; games already played stay."""
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        require(by, "tournament.manage", entrant.tournament)
        if entrant.withdrawn:
            raise TournamentConflict(
                say("{name} has already withdrawn.", name=entrant.name), "entrant"
            )
        entrant.withdrawn = True
        entrant.withdrawn_at = timezone.now()
        entrant.save(update_fields=["withdrawn", "withdrawn_at"])
        _forget_live_parts(entrant.tournament_id)  # standings mark withdrawals
        request_schedules(entrant.tournament_id)
    return entrant


def _check_seed(seed: Any) -> None:
    if not within(seed, SEED_RANGE):
        raise TournamentError(
            say(
                "A seed is a whole number from {low} to {high}.",
                low=SEED_RANGE[0],
                high=SEED_RANGE[1],
            ),
            "seed",
        )


def set_seed(entrant: Entrant, *, by, seed: int) -> Entrant:
    """Give an entrant a seed; an entrant holding it swaps to the old one."""
    _check_seed(seed)
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        tournament = entrant.tournament
        require(by, "tournament.manage", tournament)
        holder = Entrant.objects.filter(tournament=tournament, seed=seed).exclude(pk=entrant.pk)
        holder = holder.select_for_update().first()
        old = entrant.seed
        if holder is not None:
            parking = _next_seed(tournament)
            Entrant.objects.filter(pk=holder.pk).update(seed=parking)
        entrant.seed = seed
        entrant.save(update_fields=["seed"])
        if holder is not None:
            Entrant.objects.filter(pk=holder.pk).update(seed=old)
        request_schedules(tournament.pk)
    return entrant

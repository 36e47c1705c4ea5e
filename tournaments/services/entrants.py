"""Registering entrants, checking them in, seeding and withdrawing them."""

from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone

from accounts.permissions import allowed, require
from domain.say import say
from players.matching import players_for
from players.models import Player
from players.names import split_club
from scoring.bounds import within
from tournaments.bounds import SEED_RANGE
from tournaments.entries import MAX_NAME, EntryLine, read_entries
from tournaments.models import (
    Entrant,
    Tournament,
)
from tournaments.services.checkin import check_window
from tournaments.services.common import (
    BulkRegistrationError,
    TournamentConflict,
    TournamentError,
    forget_live_parts,
    lock_tournament,
)
from tournaments.services.forfeits import leave_tables
from tournaments.services.pairing import request_schedules
from tournaments.signals import entrant_withdrawn, entrants_entered
from tournaments.suspensions import players_of, refuse_suspended


def choice_scope(tournament: Tournament, by) -> str:
    """Where a candidate player is offered and chosen: this event, by this organizer (a
    token offered to one organizer for one event chooses nothing elsewhere)."""
    return f"{tournament.pk}:{getattr(by, 'pk', '')}"


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
    choices: dict[str, int | str] | None = None,
) -> Entrant:
    """Enter a player (or, for Partners, a team of two) in the tournament.

    A name (``"Ana Rivera (Club)"`` gives the club) is the player already known by it;
    ``choices`` settles names that could be a known player with the candidates' tokens
    offered to ``by`` for this event (``players.matching``)."""
    with transaction.atomic():
        tournament = lock_tournament(tournament)
        require(by, "tournament.manage", tournament)
        return admit(
            tournament,
            name=name,
            partner_name=partner_name,
            player=player,
            partner=partner,
            seed=seed,
            choices=choices,
            scope=choice_scope(tournament, by),
            by=by,
        )


def admit(
    tournament: Tournament,
    *,
    name: str = "",
    partner_name: str = "",
    player: Player | None = None,
    partner: Player | None = None,
    seed: int | None = None,
    choices: dict[str, int | str] | None = None,
    scope: str = "",
    by=None,
) -> Entrant:
    """Enter a player or team in a tournament the caller has locked and cleared them for
    (an organizer's registration, or a player's own entry accepted); ``scope``: where
    the candidates chosen in ``choices`` were offered (``choice_scope``); ``by``: the
    organizer entering names (a name that is someone's account asks them first,
    ``players.entries``)."""
    _check_open(tournament)
    teams = tournament.is_teams
    wanted = [(player, name, "name")]
    if teams:
        wanted.append((partner, partner_name, "partner_name"))
    named = [_name_of(text, field) for given, text, field in wanted if given is None]
    found = iter(players_for(named, choices, scope=scope, by=by))
    player = player or next(found)
    if teams:
        partner = partner or next(found)
        if partner.pk == player.pk:
            raise TournamentError(say("A team needs two different players."), "partner_name")
        label = f"{player.display_name} & {partner.display_name}"
    else:
        if partner is not None or partner_name:
            raise TournamentError(say("Players enter alone in this tournament."), "partner_name")
        label = player.display_name
    _check_players_free(tournament, [player, partner] if teams else [player])
    if Entrant.objects.filter(tournament=tournament, name__iexact=label).exists():
        raise TournamentError(say("{label} is already registered.", label=label), "name")
    if seed is not None:
        _check_seed(seed)
    if seed is not None and Entrant.objects.filter(tournament=tournament, seed=seed).exists():
        raise TournamentError(say("Seed {seed} is taken.", seed=seed), "seed")
    _check_room(tournament, 1)
    request_schedules(tournament.pk, field_changed=True)  # after the commit
    entrant = Entrant.objects.create(
        tournament=tournament,
        name=label,
        player=player,
        partner=partner if teams else None,
        seed=seed or _next_seed(tournament),
    )
    if by is not None:
        entrants_entered.send(Entrant, tournament=tournament, entrants=[entrant], by=by)
    return entrant


def _check_players_free(tournament: Tournament, players: list[Player]) -> None:
    """A player enters a tournament once: alone, or in one team."""
    ids = [player.pk for player in players]
    if len(set(ids)) != len(ids):
        twice = next(p for n, p in enumerate(players) if p.pk in ids[:n])
        raise TournamentError(say("{name} is listed twice.", name=twice.display_name), "entrants")
    entered = (
        Entrant.objects.filter(tournament=tournament)
        .filter(models.Q(player_id__in=ids) | models.Q(partner_id__in=ids))
        .first()
    )
    if entered is not None:
        raise TournamentError(say("{label} is already registered.", label=entered.name), "name")
    refuse_suspended(tournament, players)


def _name_of(text: str, field: str) -> tuple[str, str]:
    name, club = split_club(text)
    if not name:
        raise TournamentError(say("Give the player's name."), field)
    return name, club


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


def register_entrants(
    tournament: Tournament, *, by, text: str, choices: dict[str, int | str] | None = None
) -> list[Entrant]:
    """Register a pasted list (one entrant a line, ``A & B`` for a team), all or nothing.

    Each name is the player already known by it; ``choices`` settles the names that could
    be a known player, with the candidates' tokens offered to ``by`` for this event
    (``players.matching.players_for``)."""
    _check_paste_size(text)
    with transaction.atomic():
        tournament = lock_tournament(tournament)
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
        request_schedules(tournament.pk, field_changed=True)
        made = _create_entrants(tournament, entries, choices, choice_scope(tournament, by), by)
        entrants_entered.send(Entrant, tournament=tournament, entrants=made, by=by)
        return made


def preview_entrants(tournament: Tournament, text: str) -> tuple[list[EntryLine], list]:
    """What ``register_entrants`` would register, and every problem, without saving."""
    _check_paste_size(text)
    taken = set(Entrant.objects.filter(tournament=tournament).values_list("name", flat=True))
    return read_entries(text, teams=tournament.is_teams, taken=taken)


def _create_entrants(
    tournament: Tournament,
    entries: list[EntryLine],
    choices: dict[str, int | str] | None,
    scope: str,
    by=None,
) -> list[Entrant]:
    people = [(name, club) for entry in entries for name, club in entry.people]
    players = players_for(people, choices, scope=scope, by=by)
    _check_players_free(tournament, players)
    seed = _next_seed(tournament)
    taken = {name.casefold() for name in tournament.entrants.values_list("name", flat=True)}
    made, index = [], 0
    for offset, entry in enumerate(entries):
        own = players[index : index + len(entry.names)]
        index += len(entry.names)
        # A known player enters under their own name (the list may have a variant of it).
        label = " & ".join(player.display_name for player in own)
        if label.casefold() in taken:
            raise TournamentError(say("{label} is already registered.", label=label), "entrants")
        taken.add(label.casefold())
        made.append(
            Entrant(
                tournament=tournament,
                name=label,
                player=own[0],
                partner=own[1] if len(own) > 1 else None,
                seed=seed + offset,
            )
        )
    return Entrant.objects.bulk_create(made)


def check_in(entrant: Entrant, *, by, checked_in: bool = True, override: bool = False) -> Entrant:
    """Mark an entrant present (or not) at the venue: inside the current stage's check-in
    window, unless the organizer overrides it. Checked in after a round was paired, they
    are seated from the next one."""
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        require(by, "entrant.check_in", entrant)
        # Only an organizer checks someone in outside the window.
        if checked_in and not (override and allowed(by, "tournament.manage", entrant.tournament)):
            check_window(entrant.tournament)
        if checked_in:
            refuse_suspended(entrant.tournament, players_of(entrant))
        entrant.checked_in = checked_in
        entrant.save(update_fields=["checked_in"])
        request_schedules(entrant.tournament_id, field_changed=True)
    return entrant


def withdraw(entrant: Entrant, *, by, unstarted: str | None = None, substitute=None) -> Entrant:
    """Withdraw an entrant: later rounds skip them; games already played stay, a game
    of theirs in play ends as their forfeit, and a table not started plays on, is
    reseated with ``substitute`` or ends as their forfeit, as ``unstarted`` says."""
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
        require(by, "entrant.withdraw", entrant)
        if entrant.withdrawn:
            raise TournamentConflict(
                say("{name} has already withdrawn.", name=entrant.name), "entrant"
            )
        entrant.withdrawn = True
        entrant.withdrawn_at = timezone.now()
        entrant.save(update_fields=["withdrawn", "withdrawn_at"])
        leave_tables(entrant, by=by, unstarted=unstarted, substitute=substitute)
        forget_live_parts(entrant.tournament_id)  # standings mark withdrawals
        entrant_withdrawn.send(Entrant, entrant=entrant)  # a place may free up
        request_schedules(entrant.tournament_id, field_changed=True)
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
        request_schedules(tournament.pk, field_changed=True)
    return entrant

"""Every write an organizer makes to a tournament: one function per action, one transaction.

Games are created and scored through ``scoring.services``; this module seats entrants
at tables, pairs rounds and moves bracket winners on.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, Count, Max, Q, Sum, Value, When
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import Player
from accounts.permissions import allowed, require
from domain.errors import Conflict, UserError
from domain.say import say
from scoring.bounds import digits, within
from scoring.engine import ScoringError
from scoring.models import Game
from scoring.rulesets import PRESETS, get_ruleset
from tournaments.bounds import PLACEMENT_POINTS_RANGE, SEED_RANGE, TABLE_SIZE_RANGE
from tournaments.entries import MAX_NAME, EntryLine, LineProblem, read_entries
from tournaments.models import (
    DEFAULT_TIEBREAK_ORDER,
    Entrant,
    EventAccount,
    Invitation,
    Match,
    MatchSeat,
    Round,
    Staff,
    Stage,
    Tournament,
)
from tournaments.pairing.base import EntrantStub
from tournaments.standings import side_results


class TournamentError(UserError):
    """An organizer's request that cannot be carried out, with the field at fault."""


class TournamentConflict(TournamentError, Conflict):
    """The tournament's state forbids this now (round already generated, started ...)."""


class BulkRegistrationError(TournamentError):
    """A pasted list had bad or duplicate lines; nothing was registered."""

    def __init__(self, problems: list[LineProblem]):
        super().__init__(
            say("{count} line(s) need fixing; nothing was registered.", count=len(problems)),
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


# --- tournaments and staff -------------------------------------------------------------


STATUS_ORDER = [choice for choice, _ in Tournament.Status.choices]
ELIMINATION = ("single_elimination", "double_elimination")


def _unique_slug(name: str) -> str:
    base = slugify(name)[:70] or "tournament"
    slug, n = base, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def _table_size_for(ruleset_key: str, table_size: int | None, overrides: dict) -> int:
    preset = PRESETS.get(ruleset_key)
    if preset is None:
        raise TournamentError(
            say("There is no rule set called {ruleset_key!r}.", ruleset_key=ruleset_key),
            "ruleset_key",
        )
    if table_size is None:
        table_size = preset.default_players
    try:
        get_ruleset(ruleset_key, players=table_size, overrides=overrides)
    except ScoringError as error:
        field = "table_size" if getattr(error, "field", "") in {"players", "seats"} else "overrides"
        raise TournamentError(str(error), field) from error
    return table_size


def _check_tiebreaks(order: Sequence[str]) -> list[str]:
    from tournaments.standings import METRICS

    unknown = [key for key in order if key not in METRICS]
    if unknown:
        known = ", ".join(METRICS)
        raise TournamentError(
            say(
                "Unknown tiebreaker {names}; choose from {known}.",
                names=", ".join(unknown),
                known=known,
            ),
            "tiebreak_order",
        )
    if len(set(order)) != len(order):
        raise TournamentError(say("A tiebreaker is listed twice."), "tiebreak_order")
    return list(order)


def _check_placement_points(table: Any) -> dict:
    """A placement table: per table size, points per placement, every number bounded."""
    field = "placement_points"
    if not isinstance(table, dict):
        raise TournamentError(
            say('Placement points are per table size: {"4": {"1": 3, "2": 1}}.'), field
        )
    low, high = PLACEMENT_POINTS_RANGE
    for size, places in table.items():
        sides = digits(str(size), TABLE_SIZE_RANGE)
        if sides is None:
            raise TournamentError(
                say(
                    "{value!r} is not a table size: placement points are given per table "
                    "of {low} to {high}.",
                    value=size,
                    low=TABLE_SIZE_RANGE[0],
                    high=TABLE_SIZE_RANGE[1],
                ),
                field,
            )
        if not isinstance(places, dict):
            raise TournamentError(
                say('Placement points are per table size: {"4": {"1": 3, "2": 1}}.'), field
            )
        for place, points in places.items():
            if digits(str(place), (1, sides)) is None:
                raise TournamentError(
                    say(
                        "At a table of {sides}, placements run from 1 to {sides}; got {value!r}.",
                        sides=sides,
                        value=place,
                    ),
                    field,
                )
            if not (
                isinstance(points, int | float)
                and not isinstance(points, bool)
                and math.isfinite(points)
                and low <= points <= high
            ):
                raise TournamentError(
                    say(
                        "Points for a placement are a number from {low} to {high}; got {value!r}.",
                        low=low,
                        high=high,
                        value=points,
                    ),
                    field,
                )
    return table


def create_tournament(
    *,
    by,
    name: str,
    ruleset_key: str,
    slug: str = "",
    overrides: dict | None = None,
    table_size: int | None = None,
    public: bool = True,
    time_zone: str = "UTC",
    tiebreak_order: Sequence[str] | None = None,
    placement_points: dict | None = None,
    bye_policy: str = Tournament.ByePolicy.WIN_AVERAGE,
    include_live: bool = False,
) -> Tournament:
    """Create a tournament from a preset; its creator becomes its organizer."""
    require(by, "tournament.create")
    name = " ".join((name or "").split())
    if not name:
        raise TournamentError(say("Give the tournament a name."), "name")
    overrides = dict(overrides or {})
    table_size = _table_size_for(ruleset_key, table_size, overrides)
    order = _check_tiebreaks(tiebreak_order or DEFAULT_TIEBREAK_ORDER)
    _check_placement_points(placement_points or {})
    _check_time_zone(time_zone)
    with transaction.atomic():
        if slug and Tournament.objects.filter(slug=slug).exists():
            raise TournamentError(say("The address {slug!r} is taken.", slug=slug), "slug")
        tournament = Tournament.objects.create(
            name=name,
            slug=slug or _unique_slug(name),
            ruleset_key=ruleset_key,
            overrides=overrides,
            table_size=table_size,
            public=public,
            time_zone=time_zone,
            tiebreak_order=order,
            placement_points=placement_points or {},
            bye_policy=bye_policy,
            include_live=include_live,
            created_by=by,
        )
        Staff.objects.create(tournament=tournament, user=by, role=Staff.Role.ORGANIZER)
    return tournament


def _check_time_zone(time_zone: str) -> None:
    import zoneinfo

    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as error:
        raise TournamentError(
            say("Unknown time zone {time_zone!r}.", time_zone=time_zone), "time_zone"
        ) from error


def update_tournament(tournament: Tournament, *, by, **changes) -> Tournament:
    """Change a tournament's settings; rules and table size are fixed once play begins."""
    allowed = {
        "name",
        "public",
        "time_zone",
        "tiebreak_order",
        "placement_points",
        "bye_policy",
        "include_live",
        "ruleset_key",
        "overrides",
        "table_size",
        "status",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise TournamentError(
            say("Cannot change {names}.", names=", ".join(sorted(unknown))), sorted(unknown)[0]
        )
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        require(by, "tournament.manage", tournament)
        rules_change = {"ruleset_key", "overrides", "table_size"} & set(changes)
        if rules_change and Round.objects.filter(stage__tournament=tournament).exists():
            raise TournamentConflict(
                say("The rules cannot change once a round has been generated."),
                sorted(rules_change)[0],
            )
        if "status" in changes:
            _check_status_move(tournament, changes["status"])
        if "tiebreak_order" in changes:
            changes["tiebreak_order"] = _check_tiebreaks(changes["tiebreak_order"])
        if "time_zone" in changes:
            _check_time_zone(changes["time_zone"])
        if "placement_points" in changes:
            _check_placement_points(changes["placement_points"])
        if rules_change:
            key = changes.get("ruleset_key", tournament.ruleset_key)
            overrides = changes.get("overrides", tournament.overrides)
            changes["table_size"] = _table_size_for(
                key, changes.get("table_size", tournament.table_size), overrides
            )
        for field, value in changes.items():
            setattr(tournament, field, value)
        tournament.save()
        if "public" in changes:
            Game.objects.filter(match__round__stage__tournament=tournament).update(
                public=tournament.public
            )
        # Who may see it, or what its live parts show, may have changed.
        _forget_live_parts(tournament.pk)
    return tournament


def _check_status_move(tournament: Tournament, status: str) -> None:
    if status not in STATUS_ORDER:
        raise TournamentError(say("Unknown status {status!r}.", status=status), "status")
    if STATUS_ORDER.index(status) < STATUS_ORDER.index(tournament.status) and not (
        tournament.status == Tournament.Status.REGISTRATION and status == Tournament.Status.DRAFT
    ):
        raise TournamentConflict(
            say(
                "A tournament cannot go back from {status} to {status2}.",
                status=tournament.status,
                status2=status,
            ),
            "status",
        )


def _user_named(username) -> Any:
    from django.contrib.auth import get_user_model

    name = username.strip() if isinstance(username, str) else ""
    user = get_user_model().objects.filter(username__iexact=name, is_active=True).first()
    if not name or user is None:
        raise TournamentError(say("There is no user {username!r}.", username=name), "username")
    return user


def invite_staff(tournament: Tournament, *, by, username: str, role: str) -> Invitation:
    """Offer an existing user a role in the event; it grants nothing until they accept."""
    if role not in Staff.Role.values:
        raise TournamentError(say("A role is organizer or referee."), "role")
    user = _user_named(username)
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        if Staff.objects.filter(tournament=tournament, user=user, role=role).exists():
            raise TournamentConflict(
                say("{username} already holds that role here.", username=user.username), "username"
            )
        invitation, _ = Invitation.objects.get_or_create(
            tournament=tournament, user=user, role=role, defaults={"invited_by": by}
        )
    return invitation


def accept_invitation(invitation: Invitation, *, by) -> Staff:
    """The invited user takes the role they were offered."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().filter(pk=invitation.pk).first()
        if invitation is None or by is None or invitation.user_id != by.pk:
            raise TournamentError(say("There is no such invitation for you."), "invitation")
        staff, _ = Staff.objects.get_or_create(
            tournament_id=invitation.tournament_id, user=by, role=invitation.role
        )
        invitation.delete()
    return staff


def decline_invitation(invitation: Invitation, *, by) -> None:
    """The invited user turns the role down, or an organizer withdraws the offer."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("tournament")
            .filter(pk=invitation.pk)
            .first()
        )
        if invitation is None or not (
            (by is not None and invitation.user_id == by.pk)
            or allowed(by, "tournament.manage", invitation.tournament)
        ):
            raise TournamentError(say("There is no such invitation for you."), "invitation")
        invitation.delete()


def remove_staff(tournament: Tournament, user, *, by, role: str) -> None:
    """Take a role away; the last organizer stays."""
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        if (
            role == Staff.Role.ORGANIZER
            and Staff.objects.filter(tournament=tournament, role=role).count() == 1
        ):
            raise TournamentConflict(say("A tournament keeps at least one organizer."), "role")
        Staff.objects.filter(tournament=tournament, user=user, role=role).delete()
        if not Staff.objects.filter(tournament=tournament, user=user).exists():
            # Without a role here, the user referees none of the event's tables.
            matches = Match.objects.filter(round__stage__tournament=tournament, referee=user)
            games = Game.objects.filter(match__round__stage__tournament=tournament)
            Game.referees.through.objects.filter(user=user, game__in=games).delete()
            matches.update(referee=None)


def create_referee(tournament: Tournament, *, by, username: str) -> tuple[Any, str]:
    """A new referee account for the tournament; returns it with its first password."""
    import secrets

    from django.contrib.auth import get_user_model

    username = (username or "").strip()
    if (
        not username
        or len(username) > 150
        or not username.isascii()
        or not username.replace("_", "").replace(".", "").isalnum()
    ):
        raise TournamentError(
            say("A username is letters and digits (with . or _), like referee3."), "username"
        )
    users = get_user_model().objects
    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        if users.filter(username__iexact=username).exists():
            raise TournamentError(
                say("The username {username!r} is taken.", username=username), "username"
            )
        password = "-".join(secrets.token_urlsafe(4) for _ in range(3))
        user = users.create_user(username=username, password=password)
        Staff.objects.create(tournament=tournament, user=user, role=Staff.Role.REFEREE)
        EventAccount.objects.create(user=user, tournament=tournament, created_by=by)
    return user, password


def accounts_managed_here(tournament: Tournament, users=None) -> set[int]:
    """The ids of the accounts whose API token the event's organizers may set.

    Only referee accounts this event created, that hold no role or invitation in any
    other event, no organizer role, and no powers of their own (not staff of the site,
    not a superuser). ``users`` narrows the answer to those ids; three queries in all.
    """
    created = EventAccount.objects.filter(
        tournament=tournament, user__is_superuser=False, user__is_staff=False
    )
    if users is not None:
        created = created.filter(user_id__in=users)
    candidates = set(created.values_list("user_id", flat=True))
    if not candidates:
        return set()
    roles = Staff.objects.filter(user_id__in=candidates)
    taken = set(
        roles.filter(~Q(tournament=tournament) | Q(role=Staff.Role.ORGANIZER)).values_list(
            "user_id", flat=True
        )
    )
    taken |= set(
        Invitation.objects.filter(user_id__in=candidates)
        .exclude(tournament=tournament)
        .values_list("user_id", flat=True)
    )
    return candidates - taken


def credentials_managed_here(tournament: Tournament, user) -> bool:
    """Whether the event's organizers may set ``user``'s API token."""
    return user is not None and user.pk in accounts_managed_here(tournament, [user.pk])


def _check_credentials_managed_here(tournament: Tournament, user) -> None:
    if not credentials_managed_here(tournament, user):
        raise TournamentError(
            say(
                "Only referee accounts this event created have their tokens set here; "
                "everyone else manages their own from their account page."
            ),
            "user",
        )


def issue_token(tournament: Tournament, user, *, by, rotate: bool = False) -> str:
    """An API token for a referee account this event created (a new one with ``rotate``)."""
    from rest_framework.authtoken.models import Token

    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        _check_credentials_managed_here(tournament, user)
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
    return token.key


def revoke_token(tournament: Tournament, user, *, by) -> bool:
    """Delete the API token of a referee account this event created; True if there was one."""
    from rest_framework.authtoken.models import Token

    with transaction.atomic():
        require(by, "tournament.manage", tournament)
        _check_credentials_managed_here(tournament, user)
        deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


# --- entrants ----------------------------------------------------------------------------


def _player(name: str) -> Player:
    return Player.objects.create(display_name=name)


def _next_seed(tournament: Tournament) -> int:
    return (Entrant.objects.filter(tournament=tournament).aggregate(m=Max("seed"))["m"] or 0) + 1


def _lock_tournament(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


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
    return entrant


def _forget_live_parts(tournament_id: int) -> None:
    """After the write commits, pollers of the event's live parts get them afresh."""
    from tournaments import live

    transaction.on_commit(lambda: live.forget_tournament(tournament_id))


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
    return entrant


# --- stages -------------------------------------------------------------------------------


def add_stage(
    tournament: Tournament, *, by, name: str, format: str, settings: dict | None = None
) -> Stage:
    """Add the next stage (a round robin, Swiss, bracket or pools) to the tournament."""
    from tournaments.pairing import get_engine
    from tournaments.pairing.base import check_positive_int

    if format not in Stage.Format.values:
        formats = ", ".join(Stage.Format.values)
        raise TournamentError(
            say(
                "Unknown format {format!r}; choose from {formats}.", format=format, formats=formats
            ),
            "format",
        )
    settings = dict(settings or {})
    engine = get_engine(format)
    try:
        if "seed" in settings:
            check_positive_int(settings, "seed")
        engine.validate_settings(settings, table_size=tournament.sides_per_table)
    except ValueError as error:
        raise TournamentError(str(error), "settings") from error
    with transaction.atomic():
        tournament = _lock_tournament(tournament)
        require(by, "tournament.manage", tournament)
        order = (tournament.stages.aggregate(m=Max("order"))["m"] or 0) + 1
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


def assign_referee(match: Match, referee, *, by) -> Match:
    """Make ``referee`` the referee of a table: staff of the event and a referee of its game."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update()
            .select_related("round__stage__tournament")
            .get(pk=match.pk)
        )
        tournament = match.round.stage.tournament
        require(by, "tournament.manage", tournament)
        if match.bye:
            raise TournamentError(say("A bye has no table to referee."), "match")
        if not Staff.objects.filter(tournament=tournament, user=referee).exists():
            # Only the event's own staff referee it: a role is given by an accepted
            # invitation or an account the event created, never by an assignment.
            raise TournamentError(
                say(
                    "{username} is not a referee or organizer of this tournament; "
                    "invite them first.",
                    username=referee.username,
                ),
                "referee",
            )
        previous = match.referee
        match.referee = referee
        match.save(update_fields=["referee"])
        if match.game_id:
            game = match.game
            if previous is not None and previous != referee:
                game.referees.remove(previous)
            game.referees.add(referee)
    return match


def assign_round_referees(round_: Round, assignments: Mapping[int, Any], *, by) -> list[Match]:
    """Set the referees of a round's tables in one go, all or nothing.

    ``assignments`` maps a table number to its referee, or to None to leave the table
    without one. Every referee must already be the event's staff; returns the tables
    whose referee changed.
    """
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update().select_related("stage__tournament").get(pk=round_.pk)
        )
        tournament = round_.stage.tournament
        require(by, "tournament.manage", tournament)
        tables = {
            match.table_number: match
            for match in Match.objects.select_for_update().filter(
                round=round_, table_number__in=list(assignments)
            )
        }
        missing = sorted(set(assignments) - set(tables))
        if missing:
            raise TournamentError(
                say(
                    "Round {number} has no table {tables}.",
                    number=round_.number,
                    tables=", ".join(map(str, missing)),
                ),
                "assignments",
            )
        byes = sorted(number for number in assignments if tables[number].bye)
        if byes:
            raise TournamentError(
                say(
                    "A bye has no table to referee (table {tables}).",
                    tables=", ".join(map(str, byes)),
                ),
                "assignments",
            )
        wanted = {referee.pk: referee for referee in assignments.values() if referee is not None}
        staff = set(
            Staff.objects.filter(tournament=tournament, user_id__in=list(wanted)).values_list(
                "user_id", flat=True
            )
        )
        outsiders = sorted(wanted[pk].username for pk in set(wanted) - staff)
        if outsiders:
            # Only the event's own staff referee it, as for a single table.
            raise TournamentError(
                say(
                    "{username} is not a referee or organizer of this tournament; "
                    "invite them first.",
                    username=", ".join(outsiders),
                ),
                "referee",
            )
        changed = [
            match
            for number, match in sorted(tables.items())
            if match.referee_id != (assignments[number].pk if assignments[number] else None)
        ]
        referees = Game.referees.through
        replaced = Q()
        for match in changed:
            if match.game_id and match.referee_id is not None:
                replaced |= Q(game_id=match.game_id, user_id=match.referee_id)
            match.referee = assignments[match.table_number]
        if replaced:
            referees.objects.filter(replaced).delete()
        Match.objects.bulk_update(changed, ["referee"])
        referees.objects.bulk_create(
            [
                referees(game_id=match.game_id, user_id=match.referee.pk)
                for match in changed
                if match.game_id and match.referee is not None
            ],
            ignore_conflicts=True,
        )
    return changed


# --- rounds -------------------------------------------------------------------------------


def _stage_entrants(stage: Stage) -> list[Entrant]:
    members = list(stage.entrants.all())
    if members:
        return members
    return list(stage.tournament.entrants.all())


def _history(stage: Stage, entrants: list[Entrant]) -> list[EntrantStub]:
    """Entrant stubs with whom each met, the seats sat, byes, short tables and wins."""
    from tournaments.pairing.base import EntrantStub

    met: dict[int, dict[int, int]] = {e.pk: {} for e in entrants}
    seats: dict[int, list[int]] = {e.pk: [] for e in entrants}
    byes: dict[int, int] = dict.fromkeys(met, 0)
    short: dict[int, int] = dict.fromkeys(met, 0)
    score: dict[int, float] = dict.fromkeys(met, 0.0)
    tables: dict[int, list] = {}
    rows = MatchSeat.objects.filter(round__stage=stage).values(
        "match_id",
        "entrant_id",
        "position",
        "match__bye",
        "match__game__winner",
        "match__game__status",
    )
    for row in rows:
        tables.setdefault(row["match_id"], []).append(row)
    full = stage.tournament.sides_per_table
    for seated in tables.values():
        ids = [row["entrant_id"] for row in seated]
        for row in seated:
            me = row["entrant_id"]
            if me not in met:
                continue
            if row["match__bye"]:
                byes[me] += 1
                score[me] += 1
                continue
            seats[me].append(row["position"])
            if len(seated) < full:
                short[me] += 1
            for other in ids:
                if other != me:
                    met[me][other] = met[me].get(other, 0) + 1
            side = "+".join(
                "ABCDEF"[i]
                for i in (
                    (row["position"], row["position"] + 2)
                    if stage.tournament.is_teams
                    else (row["position"],)
                )
            )
            if row["match__game__status"] == "finished" and row["match__game__winner"] == side:
                score[me] += 1
    seeding = {
        entrant_id: place
        for place, entrant_id in enumerate(stage.settings.get("seeding", []), start=1)
    }
    return [
        EntrantStub(
            id=e.pk,
            seed=seeding.get(e.pk, len(seeding) + e.seed),
            score=score[e.pk],
            met=met[e.pk],
            seats=tuple(seats[e.pk]),
            byes=byes[e.pk],
            short_tables=short[e.pk],
            withdrawn=e.withdrawn,
        )
        for e in entrants
    ]


def bracket_results(stage: Stage) -> dict[str, list[int]]:
    """Played bracket slots: slot → entrant ids best first (by the game's final totals)."""
    results: dict[str, list[int]] = {}
    matches = (
        Match.objects.filter(round__stage=stage, bye=False, game__status="finished")
        .exclude(slot="")
        .exclude(slot__startswith="P")
        .select_related("game")
        .prefetch_related("seats")
    )
    teams = stage.tournament.is_teams
    for match in matches:
        totals = match.game.totals
        sides = list(totals)
        ranked = sorted(
            match.seats.all(),
            key=lambda seat: (
                seat.entrant_id != _winner_entrant(match, teams),
                -totals.get(sides[seat.position], 0) if seat.position < len(sides) else 0,
                seat.position,
            ),
        )
        results[match.slot] = [seat.entrant_id for seat in ranked]
    return results


def _winner_entrant(match: Match, teams: bool) -> int | None:
    winner = match.game.winner
    if not winner:
        return None
    sides = list(match.game.totals)
    position = sides.index(winner) if winner in sides else None
    for seat in match.seats.all():
        if seat.position == position:
            return seat.entrant_id
    return None


def _game_seats(tournament: Tournament, entrants: list[Entrant]) -> list:
    """Players in the order of play: partners sit across (team 1, team 2, team 1, team 2)."""
    if tournament.is_teams:
        first, second = entrants
        return [first.player, second.player, first.partner, second.partner]
    return [entrant.player for entrant in entrants]


def _seat_tables(stage: Stage, round_: Round, result, *, first_table: int = 1) -> list[Match]:
    """Write a pairing's tables: their games, matches and seats, in a few bulk inserts."""
    from scoring.services import create_games

    tournament = stage.tournament
    ids = {entrant_id for table in result.tables for entrant_id in table.entrants}
    by_id = Entrant.objects.select_related("player", "partner").in_bulk(ids)
    numbered = [
        (first_table + offset, table, [by_id[entrant_id] for entrant_id in table.entrants])
        for offset, table in enumerate(result.tables)
    ]
    played = [(number, entrants) for number, table, entrants in numbered if not table.bye]
    games = create_games(
        ruleset_key=tournament.ruleset_key,
        overrides=tournament.overrides,
        tables=[
            (
                _game_seats(tournament, entrants),
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
        MatchSeat(match=match, round=round_, entrant=entrant, position=position)
        for match, (_, _, entrants) in zip(matches, numbered, strict=True)
        for position, entrant in enumerate(entrants)
    )
    return matches


def generate_round(stage: Stage, *, by, seed: int | None = None) -> Round:
    """Pair the stage's next round: its tables, seats and games, all in one transaction."""
    from tournaments.pairing import PairingError, get_engine

    with transaction.atomic():
        tournament = _lock_tournament(stage.tournament)
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
        engine = get_engine(stage.format)
        needs_results = stage.format in ("swiss", *ELIMINATION)
        if (
            last is not None
            and needs_results
            and Match.objects.filter(round=last, bye=False)
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
        entrants = _stage_entrants(stage)
        active = [e for e in entrants if not e.withdrawn]
        number = (last.number if last else 0) + 1
        total = engine.total_rounds(
            len(entrants), table_size=tournament.sides_per_table, settings=stage.settings
        )
        if number > total:
            raise TournamentConflict(
                say("This stage has {total} round(s); all are paired.", total=total), "round"
            )
        stubs = _history(stage, entrants)
        if stage.format == "swiss":
            # Swiss pairs whoever is still playing; schedules and brackets keep their
            # places and skip a withdrawn entrant themselves.
            stubs = [s for s in stubs if not s.withdrawn]
        try:
            result = engine.pair(
                stubs,
                round_number=number,
                table_size=tournament.sides_per_table,
                settings=stage.settings,
                seed=stage.settings.get("seed", stage.pk) if seed is None else seed,
                results=bracket_results(stage) if stage.format in ELIMINATION else None,
            )
        except PairingError as error:
            raise TournamentError(str(error), "stage") from error
        if not active:
            raise TournamentError(say("Nobody is left to pair."), "entrants")
        round_ = Round.objects.create(
            stage=stage,
            number=number,
            flags=[
                {
                    "code": f.code,
                    "message": f.message,
                    "template": getattr(f.message, "template", f.message),
                    "params": getattr(f.message, "params", {}),
                    "entrants": list(f.entrants),
                }
                for f in result.flags
            ],
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
    from scoring.services import release_games

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
        # Pages opened before it move to the new round at their next poll.
        from tournaments import live

        transaction.on_commit(lambda: live.forget_round(round_))
        # The standings list everyone from the first round on (a bye counts from the
        # moment its round is published); hands of games in play move no standing, so
        # this is the round's only recompute until a game finishes.
        from tournaments.tasks import request_recompute

        tournament_id = round_.stage.tournament_id
        transaction.on_commit(lambda: request_recompute(tournament_id))
    return round_


def swap_seats(round_: Round, first: Entrant, second: Entrant, *, by) -> Round:
    """An organizer's fix before the round starts: two entrants trade places."""
    from scoring.models import Hand, Seat

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
                players = _game_seats(tournament, ordered)
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
        _forget_live_parts(tournament.pk)
    return round_


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
    if state[1]:
        raise TournamentConflict(
            say("{value} game(s) of this stage are not finished.", value=state[1]), "stage"
        )


def finish_stage(
    stage: Stage, *, by, top: int | None = None, per_pool: int | None = None
) -> Stage | None:
    """Close a stage and seed the next one from its standings (top N, or top k per pool).

    The ranking is computed with no transaction open (it reads every game of the stage);
    the write then re-checks, under the tournament's, the stage's and its games' locks,
    that nothing changed meanwhile, and starts over if a result did.
    """
    from tournaments.standings_store import stage_ranking

    require(by, "tournament.manage", stage.tournament)
    for _attempt in range(3):
        stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
        seen = _stage_games_state(stage)
        _check_finishable(stage, seen)
        ranking = stage_ranking(stage, per_pool=per_pool)
        with transaction.atomic():
            tournament = _lock_tournament(stage.tournament)
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
            if now == seen:
                return _close_stage(tournament, stage, ranking[:top] if top else ranking)
    raise TournamentConflict(
        say("Results of this stage keep changing; finish it once the tables are settled."),
        "stage",
    )


def _close_stage(tournament: Tournament, stage: Stage, chosen: list[int]) -> Stage | None:
    """Mark the stage finished and seed the next one (or finish the tournament)."""
    _forget_live_parts(tournament.pk)
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


def advance_bracket(match: Match) -> list[Match]:
    """Seat the winners of a finished bracket game at the tables they now reach."""
    stage = match.round.stage
    if stage.format not in ELIMINATION or not match.slot:
        return []
    from tournaments.pairing import get_engine

    with transaction.atomic():
        tournament = _lock_tournament(stage.tournament)
        stage = Stage.objects.get(pk=stage.pk)
        results = bracket_results(stage)
        entrants = _stage_entrants(stage)
        created = []
        engine = get_engine(stage.format)
        for number in range(
            match.round.number + 1,
            engine.total_rounds(
                len(entrants), table_size=tournament.sides_per_table, settings=stage.settings
            )
            + 1,
        ):
            pairing = engine.pair(
                _history(stage, entrants),
                round_number=number,
                table_size=tournament.sides_per_table,
                settings=stage.settings,
                seed=stage.settings.get("seed", stage.pk),
                results=results,
            )
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
            from tournaments.pairing.base import PairingResult

            created += _seat_tables(stage, round_, PairingResult(tuple(fresh)), first_table=first)
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

"""Ladder sessions: check-in and out, tables formed from whoever waits, their games."""

from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.models import Player
from accounts.permissions import require
from circuit import jobs
from circuit.ladder_tables import Waiting, form_tables
from circuit.models import LadderPlayer, LadderSession, LadderTable, Pool, Rating
from circuit.rating import Skill
from circuit.services.common import CircuitConflict, CircuitError, bounded, clean_name, unique_slug
from domain.say import say
from scoring import services as scoring
from scoring.models import Game, Seat
from scoring.rulesets import ScoringError, get_ruleset
from tournaments.services.common import TournamentError
from tournaments.services.events import _table_size_for
from tournaments.standings import placements


def session_pool(session: LadderSession) -> str:
    rules = get_ruleset(
        session.ruleset_key, players=session.table_size, overrides=session.overrides
    )
    return Pool.PARTNERS if rules.teams == "partners" else Pool.INDIVIDUAL


def create_session(
    *,
    by,
    name: str,
    ruleset_key: str,
    table_size: int | None = None,
    overrides: dict | None = None,
    every_minutes: int = 0,
    public: bool = True,
) -> LadderSession:
    """Open a ladder session under a rule set; its creator runs it."""
    require(by, "ladder.create")
    name = clean_name(name)
    if not name:
        raise CircuitError(say("Give the session a name."), "name")
    overrides = dict(overrides or {})
    try:
        table_size = _table_size_for(ruleset_key, table_size, overrides)
    except TournamentError as error:
        raise CircuitError(error.message, error.field) from error
    if bounded(every_minutes, 0, 240) is None:
        raise CircuitError(
            say("Minutes between table forming: a number from 0 to 240."), "every_minutes"
        )
    with transaction.atomic():
        return LadderSession.objects.create(
            name=name,
            slug=unique_slug(LadderSession, name, "ladder"),
            ruleset_key=ruleset_key,
            overrides=overrides,
            table_size=table_size,
            every_minutes=int(every_minutes),
            public=public,
            created_by=by,
        )


def _lock_open(session: LadderSession) -> LadderSession:
    session = LadderSession.objects.select_for_update().get(pk=session.pk)
    if session.status != LadderSession.Status.OPEN:
        raise CircuitConflict(say("This session is closed."), "session")
    return session


def _player_named(name: str) -> Player:
    name = clean_name(name)[:120]
    if not name:
        raise CircuitError(say("Give the player's name."), "name")
    return Player.objects.filter(display_name__iexact=name).order_by("pk").first() or (
        Player.objects.create(display_name=name)
    )


def check_in(
    session: LadderSession, *, by, player: Player | None = None, name: str = ""
) -> LadderPlayer:
    """A player present joins the waiting list (the organizer by name, a player themself)."""
    with transaction.atomic():
        session = _lock_open(session)
        if player is None:
            require(by, "ladder.manage", session)
            player = _player_named(name)
        elif not _allowed(by, "ladder.manage", session):
            require(by, "ladder.play_as", player)
        entry, _ = LadderPlayer.objects.select_for_update().get_or_create(
            session=session, player=player
        )
        if entry.table_id is None and entry.waiting_since is None:
            entry.waiting_since = timezone.now()
        entry.present = True
        entry.save()
        if not session.every_minutes:
            jobs.request_on_commit(f"ladder:{session.pk}")
    return entry


def check_out(session: LadderSession, *, by, player: Player) -> LadderPlayer:
    """A player leaves: off the waiting list now, or once the game they are in ends."""
    with transaction.atomic():
        session = _lock_open(session)
        if not (_allowed(by, "ladder.manage", session) or _allowed(by, "ladder.play_as", player)):
            require(by, "ladder.manage", session)
        entry = LadderPlayer.objects.select_for_update().filter(session=session, player=player)
        entry = entry.first()
        if entry is None:
            raise CircuitError(say("{name} is not in this session.", name=str(player)), "player")
        entry.present = False
        entry.waiting_since = None
        entry.save(update_fields=["present", "waiting_since"])
    return entry


def _allowed(user, action, obj) -> bool:
    from accounts.permissions import allowed

    return allowed(user, action, obj)


def close_session(session: LadderSession, *, by) -> LadderSession:
    """End the session: nobody waits any more; tables in play finish as usual."""
    with transaction.atomic():
        session = _lock_open(session)
        require(by, "ladder.manage", session)
        session.status = LadderSession.Status.CLOSED
        session.save(update_fields=["status"])
        LadderPlayer.objects.filter(session=session).update(waiting_since=None, present=False)
    return session


def form_now(session: LadderSession, *, by) -> list[LadderTable]:
    """The organizer seats whoever waits now, whatever the session's interval."""
    with transaction.atomic():
        session = _lock_open(session)
        require(by, "ladder.manage", session)
        return _form(session)


def _release(session: LadderSession) -> int:
    """Players of tables whose game finished go back to waiting (or home, if they left)."""
    now = timezone.now()
    freed = list(
        LadderTable.objects.filter(session=session, done=False, game__status=Game.Status.FINISHED)
    )
    for table in freed:
        at_table = list(
            Seat.objects.filter(game_id=table.game_id).values_list("player_id", flat=True)
        )
        for entry in LadderPlayer.objects.filter(session=session, table=table):
            entry.table = None
            entry.last_opponents = [p for p in at_table if p != entry.player_id]
            open_ = entry.present and session.status == LadderSession.Status.OPEN
            entry.waiting_since = now if open_ else None
            entry.save(update_fields=["table", "last_opponents", "waiting_since"])
        table.done = True
        table.save(update_fields=["done"])
    return len(freed)


def _form(session: LadderSession) -> list[LadderTable]:
    """Seat the waiting players at new tables (inside the caller's transaction)."""
    pool = session_pool(session)
    entries = list(
        LadderPlayer.objects.select_for_update()
        .filter(session=session, present=True, table=None, waiting_since__isnull=False)
        .select_related("player")
    )
    ordinals = dict(
        Rating.objects.filter(pool=pool, player_id__in=[e.player_id for e in entries]).values_list(
            "player_id", "ordinal"
        )
    )
    waiting = [
        Waiting(
            e.player_id,
            ordinals.get(e.player_id, Skill().ordinal),
            e.waiting_since.timestamp(),
            frozenset(e.last_opponents),
        )
        for e in entries
    ]
    formed = form_tables(waiting, session.table_size, partners=pool == Pool.PARTNERS)
    by_player = {e.player_id: e for e in entries}
    number = (session.tables.aggregate(n=Max("number"))["n"] or 0) + 1
    made = []
    referees = [session.created_by] if session.created_by else []
    for players in formed.tables:
        try:
            game = scoring.create_game(
                ruleset_key=session.ruleset_key,
                overrides=session.overrides,
                seats=[
                    scoring.SeatSpec(
                        player=by_player[p].player, display_name=by_player[p].player.display_name
                    )
                    for p in players
                ],
                by=session.created_by,
                label=f"{session.name} · {number}",
                public=session.public,
                referees=referees,
                start=True,
                followed=True,
            )
        except ScoringError as error:
            raise CircuitError(error.message, getattr(error, "field", "session")) from error
        table = LadderTable.objects.create(session=session, number=number, game=game)
        LadderPlayer.objects.filter(session=session, player_id__in=players).update(
            table=table, waiting_since=None
        )
        made.append(table)
        number += 1
    session.last_formed_at = timezone.now()
    session.save(update_fields=["last_formed_at"])
    return made


def refresh_session(session_id: int) -> int:
    """After a ladder game changed: free its table, and seat whoever waits when the
    session seats as soon as enough wait; returns tables formed."""
    with transaction.atomic():
        session = LadderSession.objects.select_for_update().filter(pk=session_id).first()
        if session is None:
            return 0
        _release(session)
        if session.status != LadderSession.Status.OPEN or session.every_minutes:
            return 0
        return len(_form(session))


def form_due_sessions() -> int:
    """Seat the sessions that form tables every few minutes and whose time has come (beat)."""
    now = timezone.now()
    formed = 0
    for session in LadderSession.objects.filter(
        status=LadderSession.Status.OPEN, every_minutes__gt=0
    ):
        due = session.last_formed_at is None or (
            session.last_formed_at + timedelta(minutes=session.every_minutes) <= now
        )
        if not due:
            continue
        with transaction.atomic():
            locked = LadderSession.objects.select_for_update().get(pk=session.pk)
            _release(locked)
            formed += len(_form(locked))
    return formed


def session_standings(session: LadderSession) -> list[dict]:
    """Each player's games, wins and average placing in the session, with their rating."""
    pool = session_pool(session)
    games = Game.objects.filter(ladder__session=session, status=Game.Status.FINISHED)
    totals = dict(games.values_list("pk", "totals"))
    lines: dict[int, dict] = {}
    seats = Seat.objects.filter(game_id__in=totals).select_related("side", "player")
    placing: dict[int, dict[str, int]] = {}
    for game_id, game_totals in totals.items():
        names = sorted(game_totals)
        placing[game_id] = dict(
            zip(names, placements([game_totals[n] for n in names]), strict=True)
        )
    for seat in seats:
        if seat.player_id is None:
            continue
        line = lines.setdefault(
            seat.player_id,
            {"player": seat.player, "games": 0, "wins": 0, "places": 0, "ordinal": None},
        )
        place = placing[seat.game_id][seat.side.name]
        line["games"] += 1
        line["wins"] += place == 1
        line["places"] += place
    ordinals = dict(
        Rating.objects.filter(pool=pool, player_id__in=lines).values_list("player_id", "ordinal")
    )
    for player_id, line in lines.items():
        line["average_place"] = round(line.pop("places") / line["games"], 2)
        line["ordinal"] = ordinals.get(player_id)
    return sorted(
        lines.values(),
        key=lambda line: (-line["wins"], line["average_place"], -line["games"], line["player"].pk),
    )


def session_floor(session: LadderSession) -> tuple[list[LadderPlayer], list[LadderTable]]:
    """Who waits (longest first) and the tables in play, their seats fetched."""
    waiting = list(
        LadderPlayer.objects.filter(session=session, waiting_since__isnull=False)
        .select_related("player")
        .order_by("waiting_since", "pk")
    )
    tables = list(
        LadderTable.objects.filter(session=session, done=False)
        .select_related("game")
        .prefetch_related("game__seats__side")
        .order_by("number")
    )
    return waiting, tables

"""Ladder sessions: check-in and out, tables formed from whoever waits, their games."""

from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.permissions import allowed, require
from circuit.consent import forfeiting, seat_consent
from circuit.ladder_tables import Waiting, form_tables
from circuit.models import (
    Consent,
    LadderAct,
    LadderPlayer,
    LadderRequest,
    LadderSeat,
    LadderSession,
    LadderTable,
    Pool,
    Rating,
)
from circuit.rating import Skill
from circuit.services.common import CircuitConflict, CircuitError, bounded, clean_name, unique_slug
from domain.say import say, say_n
from jobs import runner
from players.matching import new_player
from players.models import Player
from players.names import name_key
from scoring import officiating
from scoring import services as scoring
from scoring.models import Game, OfficialAct, Seat
from scoring.rulesets import ScoringError, get_ruleset
from tournaments.read.standings import placements
from tournaments.services import TournamentError, table_size_for


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
        table_size = table_size_for(ruleset_key, table_size, overrides)
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


def _player_named(session: LadderSession, by, name: str) -> tuple[Player, str]:
    """The organizer's player of that name, or a new one they create, with how their
    seat is consented; a name that is someone else's player (or has an account) is
    refused, never taken over."""
    name = clean_name(name)[:120]
    if not name:
        raise CircuitError(say("Give the player's name."), "name")
    namesakes = list(Player.objects.filter(name_key=name_key(name)).order_by("pk"))
    for player in namesakes:
        consent = seat_consent(by, session, player)
        if consent:
            return player, consent
    if namesakes:
        raise CircuitConflict(
            say(
                "{name} is not a player you may check in: a player with an account checks "
                "in themself or accepts your request; another organizer's player is theirs.",
                name=namesakes[0].display_name,
            ),
            "name",
        )
    return new_player(name), Consent.ORGANIZER


def _consent_of(session: LadderSession, by, player: Player) -> str:
    consent = seat_consent(by, session, player)
    if consent is None:
        if player.user_id is not None:
            message = say(
                "{name} has an account: only they check themself in, or accept your request.",
                name=player.display_name,
            )
        else:
            message = say(
                "{name} is not a player of your ladders: only the organizer who created "
                "them, or of a ladder they play in, checks them in.",
                name=player.display_name,
            )
        raise CircuitError(message, "player")
    return consent


def _act(session: LadderSession, kind: str, *, by, player=None, **detail) -> LadderAct:
    return LadderAct.objects.create(
        session=session,
        kind=kind,
        player=player,
        actor=by if getattr(by, "pk", None) else None,
        detail=detail,
    )


def check_in(
    session: LadderSession, *, by, player: Player | None = None, name: str = ""
) -> LadderPlayer:
    """A player present joins the waiting list: by their own tap, or, for a player
    without an account, by their organizer (by name or by id); see circuit.consent."""
    with transaction.atomic():
        session = _lock_open(session)
        if player is None:
            require(by, "ladder.manage", session)
            player, consent = _player_named(session, by, name)
        else:
            if not allowed(by, "ladder.play_as", player):
                require(by, "ladder.manage", session)
            consent = _consent_of(session, by, player)
        entry = _seat_consented(session, player, by=by, consent=consent)
        _act(session, LadderAct.Kind.CHECKED_IN, by=by, player=player, consent=entry.consent)
    return entry


def _seat_consented(session: LadderSession, player: Player, *, by, consent: str) -> LadderPlayer:
    """The player waits (unless at a table), their consent recorded (inside the caller's
    transaction, the session locked)."""
    entry, _ = LadderPlayer.objects.select_for_update().get_or_create(
        session=session, player=player
    )
    if entry.table_id is None and entry.waiting_since is None:
        entry.waiting_since = timezone.now()
    entry.present = True
    entry.consent = consent
    entry.consented_by = by
    entry.consented_at = timezone.now()
    entry.save()
    if not session.every_minutes:
        runner.request_on_commit("ladder", session.pk)
    return entry


def ask(session: LadderSession, *, by, player: Player) -> LadderRequest:
    """The organizer asks a player with an account to check in; they answer it."""
    with transaction.atomic():
        session = _lock_open(session)
        require(by, "ladder.manage", session)
        if player.user_id is None:
            raise CircuitError(
                say("{name} has no account to answer: check them in yourself.", name=str(player)),
                "player",
            )
        asked = LadderRequest.objects.select_for_update().filter(session=session, player=player)
        asked = asked.first()
        if asked is not None and asked.answer != LadderRequest.Answer.ACCEPTED:
            message = (
                say("{name} has already been asked.", name=str(player))
                if asked.answer == LadderRequest.Answer.PENDING
                else say("{name} declined this session's request.", name=str(player))
            )
            raise CircuitConflict(message, "player")
        if LadderPlayer.objects.filter(session=session, player=player, present=True).exists():
            raise CircuitConflict(say("{name} is already here.", name=str(player)), "player")
        # One unanswered request from one organizer at a time: asking from many sessions
        # does not fill a person's account page.
        elsewhere = LadderRequest.objects.filter(
            asked_by=by, player=player, answer=LadderRequest.Answer.PENDING
        ).exclude(session=session)
        if elsewhere.exists():
            raise CircuitConflict(
                say("{name} has yet to answer your request for another session.", name=str(player)),
                "player",
            )
        asked = asked or LadderRequest(session=session, player=player)
        asked.asked_by, asked.asked_at = by, timezone.now()
        asked.answer, asked.answered_at = LadderRequest.Answer.PENDING, None
        asked.save()
        _act(session, LadderAct.Kind.ASKED, by=by, player=player)
    return asked


def answer(asked: LadderRequest, *, by, accept: bool) -> LadderRequest:
    """The player accepts the request (and is checked in) or declines it."""
    with transaction.atomic():
        session = _lock_open(asked.session)
        asked = LadderRequest.objects.select_for_update().select_related("player").get(pk=asked.pk)
        require(by, "ladder.play_as", asked.player)
        if asked.answer != LadderRequest.Answer.PENDING:
            raise CircuitConflict(say("This request has already been answered."), "request")
        asked.answer = LadderRequest.Answer.ACCEPTED if accept else LadderRequest.Answer.DECLINED
        asked.answered_at = timezone.now()
        asked.save(update_fields=["answer", "answered_at"])
        if accept:
            _seat_consented(session, asked.player, by=by, consent=Consent.ACCEPTED)
        kind = LadderAct.Kind.ACCEPTED if accept else LadderAct.Kind.DECLINED
        _act(session, kind, by=by, player=asked.player)
    return asked


def check_out(session: LadderSession, *, by, player: Player) -> LadderPlayer:
    """A player leaves: off the waiting list now, or once the game they are in ends."""
    with transaction.atomic():
        session = _lock_open(session)
        if not (allowed(by, "ladder.manage", session) or allowed(by, "ladder.play_as", player)):
            require(by, "ladder.manage", session)
        entry = LadderPlayer.objects.select_for_update().filter(session=session, player=player)
        entry = entry.first()
        if entry is None:
            raise CircuitError(say("{name} is not in this session.", name=str(player)), "player")
        entry.present = False
        entry.waiting_since = None
        entry.save(update_fields=["present", "waiting_since"])
        _act(session, LadderAct.Kind.CHECKED_OUT, by=by, player=player)
    return entry


def forfeit(session: LadderSession, *, by, player: Player, reason: str) -> Game:
    """A player forfeits the game they sit in, or the organizer forfeits it for them:
    scoring's forfeit, written to the game's officiating acts (the ladder's audit list
    reads them), and only over a seat its player consented to."""
    with transaction.atomic():
        session = LadderSession.objects.select_for_update().get(pk=session.pk)
        seat = _seat_in_play(session, by=by, player=player)
        game = seat.table.game
        seat_name = game.seats.filter(player=player).values_list("name", flat=True).first()
        with forfeiting(by, game):
            return officiating.forfeit_seat(game, seat_name, reason, by)


def _seat_in_play(session: LadderSession, *, by, player: Player) -> LadderSeat:
    """``player``'s seat at a table of ``session`` in play, which ``by`` may forfeit."""
    seat = (
        LadderSeat.objects.select_related("table__session", "table__game", "player")
        .filter(table__session=session, table__done=False, player=player)
        .first()
    )
    if seat is None or seat.table.game.status == Game.Status.FINISHED:
        raise CircuitConflict(say("{name} is not at a table in play.", name=str(player)), "player")
    require(by, "ladder.forfeit", seat)
    return seat


def forfeit_effect(session: LadderSession, *, by, player: Player):
    """What ``by`` forfeiting ``player``'s game does, in words to confirm it by (refused
    as the forfeit itself would be: nobody learns more than the act would tell them)."""
    seat = _seat_in_play(session, by=by, player=player)
    return say(
        "The game at table {table} ends now as {name}'s forfeit: they are placed last, the "
        "others by their totals.",
        table=seat.table.number,
        name=str(player),
    )


def close_effect(session: LadderSession, *, by):
    """What closing ``session`` does, in words to confirm it by."""
    require(by, "ladder.manage", session)
    if session.status != LadderSession.Status.OPEN:
        raise CircuitConflict(say("This session is closed."), "session")
    waiting = LadderPlayer.objects.filter(session=session, waiting_since__isnull=False).count()
    return say_n(
        "The session closes for good: the {count} player waiting leaves the list and nobody "
        "may check in; tables in play finish as usual.",
        "The session closes for good: the {count} players waiting leave the list and nobody "
        "may check in; tables in play finish as usual.",
        waiting,
        count=waiting,
    )


def close_session(session: LadderSession, *, by) -> LadderSession:
    """End the session: nobody waits any more; tables in play finish as usual."""
    with transaction.atomic():
        session = _lock_open(session)
        require(by, "ladder.manage", session)
        session.status = LadderSession.Status.CLOSED
        session.save(update_fields=["status"])
        LadderPlayer.objects.filter(session=session).update(waiting_since=None, present=False)
        _act(session, LadderAct.Kind.CLOSED, by=by)
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
        .exclude(consent="")
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
        LadderSeat.objects.bulk_create(
            LadderSeat(
                table=table,
                player_id=p,
                consent=by_player[p].consent,
                consented_by_id=by_player[p].consented_by_id,
            )
            for p in players
        )
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


def session_audit(session: LadderSession) -> list[dict]:
    """The session's audit list, latest first: its own acts and the officiating acts
    on its games (forfeits, reopenings ...), each with who, when and what."""
    acts = [
        {
            "at": act.at, "kind": act.kind, "what": str(act.get_kind_display()),
            "by": act.actor.get_username() if act.actor else None,
            "player_id": act.player_id, "player": act.player.display_name if act.player else None,
            "table": None, "reason": "", "detail": act.detail,
        }
        for act in session.acts.select_related("actor", "player")
    ]  # fmt: skip
    tables = dict(session.tables.values_list("game_id", "number"))
    acts += [
        {
            "at": act.at, "kind": act.kind, "what": str(act.get_kind_display()),
            "by": act.actor.get_username() if act.actor else None,
            "player_id": None, "player": act.subject, "table": tables[act.game_id],
            "reason": act.reason, "detail": act.detail,
        }
        for act in OfficialAct.objects.filter(game_id__in=tables).select_related("actor")
    ]  # fmt: skip
    return sorted(acts, key=lambda act: act["at"], reverse=True)


def ladders_of(user) -> tuple[list[LadderPlayer], list[LadderRequest]]:
    """The ladder entries of the user's player and the requests ladders sent them."""
    player = getattr(user, "player", None) if user.is_authenticated else None
    if player is None:
        return [], []
    entries = list(
        LadderPlayer.objects.filter(player=player)
        .select_related("session")
        .order_by("-session__created_at", "-pk")
    )
    asked = list(
        LadderRequest.objects.filter(player=player)
        .select_related("session")
        .order_by("-asked_at", "-pk")
    )
    return entries, asked


def request_for(user, pk: int) -> LadderRequest | None:
    """A request sent to the user's own player, or None."""
    if not user.is_authenticated:
        return None
    return LadderRequest.objects.filter(pk=pk, player__user=user).select_related("session").first()

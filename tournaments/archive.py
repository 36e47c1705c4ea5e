"""An event's archive: one JSON document that carries a whole event from one installation
to another (``docs/archive.md`` describes the format).

The document names nothing by the database's ids: entrants by their seed, players by
their place in the document's ``players`` list, score events and disputes by their place
in their game's lists. Accounts do not travel: who recorded a hand or acted is written as
the account's username in the source installation, for the record, and the importing
installation links none of it (no referee, staff, creator or actor comes with an event).

Importing is one transaction: a document that is malformed, of another format or
version, that breaks a rule of the database, or whose hands do not add up to its
games' totals, imports nothing.
"""

import json
import threading
from collections import defaultdict
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from players.matching import look_up_all, new_player
from players.models import Player
from scoring.models import Dispute, Game, Hand, OfficialAct, ScoreEvent, Seat, Side
from scoring.selectors import replay_all
from tournaments.models import (
    Entrant,
    Match,
    MatchSeat,
    Round,
    Staff,
    Stage,
    StandingsSnapshot,
    Tournament,
)
from tournaments.read.standings_store import rebuild_standings
from tournaments.sanctions import scope_of

# Held while a model's time of writing is switched off to write the archive's own times.
_times_lock = threading.Lock()

FORMAT = "capicu-event-archive"
VERSION = 1

TOURNAMENT_FIELDS = (
    "name",
    "slug",
    "ruleset_key",
    "overrides",
    "table_size",
    "status",
    "public",
    "time_zone",
    "tiebreak_order",
    "placement_points",
    "bye_policy",
    "include_live",
)
ENTRANT_FIELDS = (
    "seed",
    "name",
    "checked_in",
    "withdrawn",
    "withdrawn_at",
    "disqualified_at",
    "disqualified_reason",
)
STAGE_FIELDS = (
    "order",
    "name",
    "format",
    "settings",
    "status",
    "check_in_required",
    "check_in_opens",
    "check_in_closes",
)
ROUND_FIELDS = ("number", "status", "flags", "published_at")
MATCH_FIELDS = ("table_number", "bye", "slot", "needs_attention", "attention_reason")
SEAT_FIELDS = ("position", *MatchSeat.RESULT_FIELDS, "did_not_play")
GAME_FIELDS = (
    "ruleset_key",
    "overrides",
    "ruleset",
    "label",
    "public",
    "held",
    "status",
    "totals",
    "winner",
    "tallies",
    "hand_count",
    "next_leader",
    "forfeits",
    "revision",
    "started_at",
    "finished_at",
    "last_hand_at",
    "reopened_reason",
)
HAND_FIELDS = (
    "number",
    "version",
    "is_current",
    "ended",
    "domino_by",
    "leader",
    "pips",
    "tiles",
    "lowest_tiles",
    "awards",
    "winners",
    "voided",
    "reason",
    "recorded_at",
)
EVENT_FIELDS = (
    "hand_number",
    "kind",
    "points",
    "note",
    "violation",
    "active",
    "removed_reason",
    "created_at",
)
DISPUTE_FIELDS = ("hand_number", "note", "status", "resolution", "opened_at", "resolved_at")
ACT_FIELDS = ("kind", "subject", "hand_number", "reason", "detail", "at")
# Details of a game's acts that name a row of the same game: kept as its place there.
ACT_REFERENCES = {"dispute": "disputes", "event": "events"}


class ArchiveError(Exception):
    """An archive that cannot be imported, said plainly for the operator."""


# --- export -------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _fields(row, names) -> dict:
    return {name: _plain(getattr(row, name)) for name in names}


def _username(user) -> str | None:
    return user.get_username() if user is not None else None


def export_event(tournament: Tournament) -> dict:
    """The whole event as one archive document (``docs/archive.md``)."""
    entrants = list(
        Entrant.objects.filter(tournament=tournament)
        .select_related("player", "partner")
        .order_by("pk")
    )
    seed_of = {e.pk: e.seed for e in entrants}
    players: dict[int, dict] = {}

    def player_ref(player: Player | None) -> int | None:
        if player is None:
            return None
        if player.pk not in players:
            players[player.pk] = {
                "ref": len(players) + 1,
                "name": player.display_name,
                "club": player.club,
                "country": player.country,
            }
        return players[player.pk]["ref"]

    entrant_docs = [
        {
            **_fields(e, ENTRANT_FIELDS),
            "player": player_ref(e.player),
            "partner": player_ref(e.partner),
        }
        for e in entrants
    ]
    snapshots = {
        s.stage_id: s for s in StandingsSnapshot.objects.filter(stage__tournament=tournament)
    }
    rows = _game_rows(tournament)
    stages = []
    for stage in Stage.objects.filter(tournament=tournament).order_by("order"):
        rounds = []
        for round_ in stage.rounds.order_by("number"):
            tables = []
            matches = (
                round_.matches.select_related("game")
                .prefetch_related("seats")
                .order_by("table_number")
            )
            for match in matches:
                seats = [
                    {**_fields(seat, SEAT_FIELDS), "entrant": seed_of[seat.entrant_id]}
                    for seat in sorted(match.seats.all(), key=lambda s: s.position)
                ]
                game = _export_game(match.game, player_ref, rows) if match.game_id else None
                tables.append({**_fields(match, MATCH_FIELDS), "seats": seats, "game": game})
            rounds.append({**_fields(round_, ROUND_FIELDS), "tables": tables})
        snapshot = snapshots.get(stage.pk)
        stages.append(
            {
                **_fields(stage, STAGE_FIELDS),
                "entrants": sorted(
                    seed_of[pk] for pk in stage.entrants.values_list("pk", flat=True)
                ),
                "rounds": rounds,
                "standings": _standings(snapshot.document, seed_of) if snapshot else None,
            }
        )
    acts = [
        {**_fields(act, ACT_FIELDS), "by": _username(act.actor)}
        for act in OfficialAct.objects.filter(scope=scope_of(tournament))
        .select_related("actor")
        .order_by("at", "pk")
    ]
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "tournament": {**_fields(tournament, TOURNAMENT_FIELDS)},
        "players": list(players.values()),
        "entrants": entrant_docs,
        "stages": stages,
        "acts": acts,
    }


def _standings(document: str, seed_of: dict[int, int]) -> dict:
    """A snapshot document with its entrants named by seed."""
    data = json.loads(document)
    data["lines"] = [[seed_of[line[0]], *line[1:]] for line in data["lines"]]
    if "why" in data:
        data["why"] = {str(seed_of[int(pk)]): why for pk, why in data["why"].items()}
    return data


def _game_rows(tournament: Tournament) -> dict[str, dict[int, list]]:
    """Every row of the event's games, by kind and game, in a query per kind."""
    of_event = {"game__match__round__stage__tournament": tournament}
    queries = {
        "sides": Side.objects.filter(**of_event).order_by("game", "position"),
        "seats": Seat.objects.filter(**of_event).select_related("player").order_by("position"),
        "hands": Hand.objects.filter(**of_event)
        .select_related("recorded_by")
        .order_by("number", "version"),
        "events": ScoreEvent.objects.filter(**of_event)
        .select_related("created_by", "removed_by")
        .order_by("pk"),
        "disputes": Dispute.objects.filter(**of_event)
        .select_related("opened_by", "resolved_by")
        .annotate(photo_count=Count("photos"))
        .order_by("pk"),
        "acts": OfficialAct.objects.filter(**of_event).select_related("actor").order_by("at", "pk"),
    }
    rows: dict[str, dict[int, list]] = {}
    for kind, query in queries.items():
        grouped = rows[kind] = defaultdict(list)
        for row in query:
            grouped[row.game_id].append(row)
    return rows


def _export_game(game: Game, player_ref, rows: dict[str, dict[int, list]]) -> dict:
    sides = {side.pk: side for side in rows["sides"][game.pk]}
    seats = {seat.pk: seat for seat in rows["seats"][game.pk]}
    events = rows["events"][game.pk]
    event_ref = {event.pk: n for n, event in enumerate(events, start=1)}
    disputes = rows["disputes"][game.pk]
    dispute_ref = {dispute.pk: n for n, dispute in enumerate(disputes, start=1)}
    refs = {"disputes": dispute_ref, "events": event_ref}
    acts = []
    for act in rows["acts"][game.pk]:
        row = {**_fields(act, ACT_FIELDS), "by": _username(act.actor)}
        row["detail"] = {
            key: refs[ACT_REFERENCES[key]].get(value, None)
            if key in ACT_REFERENCES and isinstance(value, int)
            else value
            for key, value in act.detail.items()
        }
        acts.append(row)
    return {
        **_fields(game, GAME_FIELDS),
        "sides": [
            {"position": s.position, "name": s.name}
            for s in sorted(sides.values(), key=lambda s: s.position)
        ],
        "seats": [
            {
                "position": seat.position,
                "name": seat.name,
                "side": sides[seat.side_id].name,
                "player": player_ref(seat.player),
                "display_name": seat.display_name,
            }
            for seat in sorted(seats.values(), key=lambda s: s.position)
        ],
        "hands": [
            {**_fields(hand, HAND_FIELDS), "by": _username(hand.recorded_by)}
            for hand in rows["hands"][game.pk]
        ],
        "events": [
            {
                **_fields(event, EVENT_FIELDS),
                "seat": seats[event.seat_id].name,
                "side": sides[event.side_id].name,
                "pair": event_ref.get(event.pair_id),
                "by": _username(event.created_by),
                "removed_by": _username(event.removed_by),
            }
            for event in events
        ],
        "disputes": [
            {
                **_fields(dispute, DISPUTE_FIELDS),
                "photos": dispute.photo_count,
                "by": _username(dispute.opened_by),
                "resolved_by": _username(dispute.resolved_by),
            }
            for dispute in disputes
        ],
        "acts": acts,
    }


def dumps(document: dict) -> str:
    return json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True)


# --- import -------------------------------------------------------------------------

_TYPES = {
    "tournament": dict,
    "players": list,
    "entrants": list,
    "stages": list,
    "acts": list,
}


def _need(data: Any, key: str, kind, where: str) -> Any:
    if not isinstance(data, dict):
        raise ArchiveError(f"{where} must be an object.")
    if key not in data:
        raise ArchiveError(f"{where} has no {key!r}.")
    value = data[key]
    wrong = not isinstance(value, kind) or (isinstance(value, bool) and kind is int)
    if wrong:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ArchiveError(f"{where}.{key} must be of type {names}.")
    return value


def _items(data: dict, key: str, where: str) -> list:
    items = _need(data, key, list, where)
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise ArchiveError(f"{where}.{key}[{n}] must be an object.")
    return items


def _build(model, doc: dict, names, where: str, **links):
    """A row of ``model`` from the document's ``names`` (each required), checked by the
    model's own field rules (types, choices, lengths) before anything is written."""
    values = {name: doc[name] if name in doc else _missing(where, name) for name in names}
    row = model(**values, **links)
    exclude = [f.name for f in model._meta.concrete_fields if f.name not in names]
    for name in names:
        field = model._meta.get_field(name)
        if field.get_internal_type() == "JSONField":
            # An empty list or object is a value here (no winners, no overrides).
            exclude.append(name)
            value = values[name]
            if (value is None and not field.null) or not isinstance(value, dict | list | None):
                raise ArchiveError(f"{where}.{name} must be a JSON object or list.")
    try:
        row.clean_fields(exclude=exclude)
    except ValidationError as error:
        problems = "; ".join(
            f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items()
        )
        raise ArchiveError(f"{where}: {problems}") from error
    return row


def _missing(where: str, name: str):
    raise ArchiveError(f"{where} has no {name!r}.")


def read(text: str | bytes) -> dict:
    """The document in ``text``, checked to be an archive of this format and version."""
    try:
        document = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise ArchiveError(f"This file is not JSON: {error}.") from error
    check(document)
    return document


def check(document) -> None:
    """Refuse a document of another format or version, or without its parts."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ArchiveError(
            f"This file is not a capicu event archive (its format is not {FORMAT!r})."
        )
    if document.get("version") != VERSION:
        raise ArchiveError(
            f"This archive is of version {document.get('version')!r}; this capicu reads "
            f"version {VERSION}."
        )
    for key, kind in _TYPES.items():
        _need(document, key, kind, "the archive")


def import_event(document: dict, *, slug: str | None = None, organizer=None) -> Tournament:
    """Load an archive document as a new event, in one transaction; returns it.

    Its players are matched as registration matches a name for ``organizer``: the same
    name and club is the same player if that organizer may enter them (an unlinked
    player of an event or ladder of theirs, or one who appears nowhere yet; without an
    organizer, only the latter), unless that player is linked to an account (an account
    holder's player is attached to nobody's event without their consent) or already
    stands for another player of the archive; anyone else becomes a new player with no
    account. ``organizer``, if given, is made the event's organizer."""
    if isinstance(document, str | bytes):
        document = read(document)
    check(document)
    info = document["tournament"]
    slug = slug or _need(info, "slug", str, "tournament")
    try:
        validate_slug(slug)
    except ValidationError as error:
        raise ArchiveError(f"{slug!r} is not a valid slug (letters, digits, - and _).") from error
    try:
        with transaction.atomic():
            if Tournament.objects.filter(slug=slug).exists():
                raise ArchiveError(
                    f"An event with the slug {slug!r} exists here: choose another with --slug."
                )
            tournament = _import(document, slug, organizer)
    except IntegrityError as error:
        raise ArchiveError(f"The archive breaks a rule of the database: {error}") from error
    except (TypeError, KeyError, ValueError, AttributeError) as error:
        # A value of the right type that the rules or the standings cannot use (a frozen
        # rule set without its rules, a preset this capicu does not know ...).
        raise ArchiveError(
            f"The archive holds a value this capicu cannot use: {error!r}"
        ) from error
    return tournament


def _import(document: dict, slug: str, organizer) -> Tournament:
    info = dict(document["tournament"], slug=slug)
    tournament = _build(Tournament, info, TOURNAMENT_FIELDS, "tournament", created_by=organizer)
    tournament.save()
    if organizer is not None:
        Staff.objects.create(tournament=tournament, user=organizer, role=Staff.Role.ORGANIZER)
    players = _import_players(_items(document, "players", "the archive"), organizer)

    def player(ref, where):
        if ref is None:
            return None
        if ref not in players:
            raise ArchiveError(f"{where} names player {ref!r}, who is not in the archive.")
        return players[ref]

    entrants: dict[int, Entrant] = {}
    for n, doc in enumerate(_items(document, "entrants", "the archive")):
        where = f"entrants[{n}]"
        row = _build(Entrant, doc, ENTRANT_FIELDS, where, tournament=tournament)
        row.player = player(_need(doc, "player", int, where), where)
        row.partner = player(_need(doc, "partner", (int, type(None)), where), where)
        if row.seed in entrants:
            raise ArchiveError(f"{where}: seed {row.seed} is taken by another entrant.")
        entrants[row.seed] = row
    Entrant.objects.bulk_create(entrants.values())

    def entrant(seed, where):
        if seed not in entrants:
            raise ArchiveError(f"{where} names entrant seed {seed!r}, who is not in the archive.")
        return entrants[seed]

    games: list[int] = []
    for s, stage_doc in enumerate(_items(document, "stages", "the archive")):
        where = f"stages[{s}]"
        stage = _build(Stage, stage_doc, STAGE_FIELDS, where, tournament=tournament)
        stage.save()
        seeds = _need(stage_doc, "entrants", list, where)
        stage.entrants.set([entrant(seed, f"{where}.entrants") for seed in seeds])
        for r, round_doc in enumerate(_items(stage_doc, "rounds", where)):
            here = f"{where}.rounds[{r}]"
            round_ = _build(Round, round_doc, ROUND_FIELDS, here, stage=stage)
            # Written in bulk: saving a published round would send its players' emails.
            Round.objects.bulk_create([round_])
            for t, table in enumerate(_items(round_doc, "tables", here)):
                at = f"{here}.tables[{t}]"
                game_doc = _need(table, "game", (dict, type(None)), at)
                game = _import_game(game_doc, f"{at}.game", player) if game_doc else None
                if game is not None:
                    games.append(game.pk)
                match = _build(Match, table, MATCH_FIELDS, at, round=round_, game=game)
                match.save()
                seats = []
                for n, seat in enumerate(_items(table, "seats", at)):
                    there = f"{at}.seats[{n}]"
                    who = entrant(_need(seat, "entrant", int, there), there)
                    seats.append(
                        _build(
                            MatchSeat,
                            seat,
                            SEAT_FIELDS,
                            there,
                            match=match,
                            round=round_,
                            entrant=who,
                        )
                    )
                MatchSeat.objects.bulk_create(seats)
        _need(stage_doc, "standings", (dict, type(None)), where)
    _import_acts(_items(document, "acts", "the archive"), tournament)
    _check_games(games)
    rebuild_standings(tournament.pk)
    return tournament


def _import_players(people: list[dict], organizer) -> dict[int, Player]:
    wanted = []
    for n, person in enumerate(people):
        where = f"players[{n}]"
        ref = _need(person, "ref", int, where)
        name = _need(person, "name", str, where).strip()
        if not name or len(name) > 120:
            raise ArchiveError(f"{where}.name must be 1 to 120 characters.")
        club = _need(person, "club", str, where)
        country = _need(person, "country", str, where)
        if len(club) > 120 or len(country) > 2:
            raise ArchiveError(f"{where}: the club or the country is too long.")
        wanted.append((ref, name, club, country))
    if len({ref for ref, *_ in wanted}) != len(wanted):
        raise ArchiveError("Two players of the archive share a ref.")
    found: dict[int, Player] = {}
    taken: set[int] = set()
    # Nobody in particular when no organizer is named: only players who appear nowhere.
    by = organizer or AnonymousUser()
    lookups = look_up_all([(name, club) for _, name, club, _ in wanted], by=by)
    for (ref, name, club, country), lookup in zip(wanted, lookups, strict=True):
        same = lookup.same
        if same is not None and same.user_id is None and same.pk not in taken:
            player = same
        else:
            player = new_player(name, club, country=country)
        taken.add(player.pk)
        found[ref] = player
    return found


def _import_game(doc: dict, where: str, player) -> Game:
    game = _build(Game, doc, GAME_FIELDS, where, followed=True)
    game.save()
    sides = {}
    for n, side_doc in enumerate(_items(doc, "sides", where)):
        side = _build(Side, side_doc, ("position", "name"), f"{where}.sides[{n}]", game=game)
        if side.name in sides:
            raise ArchiveError(f"{where}.sides[{n}]: the game has two sides {side.name!r}.")
        sides[side.name] = side
    Side.objects.bulk_create(sides.values())
    seats = {}
    for n, seat_doc in enumerate(_items(doc, "seats", where)):
        at = f"{where}.seats[{n}]"
        side = sides.get(_need(seat_doc, "side", str, at))
        if side is None:
            raise ArchiveError(f"{at} names a side the game does not have.")
        seat = _build(
            Seat, seat_doc, ("position", "name", "display_name"), at, game=game, side=side
        )
        seat.player = player(_need(seat_doc, "player", (int, type(None)), at), at)
        if seat.name in seats:
            raise ArchiveError(f"{at}: the game has two seats {seat.name!r}.")
        seats[seat.name] = seat
    Seat.objects.bulk_create(seats.values())
    hands = [
        _build(Hand, hand_doc, HAND_FIELDS, f"{where}.hands[{n}]", game=game)
        for n, hand_doc in enumerate(_items(doc, "hands", where))
    ]
    hands.sort(key=lambda hand: (hand.number, hand.version))
    _create_keeping_times(Hand, hands, "recorded_at")
    events, pairs = [], []
    for n, event_doc in enumerate(_items(doc, "events", where)):
        at = f"{where}.events[{n}]"
        seat = seats.get(_need(event_doc, "seat", str, at))
        side = sides.get(_need(event_doc, "side", str, at))
        if seat is None or side is None:
            raise ArchiveError(f"{at} names a seat or side the game does not have.")
        events.append(
            _build(ScoreEvent, event_doc, EVENT_FIELDS, at, game=game, seat=seat, side=side)
        )
        pairs.append(_need(event_doc, "pair", (int, type(None)), at))
    _create_keeping_times(ScoreEvent, events, "created_at")
    for event, pair in zip(events, pairs, strict=True):
        if pair is not None:
            if not 1 <= pair <= len(events):
                raise ArchiveError(f"{where}: an event's pair {pair!r} is not one of its events.")
            event.pair = events[pair - 1]
    paired = [event for event in events if event.pair is not None]
    if paired:
        ScoreEvent.objects.bulk_update(paired, ["pair"])
    disputes = []
    for n, dispute_doc in enumerate(_items(doc, "disputes", where)):
        dispute = _build(Dispute, dispute_doc, DISPUTE_FIELDS, f"{where}.disputes[{n}]", game=game)
        disputes.append(dispute)
    _create_keeping_times(Dispute, disputes, "opened_at")
    refs = {"disputes": disputes, "events": events}
    acts = []
    for n, act_doc in enumerate(_items(doc, "acts", where)):
        act = _build(OfficialAct, act_doc, ACT_FIELDS, f"{where}.acts[{n}]", game=game)
        if not isinstance(act.detail, dict):
            raise ArchiveError(f"{where}.acts[{n}].detail must be an object.")
        act.detail = {
            key: _row_of(refs.get(ACT_REFERENCES.get(key)), value)
            for key, value in act.detail.items()
        }
        acts.append(act)
    _create_keeping_times(OfficialAct, acts, "at")
    return game


def _row_of(rows: list | None, value):
    """The id of the row a game act's detail names by its place, or the value as it is."""
    if rows is None or isinstance(value, bool) or not isinstance(value, int):
        return value
    if not 1 <= value <= len(rows):
        raise ArchiveError(f"An act names row {value} of {len(rows)}.")
    return rows[value - 1].pk


def _create_keeping_times(model, rows: list, field: str) -> None:
    """Write ``rows`` with the archive's times in ``field``, which the model would set to
    the time of writing: the field's own default is held off while they are written."""
    if not rows:
        return
    stamp = model._meta.get_field(field)
    with _times_lock:
        stamp.auto_now_add = False
        try:
            model.objects.bulk_create(rows)
        finally:
            stamp.auto_now_add = True


def _import_acts(acts: list[dict], tournament: Tournament) -> None:
    rows = [
        _build(OfficialAct, act, ACT_FIELDS, f"acts[{n}]", scope=scope_of(tournament))
        for n, act in enumerate(acts)
    ]
    _create_keeping_times(OfficialAct, rows, "at")


def _check_games(ids: list[int]) -> None:
    """Refuse games whose hands do not add up to their stored awards, totals or tallies."""
    for start in range(0, len(ids), 500):
        chunk = Game.objects.filter(pk__in=ids[start : start + 500])
        for result in replay_all(chunk.exclude(status=Game.Status.SCHEDULED)):
            if not result.agrees:
                raise ArchiveError(f"The hands do not add up: {result.describe()}")

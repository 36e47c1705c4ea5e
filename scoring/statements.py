"""The SQL the scoring services send for every hand, written out by hand.

Recording a hand is the busiest write capicu makes, so its statements skip the ORM's
per-call query building: the game is locked and read through a plain cursor (with the
ORM's own conversions of each column), and its changes, the new hand and its events are
written with values prepared by each field exactly as ``save()`` prepares them. The
services decide what to write; this module only says it to the database.
"""

from collections.abc import Sequence

from django.db import connection, models
from django.utils import timezone

from scoring.models import Game, Hand, ScoreEvent, Seat


def _prepared(row: models.Model, fields) -> list:
    """A new row's values as ``save()`` writes them (``auto_now_add`` stamped here)."""
    return [field.get_db_prep_save(field.pre_save(row, add=True), connection) for field in fields]


def lock_game(pk: int) -> Game:
    """The game row, locked for the rest of the transaction."""
    return _locked(pk, None)[0]


def lock_game_for(pk: int, user) -> tuple[Game, bool]:
    """The game row, locked, and whether ``user`` referees it: one query answers both, so
    the permission check of a referee's write costs no extra round trip."""
    return _locked(pk, getattr(user, "pk", None))


def _locked(pk: int, user_pk: int | None) -> tuple[Game, bool]:
    # Building the ORM query, or a raw queryset's model, cost more than running it.
    table = Game._meta.db_table
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    fields, converters = _game_columns()
    columns = [", ".join(f"g.{connection.ops.quote_name(field.column)}" for field in fields)]
    params = []
    if user_pk is not None:
        referees = Game.referees.through._meta.db_table
        columns.append(
            f"EXISTS (SELECT 1 FROM {referees} r WHERE r.game_id = g.id "
            "AND r.user_id = %s) AS caller_referees"
        )
        params.append(user_pk)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(columns)} FROM {table} g WHERE g.id = %s{lock}", [*params, pk]
        )
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"No game {pk}.")
    values = list(row[: len(fields)])
    for index, convert in converters:
        values[index] = convert(values[index])
    locked = Game.from_db(connection.alias, [field.attname for field in fields], values)
    return locked, user_pk is not None and bool(row[len(fields)])


def _game_columns() -> tuple[list, list]:
    """The game's columns in model order, and for those that need it the conversion the
    ORM applies to a value read from this database (JSON text, SQLite's times)."""
    key = connection.vendor
    if key not in _GAME_COLUMNS:
        fields = list(Game._meta.concrete_fields)
        converters = []
        for index, field in enumerate(fields):
            expression = field.get_col(Game._meta.db_table)
            steps = connection.ops.get_db_converters(expression) + field.get_db_converters(
                connection
            )
            if steps:
                converters.append((index, _chain(steps, expression)))
        _GAME_COLUMNS[key] = (fields, converters)
    return _GAME_COLUMNS[key]


def _chain(steps, expression):
    def convert(value):
        for step in steps:
            value = step(value, expression, connection)
        return value

    return convert


_GAME_COLUMNS: dict[str, tuple[list, list]] = {}


def update_game(game: Game, fields: Sequence[str]) -> tuple[str, list]:
    """The UPDATE that writes ``fields`` of the locked game (and ``updated_at``).

    The statement ``save(update_fields=...)`` sends, without building the ORM query for
    every hand; each value goes through its field's own preparation, so JSON and times
    are written exactly as the ORM writes them.
    """
    game.updated_at = timezone.now()
    meta = Game._meta
    columns = [meta.get_field(name) for name in (*fields, "updated_at")]
    assignments = ", ".join(f"{connection.ops.quote_name(field.column)} = %s" for field in columns)
    values = [field.get_db_prep_save(getattr(game, field.attname), connection) for field in columns]
    return f"UPDATE {meta.db_table} SET {assignments} WHERE id = %s", [*values, game.pk]


def save_game(game: Game, fields: Sequence[str]) -> None:
    """Write ``fields`` of the locked game (and ``updated_at``) in one UPDATE."""
    with connection.cursor() as cursor:
        cursor.execute(*update_game(game, fields))


def insert_rows(rows: Sequence[models.Model]) -> tuple[str, list]:
    """The INSERT of new rows of one model."""
    meta = type(rows[0])._meta
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    values = [value for row in rows for value in _prepared(row, fields)]
    placeholders = ", ".join([one] * len(rows))
    return f"INSERT INTO {meta.db_table} ({columns}) VALUES {placeholders}", values


def write_hand(game: Game, hand: Hand, events: list[ScoreEvent], fields: Sequence[str]) -> None:
    """Store a new hand, its in-play events and the game's new state in one PostgreSQL
    statement: the inserts as data-modifying CTEs of the game's UPDATE, each event finding
    its seat and side by the seat's name. One round trip for the write every hand makes."""
    hand_sql, params = insert_rows([hand])
    parts = [f"WITH hand AS ({hand_sql} RETURNING id)"]
    if events:
        event_sql, event_params = insert_events_by_seat_name(game, events)
        parts.append(f", events AS ({event_sql})")
        params += event_params
    game.last_hand_at = hand.recorded_at
    update_sql, update_params = update_game(game, fields)
    parts.append(f" {update_sql} RETURNING (SELECT id FROM hand)")
    with connection.cursor() as cursor:
        cursor.execute("".join(parts), params + update_params)
        hand.pk = cursor.fetchone()[0]
    hand._state.adding = False
    hand._state.db = connection.alias


def insert_events_by_seat_name(game: Game, events: list[ScoreEvent]) -> tuple[str, list]:
    """The INSERT of events that name their seat: each row looks up its seat's id and
    side in the seat table, by (game, seat name)."""
    meta = ScoreEvent._meta
    fields = [
        field
        for field in meta.concrete_fields
        if not field.primary_key and field.attname not in ("seat_id", "side_id")
    ]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    seats = Seat._meta.db_table
    lookup = f"(SELECT {{}} FROM {seats} WHERE game_id = %s AND name = %s)"
    row = (
        "("
        + ", ".join(["%s"] * len(fields) + [lookup.format("id"), lookup.format("side_id")])
        + ")"
    )
    params = []
    for event in events:
        params += [*_prepared(event, fields), game.pk, event.seat_name, game.pk, event.seat_name]
    sql = (
        f"INSERT INTO {meta.db_table} ({columns}, seat_id, side_id) "
        f"VALUES {', '.join([row] * len(events))}"
    )
    return sql, params

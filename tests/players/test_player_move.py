"""The player moved from the accounts app to the players app with its rows: a database
holding players, their entries, game seats and claim codes migrates back to before the
move and forward again, and every row and reference is where it was.

It runs on the suite's database, SQLite or PostgreSQL (``DATABASE_URL``): the move is a
table rename either way, and PostgreSQL, the production database, is where it must keep
the data safe."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from players.models import ClaimCode, Player
from scoring.models import Seat
from tests.factories import UserFactory, start_game
from tournaments.models import Entrant, Tournament

pytestmark = [pytest.mark.django_db(transaction=True)]

# The last migration before the move: unapplying what follows it undoes the move.
BEFORE = ("accounts", "0004_preference_emails")
MOVE = ("players", "0004_player")


def migrate(targets):
    """Migrate the test database to ``targets``; the historical apps there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    applied = MigrationRecorder(connection).applied_migrations()
    return executor.loader.project_state(list(applied)).apps


def references(table: str) -> dict[str, str]:
    """Each foreign key column of ``table`` and the table it points at."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return {
        found["columns"][0]: found["foreign_key"][0]
        for found in constraints.values()
        if found["foreign_key"]
    }


def tables() -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def leaves():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def test_players_their_entries_and_seats_survive_the_move_back_and_forth():
    organizer = UserFactory()
    holder = UserFactory()
    game = start_game("cutthroat", 4)
    seated = list(Seat.objects.filter(game=game).order_by("position"))
    ana = seated[0].player
    ana.user = holder
    ana.save(update_fields=["user"])
    tournament = Tournament.objects.create(
        name="Copa", slug="copa", ruleset_key="cutthroat", table_size=4, created_by=organizer
    )
    entrant = Entrant.objects.create(
        tournament=tournament, name=ana.display_name, player=ana, seed=1
    )
    ClaimCode.objects.create(player=seated[1].player, digest="d" * 64, created_by=organizer)
    kept = {
        p.pk: (p.display_name, p.club, p.user_id, p.name_key, p.homonym)
        for p in Player.objects.all()
    }
    seats = {seat.pk: seat.player_id for seat in seated}
    content_type = ContentType.objects.get_for_model(Player).pk

    old = migrate([BEFORE])

    assert "accounts_player" in tables() and "players_player" not in tables()
    OldPlayer = old.get_model("accounts", "Player")
    assert {
        p.pk: (p.display_name, p.club, p.user_id, p.name_key, p.homonym)
        for p in OldPlayer.objects.all()
    } == kept
    assert references("tournaments_entrant")["player_id"] == "accounts_player"
    assert references("scoring_seat")["player_id"] == "accounts_player"
    assert references("players_claimcode")["player_id"] == "accounts_player"
    OldEntrant = old.get_model("tournaments", "Entrant")
    assert OldEntrant.objects.get(pk=entrant.pk).player.display_name == ana.display_name
    OldSeat = old.get_model("scoring", "Seat")
    assert {s.pk: s.player_id for s in OldSeat.objects.filter(pk__in=seats)} == seats
    assert old.get_model("players", "ClaimCode").objects.get().player_id == seated[1].player_id
    OldContentType = old.get_model("contenttypes", "ContentType")
    assert OldContentType.objects.get(app_label="accounts", model="player").pk == content_type
    # A player written in the old layout moves too, and numbering goes on after it.
    late = OldPlayer.objects.create(display_name="Late Comer", name_key="late comer")
    OldEntrant.objects.create(tournament_id=tournament.pk, name="Late Comer", player=late, seed=2)

    migrate(leaves())

    assert "players_player" in tables() and "accounts_player" not in tables()
    assert references("tournaments_entrant")["player_id"] == "players_player"
    assert references("tournaments_entrant")["partner_id"] == "players_player"
    assert references("scoring_seat")["player_id"] == "players_player"
    assert references("players_claimcode")["player_id"] == "players_player"
    assert references("circuit_rating")["player_id"] == "players_player"
    moved = {
        p.pk: (p.display_name, p.club, p.user_id, p.name_key, p.homonym)
        for p in Player.objects.exclude(pk=late.pk)
    }
    assert moved == kept
    assert Entrant.objects.get(pk=entrant.pk).player == ana
    assert Entrant.objects.get(player_id=late.pk).player.display_name == "Late Comer"
    assert {s.pk: s.player_id for s in Seat.objects.filter(pk__in=seats)} == seats
    assert ClaimCode.objects.get().player_id == seated[1].player_id
    assert Player.objects.get(user=holder) == ana
    ContentType.objects.clear_cache()
    assert ContentType.objects.get_for_model(Player).pk == content_type
    newest = Player.objects.create(display_name="After The Move")
    assert newest.pk > late.pk and newest.name_key == "after the move"
    with pytest.raises(IntegrityError):  # the database still enforces the references
        Seat.objects.filter(pk=seated[2].pk).update(player_id=newest.pk + 1000)

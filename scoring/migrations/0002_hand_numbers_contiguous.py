"""Hand numbers are contiguous per game: the database refuses hand n without hand n - 1.

Django cannot express a constraint across rows, so a trigger does it, on PostgreSQL
and SQLite alike. Hands are never deleted one by one (corrections and voids are new
versions), so guarding inserts keeps the numbering whole.
"""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION scoring_hand_contiguous() RETURNS trigger AS $$
BEGIN
    IF NEW.number > 1 AND NOT EXISTS (
        SELECT 1 FROM scoring_hand WHERE game_id = NEW.game_id AND number = NEW.number - 1
    ) THEN
        RAISE EXCEPTION 'hand % of game % has no hand % before it',
            NEW.number, NEW.game_id, NEW.number - 1 USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER scoring_hand_contiguous BEFORE INSERT OR UPDATE OF number, game_id
    ON scoring_hand FOR EACH ROW EXECUTE FUNCTION scoring_hand_contiguous();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS scoring_hand_contiguous ON scoring_hand;
DROP FUNCTION IF EXISTS scoring_hand_contiguous();
"""

SQLITE_UP = [
    """
    CREATE TRIGGER scoring_hand_contiguous_insert BEFORE INSERT ON scoring_hand
    WHEN NEW.number > 1 AND NOT EXISTS (
        SELECT 1 FROM scoring_hand WHERE game_id = NEW.game_id AND number = NEW.number - 1
    )
    BEGIN
        SELECT RAISE(ABORT, 'CHECK constraint failed: hand numbers must be contiguous');
    END;
    """,
    """
    CREATE TRIGGER scoring_hand_contiguous_update BEFORE UPDATE OF number, game_id
    ON scoring_hand
    WHEN NEW.number > 1 AND NOT EXISTS (
        SELECT 1 FROM scoring_hand WHERE game_id = NEW.game_id AND number = NEW.number - 1
    )
    BEGIN
        SELECT RAISE(ABORT, 'CHECK constraint failed: hand numbers must be contiguous');
    END;
    """,
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS scoring_hand_contiguous_insert;",
    "DROP TRIGGER IF EXISTS scoring_hand_contiguous_update;",
]


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_UP:
            schema_editor.execute(statement)


def uninstall(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_DOWN:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0001_initial")]

    operations = [migrations.RunPython(install, uninstall)]

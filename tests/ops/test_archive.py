"""The event archive: export, import into an empty database, export again gives the same
document; a malformed or foreign archive imports nothing."""

import copy
import json
import os
import random
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from players.models import Player
from scoring.models import Game, Hand
from scoring.officiating import deduct_points, forfeit_seat, open_dispute
from scoring.services import correct_hand
from tests.factories import UserFactory, client_for, cutthroat_round, event_referee
from tests.ops.test_backup import ROOT, _fresh_database
from tournaments.archive import ArchiveError, dumps, export_event, import_event
from tournaments.demo import play
from tournaments.models import Tournament
from tournaments.read.standings_store import rebuild_standings

pytestmark = pytest.mark.django_db(transaction=True)


def played_event():
    """Eight players at two tables: one game played out with a corrected hand and a
    dispute, the other with a deduction and a seat's forfeit."""
    organizer = UserFactory(username="organizer")
    tournament, _stage, round_ = cutthroat_round(organizer, players=8)
    first, second = (m.game for m in round_.matches.order_by("table_number"))
    rng = random.Random(7)
    play(first, organizer, rng)
    hand = Hand.objects.get(game=first, number=1)
    correct_hand(
        first, 1, by=organizer, reason="Pips misread", expected_version=hand.version,
        ended=hand.ended, domino_by=hand.domino_by or None, pips=hand.pips,
        leader=hand.leader or None,
    )  # fmt: skip
    open_dispute(first, by=organizer, note="Seat B says the block was miscounted", hand=1)
    play(second, organizer, rng, hands=2)
    deduct_points(second, seat="B", points=10, reason="Slow play, warned twice", by=organizer)
    forfeit_seat(second, "C", "Left the hall", organizer)
    rebuild_standings(tournament.pk)
    tournament.refresh_from_db()
    return tournament, organizer


def comparable(document: dict) -> dict:
    """The document without what differs by installation: when it was written, the
    slug, and the accounts (which do not travel)."""
    document = copy.deepcopy(document)
    document.pop("exported_at")
    document["tournament"].pop("slug")

    def scrub(value):
        if isinstance(value, dict):
            return {
                key: None if key in {"by", "removed_by", "resolved_by"} else scrub(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [scrub(item) for item in value]
        return value

    return scrub(document)


def test_an_event_exported_imported_into_an_empty_database_and_exported_again_is_the_same(
    tmp_path,
):
    tournament, _organizer = played_event()
    source = export_event(tournament)
    games = [t["game"] for s in source["stages"] for r in s["rounds"] for t in r["tables"]]
    assert any(len(g["hands"]) > g["hand_count"] for g in games)  # a correction's versions
    assert any(g["disputes"] for g in games) and any(g["events"] for g in games)
    assert any(a["kind"] == "forfeit" for g in games for a in g["acts"])
    assert source["stages"][0]["standings"]["lines"]
    path = tmp_path / "event.json"
    path.write_text(dumps(source), encoding="utf-8")

    url, drop = _fresh_database(tmp_path)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings"}
    again = tmp_path / "again.json"
    try:
        for command in (
            ["migrate", "--noinput", "-v0"],
            ["import_event", str(path), "--slug", "copa-importada"],
            ["export_event", "copa-importada", "-o", str(again)],
            ["verify_games"],
        ):
            done = subprocess.run(
                [sys.executable, "manage.py", *command],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            assert done.returncode == 0, (command, done.stderr)
    finally:
        drop()
    imported = json.loads(again.read_text(encoding="utf-8"))
    assert imported["tournament"]["slug"] == "copa-importada"
    # The standings there were computed there, from the imported games.
    assert comparable(imported) == comparable(json.loads(dumps(source)))


def test_imported_players_match_by_name_but_never_an_account_holders_player():
    tournament, organizer = played_event()
    document = json.loads(dumps(export_event(tournament)))
    names = [p["name"] for p in document["players"]]
    linked = Player.objects.get(display_name=names[0])
    linked.user = UserFactory(username="p0-holder")
    linked.save()
    players_before = Player.objects.count()

    copy_ = import_event(document, slug="copa-b", organizer=organizer)

    entrants = {e.player.display_name: e.player for e in copy_.entrants.select_related("player")}
    assert entrants[names[0]].pk != linked.pk and entrants[names[0]].user is None
    assert entrants[names[1]] == Player.objects.get(display_name=names[1], homonym=0)
    assert Player.objects.count() == players_before + 1
    assert copy_.staff.filter(user=organizer, role="organizer").exists()
    again = export_event(copy_)
    assert again["stages"][0]["standings"] == document["stages"][0]["standings"]


def test_imported_players_match_only_those_the_importing_organizer_may_enter():
    """The registration rule: an unlinked player of another organizer's event is not
    theirs to enter, so the import makes a new player of the name; without an organizer
    only a player who appears nowhere yet is matched."""
    tournament, organizer = played_event()
    document = json.loads(dumps(export_event(tournament)))
    names = [p["name"] for p in document["players"]]
    source = {p.display_name: p.pk for p in Player.objects.filter(display_name__in=names)}
    newcomer = Player.objects.create(display_name="Solo Newcomer")
    document["players"][0]["name"] = "Solo Newcomer"

    def imported(slug, by):
        before = Player.objects.count()
        event = import_event(document, slug=slug, organizer=by)
        players = {
            e.player.display_name: e.player.pk for e in event.entrants.select_related("player")
        }
        return players, Player.objects.count() - before

    other = UserFactory(username="other-organizer")
    players, made = imported("copa-other", other)
    assert players["Solo Newcomer"] == newcomer.pk  # appears nowhere yet: anyone may enter
    assert all(players[name] != source[name] for name in names[1:])
    assert made == len(names) - 1
    # Now the newcomer plays in the other organizer's event: an import with no organizer
    # may match nobody here.
    players, made = imported("copa-operator", None)
    assert newcomer.pk not in players.values() and made == len(names)
    # The source's organizer may enter the players of their own event.
    document["players"][0]["name"] = names[0]
    players, made = imported("copa-mine", organizer)
    assert players == source and made == 0


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.update(format="another-tool"), "not a capicu event archive"),
        (lambda d: d.pop("stages"), "has no 'stages'"),
        (lambda d: d["entrants"][0].update(seed="first"), "entrants[0]"),
        (lambda d: d["entrants"][0].pop("player"), "entrants[0] has no 'player'"),
        (lambda d: d.update(players="nobody"), "players must be of type list"),
        (
            lambda d: d["stages"][0]["rounds"][0]["tables"][0]["game"]["hands"][-1].update(
                awards={"A": 5000, "B": 0, "C": 0, "D": 0}
            ),
            "do not add up",
        ),
        (
            lambda d: d["stages"][0]["rounds"][0]["tables"][0]["seats"][0].update(entrant=99),
            "seed 99",
        ),
        (
            lambda d: d["stages"][0]["rounds"][0]["tables"][0]["game"].update(ruleset={}),
            "cannot use",
        ),
    ],
)
def test_a_malformed_or_foreign_archive_imports_nothing(spoil, message):
    tournament, _organizer = played_event()
    document = json.loads(dumps(export_event(tournament)))
    spoil(document)
    counts = (Tournament.objects.count(), Player.objects.count(), Game.objects.count())
    with pytest.raises(ArchiveError) as refused:
        import_event(document, slug="spoiled")
    assert message in str(refused.value)
    assert (Tournament.objects.count(), Player.objects.count(), Game.objects.count()) == counts


def test_import_refuses_a_slug_that_exists_unless_given_another(tmp_path):
    tournament, _organizer = played_event()
    path = tmp_path / "event.json"
    call_command("export_event", tournament.slug, output=path)
    with pytest.raises(CommandError, match="exists here: choose another with --slug"):
        call_command("import_event", str(path))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CommandError, match="not JSON"):
        call_command("import_event", str(tmp_path / "bad.json"))
    call_command("import_event", str(path), slug="second-copy")
    assert Tournament.objects.filter(slug="second-copy").exists()


def test_the_archive_api_is_for_the_events_organizers():
    tournament, organizer = played_event()
    url = f"/api/v1/tournaments/{tournament.slug}/archive/"
    answer = client_for(organizer).get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["format"] == "capicu-event-archive"
    assert answer.json()["tournament"]["slug"] == tournament.slug
    referee = event_referee(tournament)
    assert client_for(referee).get(url).status_code == 403

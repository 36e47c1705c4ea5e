"""The Spanish catalogue is complete, compiled, and the pages speak it."""

import random
import re
import shutil
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command

from accounts.models import Preference
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments.demo import play
from tournaments.read.standings_store import rebuild_standings

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "es" / "LC_MESSAGES"
# The folders whose marked strings make the catalogue (what `make messages` reads).
COPIED_FOR_EXTRACTION = {
    "accounts",
    "circuit",
    "config",
    "domain",
    "locale",
    "players",
    "scoring",
    "templates",
    "tournaments",
}


def entries(po):
    return [e for e in po if not e.obsolete]


def test_every_spanish_entry_is_translated_and_not_fuzzy():
    po = polib.pofile(str(CATALOGUE / "django.po"))
    empty = [
        e.msgid
        for e in entries(po)
        if (not e.msgstr and not e.msgid_plural)
        or (e.msgid_plural and not all(e.msgstr_plural.values()))
    ]
    assert empty == []
    assert [e.msgid for e in entries(po) if "fuzzy" in e.flags] == []
    assert len(entries(po)) > 300


PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*(?:![rs])?(?::[^{}]*)?\}")


def test_every_translation_keeps_the_placeholders_of_its_source():
    po = polib.pofile(str(CATALOGUE / "django.po"))
    wrong = []
    for e in entries(po):
        sources = [e.msgid_plural, e.msgid] if e.msgid_plural else [e.msgid]
        targets = list(e.msgstr_plural.values()) if e.msgid_plural else [e.msgstr]
        wanted = sorted(
            set(PLACEHOLDER.findall(sources[0])) | set(PLACEHOLDER.findall(sources[-1]))
        )
        for target in targets:
            if sorted(set(PLACEHOLDER.findall(target))) != wanted:
                wrong.append((e.msgid, target))
    assert wrong == []


def test_the_compiled_catalogue_matches_its_source():
    # A message is its context and its text ("Declined" as a ladder request's answer
    # is a message of its own).
    source = {
        (e.msgctxt, e.msgid): e.msgstr or e.msgstr_plural
        for e in entries(polib.pofile(str(CATALOGUE / "django.po")))
    }
    compiled = {
        (e.msgctxt, e.msgid): e.msgstr or e.msgstr_plural
        for e in polib.mofile(str(CATALOGUE / "django.mo"))
        if e.msgid
    }
    assert compiled == source, "recompile: see README, 'Translations'"


@pytest.mark.skipif(
    shutil.which("xgettext") is None, reason="needs GNU gettext (apt-get install gettext)"
)
def test_no_string_in_the_code_or_templates_is_left_untranslated(tmp_path, settings, monkeypatch):
    """Extract every marked string again into a copy of the project: none may be new.

    makemessages writes to the ``locale`` folder beside the files it reads, so it runs in a
    copy of the sources; the project's own catalogue is never touched by the test.
    """
    base = Path(settings.BASE_DIR)
    for entry in base.iterdir():
        if entry.name in COPIED_FOR_EXTRACTION and entry.is_dir():
            shutil.copytree(entry, tmp_path / entry.name, ignore=shutil.ignore_patterns("*.pyc"))
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    monkeypatch.chdir(tmp_path)
    call_command("makemessages", locale=["es"], no_location=True, verbosity=0)
    po = polib.pofile(str(tmp_path / "locale" / "es" / "LC_MESSAGES" / "django.po"))
    untranslated = [e.msgid for e in entries(po) if not (e.msgstr or any(e.msgstr_plural.values()))]
    fuzzy = [e.msgid for e in entries(po) if "fuzzy" in e.flags]
    assert untranslated == [] and fuzzy == []
    assert len(entries(po)) > 300  # the extraction found the project's strings


@pytest.mark.django_db
def test_pages_follow_the_browser_language(client):
    organizer = UserFactory(username="organizer")
    tournament, round_ = make_event(organizer, slug="copa")
    play(round_.matches.order_by("table_number").first().game, organizer, random.Random(3))
    rebuild_standings(tournament.pk)
    page = client.get("/t/copa/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Clasificación" in page and "Rondas y mesas" in page
    assert "4 jugadores, cada uno por su cuenta a 250" in page
    assert "el jugador con menos tantos gana el tranque" in page
    assert "por delante en puntos de partida: 1 a 0" in page  # the reasons, too
    english = client.get("/t/copa/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Standings" in english and "Clasificación" not in english


@pytest.mark.django_db
def test_a_signed_in_user_keeps_their_language_on_any_device(client):
    user = UserFactory(username="ana", password="correct-horse-battery")
    client.force_login(user)
    response = client.post("/accounts/language/", {"language": "es", "next": "/referee/"})
    assert response.status_code == 302 and response["Location"] == "/referee/"
    assert Preference.objects.get(user=user).language == "es"
    assert "Mis mesas" in client.get("/referee/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    other = client_class_login(user)
    assert "Mis mesas" in other.get("/referee/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    refused = client.post(
        "/accounts/language/", {"language": "es", "next": "https://evil.example/"}
    )
    assert refused["Location"] == "/"


def client_class_login(user):
    """A second device: a new browser that logs in with a password."""
    from django.http import HttpRequest
    from django.test import Client

    device = Client()
    # The login lock-out (django-axes) keys on the request, so authenticate needs one.
    assert device.login(
        request=HttpRequest(), username=user.username, password="correct-horse-battery"
    )
    return device


@pytest.fixture
def refereed_game(client):
    """A four-player Cutthroat game (Ana, Beto, Cira, Dino) whose referee is logged in."""
    from scoring.services import start_game
    from tests.factories import PlayerFactory

    referee = UserFactory(username="arbitro")
    players = [PlayerFactory(display_name=n) for n in ("Ana", "Beto", "Cira", "Dino")]
    game = start_game(ruleset_key="cutthroat", seats=players, referees=[referee])
    client.force_login(referee)
    return game


@pytest.mark.django_db
def test_referee_form_errors_are_in_spanish(client, refereed_game):
    game = refereed_game
    response = client.post(
        f"/games/{game.pk}/score/hand/",
        {"number": 1, "ending": "block", "pips_A": "3"},
        HTTP_ACCEPT_LANGUAGE="es",
    )
    body = response.content.decode()
    assert "Anote los tantos que quedan en la mano de Beto" in body
    assert "Tranque" in body and "¿Cómo terminó la mano 1?" in body


@pytest.mark.django_db
def test_service_refusals_are_translated_in_the_api_and_on_pages(client, refereed_game):
    game = refereed_game
    body = {"number": 1, "ended": "block", "pips": {"A": 99, "B": 1, "C": 2, "D": 3}}
    english = client.post(f"/api/v1/games/{game.pk}/hands/", body, content_type="application/json")
    assert "Seat A cannot hold 99 pips" in english.json()["detail"]
    spanish = client.post(
        f"/api/v1/games/{game.pk}/hands/",
        body,
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert "El asiento A no puede tener 99 tantos" in spanish.json()["detail"]
    page = client.post(
        f"/games/{game.pk}/score/hand/",
        {
            "number": 1,
            "ending": "block",
            "pips_A": "99",
            "pips_B": "1",
            "pips_C": "2",
            "pips_D": "3",
        },
        HTTP_ACCEPT_LANGUAGE="es",
    ).content.decode()
    assert "Ana no puede tener 99 tantos" in page  # the seat letter becomes the player's name


@pytest.mark.django_db
def test_error_pages_speak_the_readers_language(client):
    assert "No encontrado" in client.get("/t/nope/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Not found" in client.get("/t/nope/").content.decode()

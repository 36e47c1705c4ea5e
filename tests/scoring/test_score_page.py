"""The referee's scoring page as the phone's outbox uses it: outcomes, keys, void, leaders."""

import json
import re

import pytest

from scoring.models import Game, Hand, ScoreEvent
from scoring.services import record_hand, start_game
from scoring.views import OUTCOME_HEADER
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def referee():
    return UserFactory(username="referee")


def a_game(referee, ruleset_key="cutthroat") -> Game:
    # One club per rule set: a test may seat the same four names in games of several.
    players = [
        PlayerFactory(display_name=n, club=f"Club {ruleset_key}")
        for n in ("Ana", "Beto", "Cira", "Dino")
    ]
    return start_game(ruleset_key=ruleset_key, seats=players, referees=[referee], label="Mesa")


def in_play_buttons(page: str) -> list[int]:
    return sorted({int(v) for v in re.findall(r'name="points" value="(\d+)" data-label', page)})


def test_in_play_buttons_reach_the_most_the_ends_can_show(client, referee):
    client.force_login(referee)
    one_set = client.get(f"/games/{a_game(referee).pk}/score/").content.decode()
    two_sets = client.get(f"/games/{a_game(referee, 'two_box').pk}/score/").content.decode()
    assert in_play_buttons(one_set) == [5, 10, 15, 20, 25, 30, 35]
    assert in_play_buttons(two_sets) == [5, 10, 15, 20, 25, 30, 35, 40]
    assert 'data-most="40"' in two_sets and 'data-most="35"' in one_set
    dcs = client.get(f"/games/{a_game(referee, 'dcs').pk}/score/").content.decode()
    assert in_play_buttons(dcs) == [] and "data-ends" not in dcs  # DCS scores nothing in play


def test_a_write_says_whether_it_was_saved_or_refused(client, referee):
    game = a_game(referee)
    client.force_login(referee)
    url = f"/games/{game.pk}/score/event/"
    saved = client.post(url, {"seat": "B", "kind": "in_play", "points": "40", "hand": 1}, **HTMX)
    assert saved.status_code == 200 and saved[OUTCOME_HEADER] == "refused"  # 40 > 35
    assert "No play can score 40" in saved.content.decode()
    ok = client.post(
        url, {"seat": "B", "kind": "in_play", "points": "35", "hand": 1, "key": "a"}, **HTMX
    )
    assert ok[OUTCOME_HEADER] == "saved"
    assert 'data-notice="Beto +35."' in ok.content.decode()
    hand = {"number": 2, "ending": "A", "pips_B": "1", "pips_C": "1", "pips_D": "1"}
    wrong = client.post(f"/games/{game.pk}/score/hand/", hand, **HTMX)
    assert wrong[OUTCOME_HEADER] == "refused"  # hand 2 before hand 1
    missing = client.post(
        f"/games/{game.pk}/score/hand/", hand | {"number": 1, "pips_D": ""}, **HTMX
    )
    assert missing[OUTCOME_HEADER] == "invalid"  # a field to fix, shown beside it
    assert "Give the pips left in Dino" in missing.content.decode()
    assert ScoreEvent.objects.filter(game=game).count() == 1 and not Hand.objects.exists()


def test_an_undo_sent_twice_undoes_once(client, referee):
    game = a_game(referee)
    client.force_login(referee)
    for key, points in (("k1", 10), ("k2", 10)):
        client.post(
            f"/games/{game.pk}/score/event/",
            {"seat": "A", "kind": "in_play", "points": points, "hand": 1, "key": key},
            **HTMX,
        )
    first = ScoreEvent.objects.filter(game=game).order_by("pk").first()
    url = f"/games/{game.pk}/score/undo/{first.pk}/"
    assert client.post(url, {"key": "u1"}, **HTMX)[OUTCOME_HEADER] == "saved"
    again = client.post(url, {"key": "u1"}, **HTMX)
    assert again[OUTCOME_HEADER] == "saved"
    assert "Already undone; nothing was undone twice." in again.content.decode()
    assert Game.objects.get(pk=game.pk).total_of("A") == 10


def test_a_hand_is_voided_from_the_page_with_its_reason_once(client, referee):
    game = a_game(referee)
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 5, "C": 5, "D": 5},
    )
    client.force_login(referee)
    url = f"/games/{game.pk}/score/hands/1/void/"
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert f'action="{url}"' in page
    no_reason = client.post(url, {"reason": " ", "key": "v"}, **HTMX)
    assert no_reason[OUTCOME_HEADER] == "refused"
    assert "Say why the hand is being voided." in no_reason.content.decode()
    assert client.post(url, {"reason": "Misdeal", "key": "v"}, **HTMX)[OUTCOME_HEADER] == "saved"
    repeat = client.post(url, {"reason": "Misdeal", "key": "v"}, **HTMX)
    assert "Already voided" in repeat.content.decode()
    other_key = client.post(url, {"reason": "Misdeal", "key": "w"}, **HTMX)
    assert other_key[OUTCOME_HEADER] == "refused"  # already void: said, not a crash
    assert client.post(f"/games/{game.pk}/score/hands/9/void/", {"reason": "x"}).status_code == 400
    current = Hand.objects.get(game=game, is_current=True)
    assert current.voided and current.reason == "Misdeal" and current.version == 2
    plain = client.post(f"/games/{game.pk}/score/hands/1/void/", {"reason": "again"})
    assert plain.status_code == 400  # without JavaScript: the page, with the refusal


def test_only_the_games_referees_void_its_hands(client, referee):
    game = a_game(referee)
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 5, "C": 5, "D": 5},
    )
    client.force_login(UserFactory(username="stranger"))
    assert client.post(f"/games/{game.pk}/score/hands/1/void/", {"reason": "x"}).status_code == 403
    assert not Hand.objects.get(game=game, is_current=True).voided


def led_by(page: str) -> str:
    hidden = re.search(r'<input type="hidden" name="leader"(?: value="(\w?)")?', page)
    if hidden:  # the leader question asks it: its answer fills the hand's "Led by"
        return hidden.group(1) or ""
    select = re.search(r'<select name="leader".*?</select>', page, re.S).group(0)
    found = re.search(r'<option value="(\w?)" selected>', select)
    return found.group(1) if found else ""


def test_led_by_follows_the_rotation_even_after_a_hand_without_it(client, referee):
    game = a_game(referee, "partners")
    client.force_login(referee)
    url = f"/games/{game.pk}/score/"
    assert led_by(client.get(url).content.decode()) == ""  # who holds the double six: asked
    pips = {"A": 0, "B": 5, "C": 5, "D": 5}
    record_hand(game, by=referee, number=1, ended="domino", domino_by="A", pips=pips, leader="C")
    assert led_by(client.get(url).content.decode()) == "D"
    # Hand 2 recorded through the API without a leader: the engine takes D; then A.
    record_hand(game, by=referee, number=2, ended="domino", domino_by="A", pips=pips)
    assert led_by(client.get(url).content.decode()) == "A"
    Game.objects.filter(pk=game.pk).update(next_leader="")  # a leader nobody noted
    assert led_by(client.get(url).content.decode()) == "A"  # from hand 2's leader, D


def test_led_by_is_the_last_winner_where_the_winner_leads(client, referee):
    game = a_game(referee, "cutthroat")
    record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="C",
        pips={"A": 5, "B": 5, "C": 0, "D": 5},
    )
    client.force_login(referee)
    assert led_by(client.get(f"/games/{game.pk}/score/").content.decode()) == "C"


def test_the_phone_script_gets_its_words_in_the_pages_language(client, referee):
    game = a_game(referee)
    client.force_login(referee)
    page = client.get(f"/games/{game.pk}/score/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    found = re.search(
        r'<script id="referee-words" type="application/json">(.*?)</script>', page, re.S
    )
    words = json.loads(found.group(1))
    assert words["ends_not_five"] == "no anota: no es múltiplo de 5"
    assert "{count}" in words["waiting_many"] and "{what}" in words["refused"]
    assert "Pulse «{button}» otra vez" in page  # the connection banner's words, in Spanish
    assert "{% include" not in page and "<script>" not in page  # no inline script


def test_a_correction_sent_twice_with_its_key_is_made_once(client, referee):
    game = a_game(referee)
    pips = {"A": 0, "B": 5, "C": 5, "D": 5}
    record_hand(game, by=referee, number=1, ended="domino", domino_by="A", pips=pips)
    client.force_login(referee)
    url = f"/games/{game.pk}/score/hands/1/"
    data = {
        "number": 1,
        "idempotency_key": "c-1",
        "expected_version": 1,
        "ending": "A",
        "pips_B": "5",
        "pips_C": "5",
        "pips_D": "20",
        "reason": "Dino had 20",
    }
    first = client.post(url, data, **HTMX)
    assert first[OUTCOME_HEADER] == "saved" and 'id="panel"' in first.content.decode()
    again = client.post(url, data, **HTMX)
    assert again[OUTCOME_HEADER] == "saved"
    assert "Hand 1 was already corrected; it was not done twice." in again.content.decode()
    assert Hand.objects.filter(game=game, number=1).count() == 2  # versions 1 and 2 only
    stale = client.post(url, data | {"idempotency_key": "c-2"}, **HTMX)
    assert stale[OUTCOME_HEADER] == "refused" and stale.status_code == 200
    assert "changed meanwhile" in stale.content.decode()
    no_reason = client.post(url, data | {"idempotency_key": "c-3", "reason": ""}, **HTMX)
    assert no_reason[OUTCOME_HEADER] == "invalid"
    assert client.post(url, data | {"reason": ""}).status_code == 400  # without JavaScript


def test_the_service_worker_is_served_from_the_root_and_never_stale(client, referee):
    response = client.get("/referee-sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    body = response.content.decode()
    assert 'request.method !== "GET"' in body  # writes are left to the page's outbox
    game = a_game(referee)
    client.force_login(referee)
    assert 'data-worker="/referee-sw.js"' in client.get(f"/games/{game.pk}/score/").content.decode()

"""The players' API: search, a player's events, merges and claim codes, self-registration,
the partner's answer, approvals, self check-in, and the paste preview and choices."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from players import registration
from players.models import Application, ClaimCode, IdentityAct, Player, PlayerMerge
from tests.factories import SuperuserFactory, UserFactory, client_for
from tests.players.conftest import event
from tests.test_pages import make_event
from tournaments import services
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db

# An event of mallory's own, as anyone signed in may make.
MINE = {"name": "Mallory Open", "slug": "mal", "ruleset": "cutthroat", "table_size": 4}


def test_search_and_a_players_events_with_placing_and_games(organizer):
    tournament, round_ = make_event(organizer, slug="copa", players=4)
    import random

    from scoring.models import Game
    from tournaments.demo import play

    game = Game.objects.get(match__round=round_)
    play(game, organizer, random.Random(1))
    from tournaments.read.standings_store import rebuild_standings

    rebuild_standings(tournament.pk)
    answer = client_for(None).get("/api/v1/players/?search=player 0")
    assert answer.status_code == 200 and answer.json()["count"] == 4
    player = Player.objects.get(display_name="Player 01")
    body = client_for(None).get(f"/api/v1/players/{player.pk}/").json()
    assert body["name"] == "Player 01" and body["games"] == 1
    [line] = body["events"]
    assert line["tournament"] == "copa" and line["games"] == 1
    assert 1 <= line["placing"] <= 4 and line["of"] == 4
    assert client_for(None).get("/api/v1/players/999999/").status_code == 404


def test_private_events_are_left_out_for_strangers(organizer):
    make_event(organizer, slug="private", players=4, public=False)
    player = Player.objects.get(display_name="Player 01")
    assert client_for(None).get(f"/api/v1/players/{player.pk}/").json()["events"] == []
    assert len(client_for(organizer).get(f"/api/v1/players/{player.pk}/").json()["events"]) == 1


def test_merge_and_claim_code_through_the_api(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    services.register_entrants(
        event(organizer, slug="two"), by=organizer, text="Ana Riviera",
        choices={"ana riviera|": 0},
    )  # fmt: skip
    ana, other = Player.objects.order_by("pk")
    stranger = client_for(UserFactory())
    assert stranger.post(f"/api/v1/players/{ana.pk}/merge/", {"other": other.pk}).status_code == 403
    assert client_for(None).post(f"/api/v1/players/{ana.pk}/merge/", {}).status_code == 401
    answer = client_for(organizer).post(f"/api/v1/players/{ana.pk}/merge/", {"other": other.pk})
    assert answer.status_code == 200 and len(answer.json()["events"]) == 2
    assert (
        client_for(organizer).post(f"/api/v1/players/{ana.pk}/merge/", {"other": "x"}).status_code
        == 400
    )

    code = client_for(organizer).post(f"/api/v1/players/{ana.pk}/claim-code/")
    assert code.status_code == 201
    me = UserFactory(username="ana")
    linked = client_for(me).post("/api/v1/account/claim/", {"code": code.json()["code"]})
    assert linked.status_code == 200 and linked.json()["linked"] is True
    wrong = client_for(UserFactory()).post("/api/v1/account/claim/", {"code": "NOPE"})
    assert wrong.status_code == 400 and "code" in wrong.json()["errors"]


@override_settings(CLAIM_CODE_TRIES=2)
def test_the_api_answers_429_after_too_many_wrong_claim_codes(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    code = client_for(organizer).post(f"/api/v1/players/{ana.pk}/claim-code/").json()["code"]
    guesser = client_for(UserFactory())
    for wrong in ("AAAAAAAAAA", "BBBBBBBBBB"):
        assert guesser.post("/api/v1/account/claim/", {"code": wrong}).status_code == 400
    refused = guesser.post("/api/v1/account/claim/", {"code": code})
    assert refused.status_code == 429 and refused["Retry-After"] == "3600"
    assert refused.json()["errors"]["code"] == [
        "Too many wrong claim codes from this account; try again in an hour."
    ]
    assert Player.objects.get().user is None


def test_a_superuser_merges_any_two_players(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana")
    services.register_entrants(event(organizer, slug="two"), by=organizer, text="Beto")
    ana, beto = Player.objects.order_by("display_name")
    answer = client_for(SuperuserFactory()).post(
        f"/api/v1/players/{ana.pk}/merge/", {"other": beto.pk}
    )
    assert answer.status_code == 200


def test_paste_choices_through_the_api(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="José Pérez")
    jose = Player.objects.get()
    api = client_for(organizer)
    event(organizer, slug="two")
    preview = api.post("/api/v1/tournaments/two/entrants/preview/", {"text": "Jose Peres\nNew"})
    assert preview.status_code == 200
    first, second = preview.json()["lines"]
    assert first["names"][0]["player"] is None
    assert first["names"][0]["candidates"][0]["id"] == jose.pk
    assert second["names"][0]["candidates"] == []

    assert first["names"][0]["candidates"][0]["token"]

    refused = api.post("/api/v1/tournaments/two/entrants/", {"text": "Jose Peres"})
    assert refused.status_code == 409
    [candidate] = refused.json()["choices"][0]["candidates"]
    assert candidate["id"] == jose.pk
    # A known player is chosen by the token offered with them, never by their number.
    by_number = api.post(
        "/api/v1/tournaments/two/entrants/",
        {"text": "Jose Peres", "players": [{"name": "Jose Peres", "player": jose.pk}]},
        format="json",
    )
    assert by_number.status_code == 400 and not Entrant.objects.filter(tournament__slug="two")
    made = api.post(
        "/api/v1/tournaments/two/entrants/",
        {"text": "Jose Peres", "players": [{"name": "Jose Peres", "token": candidate["token"]}]},
        format="json",
    )
    assert made.status_code == 201 and made.json()[0]["player"] == jose.pk
    anonymous = client_for(None).post("/api/v1/tournaments/two/entrants/preview/", {"text": "A"})
    assert anonymous.status_code == 401


def test_self_registration_through_the_api(organizer, tournament):
    api = client_for(organizer)
    opens = (timezone.now() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    saved = api.put(
        "/api/v1/tournaments/viernes/registration/",
        {"opens_at": opens, "capacity": 1, "requires_approval": False},
        format="json",
    )
    assert saved.status_code == 200 and saved.json()["open"] is True
    assert client_for(None).get("/api/v1/tournaments/viernes/registration/").status_code == 200
    player = UserFactory(username="ana", first_name="Ana", last_name="Rivera")
    assert (
        client_for(player).put("/api/v1/tournaments/viernes/registration/", {}).status_code == 403
    )

    me = client_for(player)
    entered = me.post("/api/v1/tournaments/viernes/applications/", {})
    assert entered.status_code == 201 and entered.json()["status"] == "entered"
    other = client_for(UserFactory(username="beto"))
    waiting = other.post("/api/v1/tournaments/viernes/applications/", {})
    assert waiting.json()["status"] == "waiting"
    assert me.post("/api/v1/tournaments/viernes/applications/", {}).status_code == 409
    assert len(api.get("/api/v1/tournaments/viernes/applications/").json()["results"]) == 2
    assert len(me.get("/api/v1/tournaments/viernes/applications/").json()["results"]) == 1
    assert me.get("/api/v1/account/entries/").json()["count"] == 1

    withdrawn = me.post(f"/api/v1/applications/{entered.json()['id']}/withdraw/")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    moved = Application.objects.get(pk=waiting.json()["id"])
    assert moved.status == "entered"
    stranger = client_for(UserFactory(username="cira"))
    assert stranger.post(f"/api/v1/applications/{moved.pk}/withdraw/").status_code == 404
    assert api.post(f"/api/v1/applications/{moved.pk}/nonsense/").status_code == 404


def test_self_check_in_through_the_api(organizer, tournament):
    now = timezone.now()
    registration.open_registration(
        tournament, by=organizer, check_in_opens_at=now - timedelta(minutes=5)
    )
    ana = UserFactory(username="ana")
    registration.enter(tournament, by=ana)
    answer = client_for(ana).post("/api/v1/tournaments/viernes/check-in/", {})
    assert answer.status_code == 200 and answer.json()["checked_in"] is True
    out = client_for(ana).post("/api/v1/tournaments/viernes/check-in/", {"present": False})
    assert out.json()["checked_in"] is False
    assert client_for(None).post("/api/v1/tournaments/viernes/check-in/", {}).status_code == 401
    nobody = client_for(UserFactory()).post("/api/v1/tournaments/viernes/check-in/", {})
    assert nobody.status_code == 409


def test_partners_and_approval_through_the_api(organizer):
    event(organizer, slug="parejas", ruleset="partners")
    api = client_for(organizer)
    api.put("/api/v1/tournaments/parejas/registration/", {"requires_approval": True})
    ana, beto = UserFactory(username="ana"), UserFactory(username="beto")
    asked = client_for(ana).post("/api/v1/tournaments/parejas/applications/", {"partner": "beto"})
    assert asked.json()["status"] == "partner"
    pk = asked.json()["id"]
    assert client_for(ana).post(f"/api/v1/applications/{pk}/accept/").status_code == 409
    assert client_for(beto).post(f"/api/v1/applications/{pk}/accept/").json()["status"] == (
        "approval"
    )
    assert client_for(ana).post(f"/api/v1/applications/{pk}/approve/").status_code == 403
    approved = api.post(f"/api/v1/applications/{pk}/approve/")
    assert approved.status_code == 200 and approved.json()["status"] == "entered"
    no_partner = client_for(UserFactory(username="cira")).post(
        "/api/v1/tournaments/parejas/applications/", {}
    )
    assert no_partner.status_code == 400 and "partner" in no_partner.json()["errors"]


# --- one player identity, owned by the person ------------------------------------------


def test_a_known_name_in_your_own_event_gives_no_claim_code_nor_a_link(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    mallory = UserFactory(username="mallory")
    api = client_for(mallory)
    assert api.post("/api/v1/tournaments/", MINE, format="json").status_code == 201
    made = api.post("/api/v1/tournaments/mal/entrants/", {"name": "Ana Rivera"}, format="json")
    # Another organizer's player is not hers to enter: her entry is a new player.
    assert made.status_code == 201 and made.json()[0]["player"] != ana.pk
    assert ana.entries.count() == 1
    refused = api.post(f"/api/v1/players/{ana.pk}/claim-code/")
    assert refused.status_code == 403 and "every event" in refused.json()["detail"]
    assert not ClaimCode.objects.exists() and not IdentityAct.objects.exists()
    assert api.post("/api/v1/account/claim/", {"code": "ABCDEFGHJK"}).status_code == 400
    ana.refresh_from_db()
    assert ana.user is None


def test_an_entrant_body_cannot_attach_another_players_number(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    api = client_for(UserFactory(username="mallory"))
    api.post("/api/v1/tournaments/", MINE, format="json")
    for choice in ({"player": ana.pk}, {"token": "forged"}):
        body = {"name": "zz", "players": [{"name": "zz", **choice}]}
        refused = api.post("/api/v1/tournaments/mal/entrants/", body, format="json")
        assert refused.status_code == 400, refused.json()
        assert "players" in refused.json()["errors"]
    assert not Entrant.objects.filter(tournament__slug="mal").exists()
    assert Player.objects.count() == 1 and ana.entries.count() == 1


def test_a_linked_player_is_not_merged_into_a_puppet(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    code = client_for(organizer).post(f"/api/v1/players/{ana.pk}/claim-code/").json()["code"]
    person = UserFactory(username="ana")
    assert client_for(person).post("/api/v1/account/claim/", {"code": code}).status_code == 200
    api = client_for(UserFactory(username="mallory"))
    api.post("/api/v1/tournaments/", MINE, format="json")
    api.post("/api/v1/tournaments/mal/entrants/", {"name": "Puppet"}, format="json")
    puppet = Player.objects.get(display_name="Puppet")
    for keep, other in ((puppet, ana), (ana, puppet)):
        refused = api.post(f"/api/v1/players/{keep.pk}/merge/", {"other": other.pk})
        assert refused.status_code == 403
    # Not even the organizer of all Ana's events: she is her account's.
    by_organizer = client_for(organizer).post(
        f"/api/v1/players/{ana.pk}/merge/", {"other": puppet.pk}
    )
    assert by_organizer.status_code == 403
    # Nor by Ana herself: she asks for a merge, and gives herself no code.
    holder = client_for(person)
    assert holder.post(f"/api/v1/players/{ana.pk}/merge/", {"other": puppet.pk}).status_code == 403
    assert holder.post(f"/api/v1/players/{ana.pk}/claim-code/").status_code == 403
    assert Player.objects.count() == 2 and not PlayerMerge.objects.exists()
    assert Entrant.objects.get(tournament__slug="one").player == ana
    assert client_for(None).get(f"/api/v1/players/{ana.pk}/").status_code == 200


def test_an_account_holder_asks_for_a_merge_and_the_organizers_confirm(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    code = client_for(organizer).post(f"/api/v1/players/{ana.pk}/claim-code/").json()["code"]
    person = UserFactory(username="ana")
    client_for(person).post("/api/v1/account/claim/", {"code": code})
    other_org = UserFactory(username="other-org")
    services.register_entrants(
        event(other_org, slug="two"), by=other_org, text="Ana Riviera",
        choices={"ana riviera|": 0},
    )  # fmt: skip
    old = Player.objects.get(display_name="Ana Riviera")

    mine = client_for(person)
    asked = mine.post("/api/v1/merge-requests/", {"other": old.pk})
    assert asked.status_code == 201 and asked.json()["status"] == "open"
    assert asked.json()["may_confirm"] is False
    pk = asked.json()["id"]
    assert mine.post(f"/api/v1/merge-requests/{pk}/confirm/").status_code == 403
    assert client_for(organizer).post(f"/api/v1/merge-requests/{pk}/confirm/").status_code == 404
    waiting = client_for(other_org).get("/api/v1/merge-requests/").json()["results"]
    assert [(r["id"], r["may_confirm"]) for r in waiting] == [(pk, True)]
    done = client_for(other_org).post(f"/api/v1/merge-requests/{pk}/confirm/")
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert not Player.objects.filter(pk=old.pk).exists() and ana.entries.count() == 2

    acts = mine.get("/api/v1/account/identity/").json()["results"]
    assert [a["kind"] for a in acts] == [
        "merge", "merge_confirm", "merge_request", "claim", "claim_code",
    ]  # fmt: skip
    assert acts[0]["by"] == "other-org" and acts[0]["other_name"] == "Ana Riviera"
    assert client_for(UserFactory()).get("/api/v1/account/identity/").json()["results"] == []
    assert client_for(None).get("/api/v1/account/identity/").status_code == 401
    unlinked = mine.post("/api/v1/account/unlink/")
    assert unlinked.status_code == 200 and unlinked.json()["linked"] is False


def test_the_organizer_of_every_event_gives_a_code_once_and_the_person_claims(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    services.register_entrant(event(organizer, slug="two"), by=organizer, name="Ana Rivera")
    ana = Player.objects.get()
    issued = client_for(organizer).post(f"/api/v1/players/{ana.pk}/claim-code/")
    assert issued.status_code == 201
    code = issued.json()["code"]
    assert code not in str(client_for(organizer).get(f"/api/v1/players/{ana.pk}/").content)
    person = UserFactory(username="ana")
    assert client_for(person).post("/api/v1/account/claim/", {"code": code}).status_code == 200
    # Linked now: the organizer looks after her no more.
    again = client_for(organizer).post(f"/api/v1/players/{ana.pk}/claim-code/")
    assert again.status_code == 403

"""The tournaments API, with organizers in the permission matrix and a bracket played through."""

import random

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.models import IdempotencyKey
from tests.factories import SuperuserFactory, UserFactory, client_for
from tournaments.models import Entrant, Match, StandingsState, Tournament
from tournaments.read.selectors import standing_lines

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def organizer():
    return UserFactory(username="org")


@pytest.fixture
def api(organizer):
    return client_for(organizer)


def make(api, **extra):
    body = {"name": "Copa", "ruleset": "cutthroat", "table_size": 2, **extra}
    response = api.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["slug"]


def test_create_register_and_pair_with_flags(api):
    slug = make(api, table_size=4)
    names = "\n".join(f"P{i}" for i in range(18))
    response = api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": names}, format="json")
    assert response.status_code == 201
    assert len(response.json()) == 18
    stage = api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "RR", "format": "round_robin", "settings": {"rounds": 5}},
        format="json",
    )
    assert stage.status_code == 201, stage.json()
    round_ = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert round_.status_code == 201, round_.json()
    body = round_.json()
    assert sorted(len(m["entrants"]) for m in body["matches"]) == [3, 3, 4, 4, 4]
    assert any("short tables" in flag["message"] for flag in body["flags"])
    again = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert again.status_code == 409
    published = api.post(f"/api/v1/tournaments/{slug}/rounds/1/publish/")
    assert published.json()["status"] == "published"
    detail = client_for(None).get(f"/api/v1/tournaments/{slug}/rounds/1/")
    assert detail.status_code == 200
    assert detail.json()["matches"][0]["game"]


def test_bad_paste_reports_every_line(api):
    slug = make(api, ruleset="partners", table_size=None)
    response = api.post(
        f"/api/v1/tournaments/{slug}/entrants/",
        {"text": "Ana & Beto\nCruz\nAna & Beto"},
        format="json",
    )
    assert response.status_code == 400
    assert [p["line"] for p in response.json()["problems"]] == [2, 3]


def test_check_in_and_withdraw(api):
    slug = make(api)
    entrant = api.post(
        f"/api/v1/tournaments/{slug}/entrants/", {"name": "Ana"}, format="json"
    ).json()[0]
    url = f"/api/v1/tournaments/{slug}/entrants/{entrant['id']}/"
    assert api.post(f"{url}check-in/").json()["checked_in"] is True
    unconfirmed = api.post(f"{url}withdraw/")
    assert unconfirmed.status_code == 400 and "leaves the event" in unconfirmed.json()["detail"]
    sure = {"confirm": True}
    assert api.post(f"{url}withdraw/", sure, format="json").json()["withdrawn"] is True
    assert api.post(f"{url}withdraw/", sure, format="json").status_code == 409
    assert api.post(f"{url}dance/").status_code == 404


def test_a_check_in_refuses_a_body_its_operation_does_not_allow(api):
    slug = make(api)
    entrant = api.post(
        f"/api/v1/tournaments/{slug}/entrants/", {"name": "Ana"}, format="json"
    ).json()[0]
    url = f"/api/v1/tournaments/{slug}/entrants/{entrant['id']}/check-in/"
    refused = api.post(url, {"substitute": 0}, format="json")
    assert refused.status_code == 400 and "substitute" in refused.json()["errors"]
    assert Entrant.objects.get(pk=entrant["id"]).checked_in is False


@pytest.mark.parametrize(
    ("role", "read", "write"),
    [
        ("anonymous", 200, 401),
        ("no_role", 200, 403),
        ("organizer_elsewhere", 200, 403),
        ("organizer", 200, 201),
        ("superuser", 200, 201),
    ],
)
def test_permission_matrix(organizer, role, read, write):
    slug = make(client_for(organizer))
    other = UserFactory()
    make(client_for(other), name="Otra")
    users = {
        "anonymous": None,
        "no_role": UserFactory(),
        "organizer_elsewhere": other,
        "organizer": organizer,
        "superuser": SuperuserFactory(),
    }
    client = client_for(users[role])
    assert client.get(f"/api/v1/tournaments/{slug}/").status_code == read
    response = client.post(
        f"/api/v1/tournaments/{slug}/entrants/", {"name": f"N{role}"}, format="json"
    )
    assert response.status_code == write


def test_private_tournaments_are_hidden(organizer):
    slug = make(client_for(organizer), public=False)
    assert client_for(None).get(f"/api/v1/tournaments/{slug}/").status_code == 404
    assert client_for(UserFactory()).get(f"/api/v1/tournaments/{slug}/").status_code == 404
    assert client_for(organizer).get(f"/api/v1/tournaments/{slug}/").status_code == 200
    listed = client_for(None).get("/api/v1/tournaments/").json()["results"]
    assert slug not in [t["slug"] for t in listed]


def join_as_referee(organizer_api, referee_api, slug: str, username: str) -> None:
    """The organizer invites ``username`` as referee; the referee accepts, both by the API."""
    invited = organizer_api.post(
        f"/api/v1/tournaments/{slug}/staff/",
        {"username": username, "role": "referee"},
        format="json",
    )
    assert invited.status_code == 201, invited.content
    accepted = referee_api.post(f"/api/v1/invitations/{invited.json()['id']}/accept/")
    assert accepted.status_code == 200, accepted.content


def test_a_bracket_of_sixteen_played_through_the_api(api, django_capture_on_commit_callbacks):
    slug = make(api)
    api.post(
        f"/api/v1/tournaments/{slug}/entrants/",
        {"text": "\n".join(f"Jugador {i}" for i in range(16))},
        format="json",
    )
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Llave", "format": "single_elimination"},
        format="json",
    )
    referee = UserFactory(username="ref")
    ref = client_for(referee)
    join_as_referee(api, ref, slug, "ref")
    rng = random.Random(5)
    created = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert created.status_code == 201
    api.post(f"/api/v1/tournaments/{slug}/rounds/1/publish/")
    played = set()
    while True:
        pending = Match.objects.filter(
            round__stage__tournament__slug=slug,
            bye=False,
            game__status__in=["scheduled", "in_progress"],
        )
        pending = [m for m in pending if m.pk not in played]
        if not pending:
            break
        for match in pending:
            played.add(match.pk)
            assert (
                api.post(
                    f"/api/v1/matches/{match.pk}/referee/", {"referee": "ref"}, format="json"
                ).status_code
                == 200
            )
            number = 0
            while True:
                number += 1
                out = rng.choice(["A", "B"])
                body = {
                    "number": number,
                    "ended": "domino",
                    "domino_by": out,
                    "pips": {"A": 0, "B": 0} | {("B" if out == "A" else "A"): 60},
                }
                with django_capture_on_commit_callbacks(execute=True):
                    response = ref.post(
                        f"/api/v1/games/{match.game_id}/hands/", body, format="json"
                    )
                assert response.status_code == 201, response.json()
                if response.json()["game"]["status"] == "finished":
                    break
    final = Match.objects.get(round__stage__tournament__slug=slug, slot="R4-1")
    assert final.game.status == "finished"
    rounds = api.get(f"/api/v1/tournaments/{slug}/rounds/").json()["results"]
    assert [r["tables"] for r in rounds] == [8, 4, 2, 1]
    # Every finished game also refreshed the standings snapshot (tasks run in-process).
    assert standing_lines(Tournament.objects.get(slug=slug))[1] == 16
    assert StandingsState.objects.get(tournament__slug=slug).runs >= 15


def test_swap_two_entrants_through_the_api(api):
    slug = make(api, table_size=4)
    api.post(
        f"/api/v1/tournaments/{slug}/entrants/",
        {"text": "\n".join(f"P{i}" for i in range(8))},
        format="json",
    )
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "RR", "format": "round_robin", "settings": {"rounds": 1}},
        format="json",
    )
    round_ = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json").json()
    first, second = round_["matches"]
    a, b = first["entrants"][0]["id"], second["entrants"][0]["id"]
    response = api.post(
        f"/api/v1/tournaments/{slug}/rounds/1/swap/", {"entrants": [a, b]}, format="json"
    )
    assert response.status_code == 200, response.json()
    tables = {m["id"]: [e["id"] for e in m["entrants"]] for m in response.json()["matches"]}
    assert b in tables[first["id"]]
    assert a in tables[second["id"]]
    bad = api.post(f"/api/v1/tournaments/{slug}/rounds/1/swap/", {"entrants": [a]}, format="json")
    assert bad.status_code == 400


def test_a_correction_that_changes_a_bracket_winner_flags_the_next_table(
    api, django_capture_on_commit_callbacks
):
    slug = make(api)
    api.post(
        f"/api/v1/tournaments/{slug}/entrants/",
        {"text": "\n".join(f"J{i}" for i in range(4))},
        format="json",
    )
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Llave", "format": "single_elimination"},
        format="json",
    )
    api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    api.post(f"/api/v1/tournaments/{slug}/rounds/1/publish/", {}, format="json")
    referee = UserFactory(username="ref2")
    ref = client_for(referee)
    join_as_referee(api, ref, slug, "ref2")
    first_round = list(Match.objects.filter(round__stage__tournament__slug=slug, round__number=1))
    for match in first_round:
        api.post(f"/api/v1/matches/{match.pk}/referee/", {"referee": "ref2"}, format="json")
        for number in (1, 2, 3):
            with django_capture_on_commit_callbacks(execute=True):
                ref.post(
                    f"/api/v1/games/{match.game_id}/hands/",
                    {
                        "number": number,
                        "ended": "domino",
                        "domino_by": "A",
                        "pips": {"A": 0, "B": 60},
                    },
                    format="json",
                )
    final = Match.objects.get(round__stage__tournament__slug=slug, slot="R2-1")
    api.post(f"/api/v1/matches/{final.pk}/referee/", {"referee": "ref2"}, format="json")
    ref.post(
        f"/api/v1/games/{final.game_id}/hands/",
        {"number": 1, "ended": "block", "pips": {"A": 5, "B": 9}},
        format="json",
    )
    # The first table's last hand was B's, not A's: B now wins that game.
    corrected = first_round[0]
    for number in (1, 2, 3):
        with django_capture_on_commit_callbacks(execute=True):
            response = ref.put(
                f"/api/v1/games/{corrected.game_id}/hands/{number}/",
                {
                    "ended": "domino",
                    "domino_by": "B",
                    "pips": {"A": 60, "B": 0},
                    "reason": "scored to the wrong seat",
                    "expected_version": 1,
                },
                format="json",
            )
        assert response.status_code == 200, response.json()
    detail = api.get(f"/api/v1/matches/{final.pk}/").json()
    assert detail["needs_attention"] is True
    assert "correction" in detail["attention_reason"]
    final.refresh_from_db()
    assert final.game.hands.count() == 1  # the played final was not rewritten


def test_every_list_answers_one_page_and_page_size_is_capped(api, settings):
    settings.API_MAX_PAGE_SIZE = 4
    slug = make(api, public=True)
    text = "\n".join(f"Player {n}" for n in range(1, 11))
    assert (
        api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": text}, format="json").status_code
        == 201
    )
    anonymous = APIClient()
    first = anonymous.get(f"/api/v1/tournaments/{slug}/entrants/?page_size=3").json()
    assert first["count"] == 10
    assert [e["name"] for e in first["results"]] == ["Player 1", "Player 2", "Player 3"]
    assert first["previous"] is None
    assert "page=2" in first["next"]
    capped = anonymous.get(f"/api/v1/tournaments/{slug}/entrants/?page_size=1000").json()
    assert len(capped["results"]) == 4
    last = anonymous.get(f"/api/v1/tournaments/{slug}/entrants/?page_size=4&page=3").json()
    assert [e["name"] for e in last["results"]] == ["Player 9", "Player 10"]
    assert last["next"] is None
    for path in ("stages", "rounds"):
        body = anonymous.get(f"/api/v1/tournaments/{slug}/{path}/").json()
        assert set(body) == {"count", "next", "previous", "results"}
    assert anonymous.get(f"/api/v1/tournaments/{slug}/entrants/?page=99").status_code == 404


def test_the_schema_documents_list_pages_and_whole_registrations():
    schema = APIClient().get("/api/schema/?format=json").json()
    entrants = schema["paths"]["/api/v1/tournaments/{slug}/entrants/"]
    listed = entrants["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert listed["$ref"].endswith("/PaginatedEntrantList")
    assert {p["name"] for p in entrants["get"]["parameters"]} >= {"page", "page_size"}
    registered = entrants["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert registered["type"] == "array"
    for path in (
        "/api/v1/tournaments/{slug}/stages/",
        "/api/v1/tournaments/{slug}/rounds/",
        "/api/v1/rulesets/",
        "/api/v1/games/{id}/hands/{number}/history/",
    ):
        ok = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        assert ok["schema"]["$ref"].split("/")[-1].startswith("Paginated"), path


def test_a_bracket_without_entrants_is_a_400_not_a_500(api):
    slug = make(api)
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "KO", "format": "single_elimination"},
        format="json",
    )
    response = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "A bracket needs at least two entrants."
    assert response.json()["errors"] == {"non_field_errors": [response.json()["detail"]]}


def test_a_table_the_rules_cannot_seat_is_a_400_told_in_spanish(api):
    slug = make(api, ruleset="dcs", table_size=None)
    api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": "Ana\nBeto\nCruz"}, format="json")
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "RR", "format": "round_robin", "settings": {"rounds": 1}},
        format="json",
    )
    english = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert english.status_code == 400, english.json()
    spanish = api.post(
        f"/api/v1/tournaments/{slug}/rounds/", {}, format="json", HTTP_ACCEPT_LANGUAGE="es"
    )
    assert spanish.status_code == 400
    assert spanish.json()["detail"] != english.json()["detail"]
    assert not Match.objects.exists()


def _paired(api, entrants: int = 4) -> str:
    slug = make(api)
    names = "\n".join(f"P{i}" for i in range(entrants))
    api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": names}, format="json")
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "RR", "format": "round_robin", "settings": {"rounds": 1}},
        format="json",
    )
    assert api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json").status_code == 201
    return slug


def round_of_four_tables(api) -> str:
    return _paired(api, entrants=8)


@pytest.mark.parametrize(
    "body",
    [[1, 2], "top", 7, {"top": "many"}, {"top": 0}, {"per_pool": -1}, {"top": True}],
    ids=["list", "string", "number", "text top", "zero", "negative", "true"],
)
def test_finishing_a_stage_refuses_a_malformed_body(api, body):
    slug = _paired(api)
    response = api.post(f"/api/v1/tournaments/{slug}/stages/1/finish/", body, format="json")
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"detail", "errors"}


@pytest.mark.parametrize(
    "body",
    [
        [1, 2],
        "entrants",
        {"entrants": "1,2"},
        {"entrants": [1]},
        {"entrants": [1, 2, 3]},
        {"entrants": ["a", {}]},
        {"entrants": [[1], [2]]},
        {"entrants": [None, 2]},
        {"entrants": [-1, 2]},
    ],
)
def test_swapping_seats_refuses_a_malformed_body(api, body):
    slug = _paired(api)
    response = api.post(f"/api/v1/tournaments/{slug}/rounds/1/swap/", body, format="json")
    assert response.status_code == 400, response.content
    assert (
        "entrants" in response.json()["errors"] or "non_field_errors" in response.json()["errors"]
    )


@pytest.mark.parametrize(
    "wanted", ["²", "\u0661", "1²", "-1", "99999999999999999999999", "1e3", " "]
)
@pytest.mark.parametrize("path", ["standings/", "rounds/1/"])
def test_a_stage_that_is_not_an_ascii_whole_number_is_a_400(api, organizer, wanted, path):
    slug = _paired(api)
    api.post(f"/api/v1/tournaments/{slug}/rounds/1/publish/")
    response = client_for(None).get(f"/api/v1/tournaments/{slug}/{path}", {"stage": wanted})
    assert response.status_code == 400
    assert "stage" in response.json()["errors"]
    assert client_for(None).get(f"/api/v1/tournaments/{slug}/{path}?stage=1").status_code == 200


def test_a_refused_write_repeated_with_its_key_is_refused_again_and_stores_nothing(api):
    slug = _paired(api)
    first = api.post(
        f"/api/v1/tournaments/{slug}/rounds/", {}, format="json", HTTP_IDEMPOTENCY_KEY="round-2"
    )
    again = api.post(
        f"/api/v1/tournaments/{slug}/rounds/", {}, format="json", HTTP_IDEMPOTENCY_KEY="round-2"
    )
    assert first.status_code == again.status_code == 409
    assert again.json() == first.json()
    assert first.json()["errors"]
    assert "Idempotent-Replayed" not in again
    assert not IdempotencyKey.objects.exists()


def test_one_request_assigns_the_referees_of_a_whole_round(api):
    slug = round_of_four_tables(api)
    for name in ("ana", "beto"):
        join_as_referee(api, client_for(UserFactory(username=name)), slug, name)
    url = f"/api/v1/tournaments/{slug}/rounds/1/referees/"
    everyone = api.post(url, {"referee": "ana"}, format="json")
    assert everyone.status_code == 200, everyone.content
    assert [m["referee"] for m in everyone.json()["matches"]] == ["ana"] * 4

    third = Match.objects.get(round__number=1, table_number=3)
    body = {
        "assignments": [
            {"table": 1, "referee": "beto"},
            {"match": third.pk, "referee": "beto"},
            {"table": 4, "referee": None},
        ]
    }
    response = api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="round-1-referees")
    assert response.status_code == 200, response.content
    assert [m["referee"] for m in response.json()["matches"]] == ["beto", "ana", "beto", None]
    assert set(third.game.referees.values_list("username", flat=True)) == {"beto"}
    repeat = api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="round-1-referees")
    assert repeat.json() == response.json()


def test_a_round_assignment_naming_a_non_staff_user_is_refused_whole(api):
    slug = round_of_four_tables(api)
    join_as_referee(api, client_for(UserFactory(username="ana")), slug, "ana")
    UserFactory(username="outsider")
    url = f"/api/v1/tournaments/{slug}/rounds/1/referees/"
    body = {"assignments": [{"table": 1, "referee": "ana"}, {"table": 2, "referee": "outsider"}]}
    response = api.post(url, body, format="json")
    assert response.status_code == 400
    assert "outsider is not a referee" in response.json()["errors"]["referee"][0]
    assert not Match.objects.exclude(referee=None).exists()

    refusals = [
        ({"assignments": [{"table": 1, "match": 1, "referee": "ana"}]}, "assignments"),
        ({"assignments": [{"table": 9, "referee": "ana"}]}, "assignments"),
        ({"assignments": [{"table": 1, "referee": "ana"}] * 2}, "assignments"),
        ({"assignments": [{"match": 2**40, "referee": "ana"}]}, "assignments"),
        ({"referee": "ana", "assignments": []}, "non_field_errors"),
    ]
    for body, field in refusals:
        refused = api.post(url, body, format="json")
        assert refused.status_code == 400, (body, refused.content)
        assert field in refused.json()["errors"], (body, refused.json())
    assert not Match.objects.exclude(referee=None).exists()
    referee = client_for(User.objects.get(username="ana"))
    assert referee.post(url, {"referee": "ana"}, format="json").status_code == 403
    assert client_for(None).post(url, {"referee": "ana"}, format="json").status_code == 401

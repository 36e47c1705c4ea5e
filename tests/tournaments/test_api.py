"""The tournaments API, with organizers in the permission matrix and a bracket played through."""

import random

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.factories import SuperuserFactory, UserFactory
from tournaments.models import Match, StandingsState, Tournament
from tournaments.selectors import standing_lines

pytestmark = pytest.mark.django_db
User = get_user_model()


def client_for(user):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


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
    assert api.post(f"{url}withdraw/").json()["withdrawn"] is True
    assert api.post(f"{url}withdraw/").status_code == 409
    assert api.post(f"{url}dance/").status_code == 404


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
    rounds = api.get(f"/api/v1/tournaments/{slug}/rounds/").json()
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


def round_of_four_tables(api) -> str:
    slug = make(api)
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
    assert api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json").status_code == 201
    return slug


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

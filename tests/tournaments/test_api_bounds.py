"""Every number the tournaments API takes is refused outside its range, and nothing is
stored (a seed of 4,294,967,373 was stored as 77 on PostgreSQL)."""

import pytest
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tournaments.models import Entrant, Round, Stage, Tournament

pytestmark = pytest.mark.django_db

HUGE = [2**31, 2**32 + 10, 4294967373, 2**63, 10**30]
OUT_OF_RANGE = [*HUGE, 0, -1, -(2**63)]


@pytest.fixture
def api():
    client = APIClient()
    client.force_authenticate(UserFactory(username="org"))
    return client


def refused(response, field: str) -> dict:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    body = response.json()
    assert field in body["errors"], body
    return body


def make(api, **extra) -> str:
    body = {"name": "Copa", "ruleset": "cutthroat", "table_size": 2, **extra}
    response = api.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["slug"]


def with_round(api, entrants: int = 4) -> str:
    slug = make(api)
    names = "\n".join(f"P{i}" for i in range(entrants))
    api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": names}, format="json")
    stage = {"name": "RR", "format": "round_robin", "settings": {"rounds": 1}}
    assert api.post(f"/api/v1/tournaments/{slug}/stages/", stage, format="json").status_code == 201
    assert api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json").status_code == 201
    return slug


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, 100_001])
def test_a_seed_outside_1_to_100000_is_refused(api, value):
    slug = make(api)
    response = api.post(
        f"/api/v1/tournaments/{slug}/entrants/", {"name": "Ana", "seed": value}, format="json"
    )
    assert refused(response, "seed")["errors"]["seed"] == ["Give a whole number from 1 to 100000."]
    assert not Entrant.objects.exists()


def test_the_largest_seed_is_taken_and_the_next_entrant_follows_it(api):
    slug = make(api)
    url = f"/api/v1/tournaments/{slug}/entrants/"
    assert api.post(url, {"name": "Ana", "seed": 100_000}, format="json").status_code == 201
    assert api.post(url, {"name": "Beto"}, format="json").json()[0]["seed"] == 100_001


@pytest.mark.parametrize("value", [*OUT_OF_RANGE, 1, 7])
def test_a_table_size_outside_2_to_6_is_refused(api, value):
    body = {"name": "Copa", "ruleset": "cutthroat", "table_size": value}
    refused(api.post("/api/v1/tournaments/", body, format="json"), "table_size")
    slug = make(api)
    refused(
        api.patch(f"/api/v1/tournaments/{slug}/", {"table_size": value}, format="json"),
        "table_size",
    )
    assert list(Tournament.objects.values_list("table_size", flat=True)) == [2]


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"target": 10**30}, "overrides"),
        ({"target": 2**32 + 10}, "overrides"),
        ({"penalty_points": 4294967306}, "overrides"),
        ({"hand_size": 2**63}, "overrides"),
    ],
)
def test_rules_outside_their_range_are_refused(api, overrides, field):
    body = {"name": "Copa", "ruleset": "cutthroat", "overrides": overrides}
    refused(api.post("/api/v1/tournaments/", body, format="json"), field)
    slug = make(api)
    refused(
        api.patch(f"/api/v1/tournaments/{slug}/", {"overrides": overrides}, format="json"), field
    )
    assert list(Tournament.objects.values_list("overrides", flat=True)) == [{}]


@pytest.mark.parametrize(
    "table",
    [
        {"4": {"1": 10**30}},
        {"4": {"1": 2**63}},
        {"4": {"1": -1001}},
        {"4": {"1": True}},
        {"4": {"1": "3"}},
        {"4294967300": {"1": 3}},
        {"²": {"1": 3}},
        {"1": {"1": 3}},
        {"4": {"5": 3}},
        {"4": {"0": 3}},
        {"4": {str(2**63): 3}},
        {"4": [3, 1]},
        [3, 1],
    ],
)
def test_a_placement_table_outside_its_ranges_is_refused(api, table):
    refused(
        api.post(
            "/api/v1/tournaments/",
            {"name": "Copa", "ruleset": "cutthroat", "placement_points": table},
            format="json",
        ),
        "placement_points",
    )
    slug = make(api)
    refused(
        api.patch(f"/api/v1/tournaments/{slug}/", {"placement_points": table}, format="json"),
        "placement_points",
    )
    assert list(Tournament.objects.values_list("placement_points", flat=True)) == [{}]


def test_a_placement_table_inside_its_ranges_is_kept(api):
    table = {"4": {"1": 3, "2": 1.5, "3": 0, "4": -1}, "2": {"1": 1000}}
    slug = make(api, placement_points=table)
    assert Tournament.objects.get(slug=slug).placement_points == table


@pytest.mark.parametrize(
    ("stage_settings", "fmt"),
    [
        ({"rounds": 2**63}, "round_robin"),
        ({"rounds": 41}, "swiss"),
        ({"rounds": 0}, "swiss"),
        ({"pools": 10**30}, "pools"),
        ({"pools": 2, "advance": 2**31}, "pools"),
        ({"seed": 2**63}, "round_robin"),
        ({"seed": -1}, "swiss"),
    ],
)
def test_stage_settings_outside_their_range_are_refused(api, stage_settings, fmt):
    slug = make(api)
    body = {"name": "S", "format": fmt, "settings": stage_settings}
    refused(api.post(f"/api/v1/tournaments/{slug}/stages/", body, format="json"), "settings")
    assert not Stage.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"top": 2**63},
        {"top": 0},
        {"top": -1},
        {"per_pool": 10**30},
        {"top": "many"},
        {"top": True},
    ],
)
def test_finishing_a_stage_with_counts_outside_their_range_is_refused(api, body):
    slug = with_round(api)
    response = api.post(f"/api/v1/tournaments/{slug}/stages/1/finish/", body, format="json")
    refused(response, next(iter(body)))
    assert Stage.objects.get().status != Stage.Status.FINISHED


def test_finishing_a_stage_with_a_body_that_is_not_an_object_is_refused(api):
    slug = with_round(api)
    for body in ([1, 2], "top"):
        response = api.post(f"/api/v1/tournaments/{slug}/stages/1/finish/", body, format="json")
        assert response.status_code == 400, response.content


def test_generating_a_round_with_a_body_that_is_not_an_object_is_refused(api):
    slug = with_round(api)
    rounds = Round.objects.count()
    for body in ([1, 2], "stage", 3):
        response = api.post(f"/api/v1/tournaments/{slug}/rounds/", body, format="json")
        assert response.status_code == 400, response.content
        assert response.json()["detail"] == "Send a JSON object, or nothing."
    assert Round.objects.count() == rounds


@pytest.mark.parametrize(
    "entrants",
    [[2**63, 1], [1, 10**30], [-1, 1], [True, 1], ["x", 1], [1], [1, 2, 3], "1,2", None],
)
def test_a_swap_names_two_entrants_by_id(api, entrants):
    slug = with_round(api)
    response = api.post(
        f"/api/v1/tournaments/{slug}/rounds/1/swap/", {"entrants": entrants}, format="json"
    )
    refused(response, "entrants")


@pytest.mark.parametrize("value", [str(2**63), str(10**30), "-1"])
@pytest.mark.parametrize("path", ["standings/", "rounds/1/"])
def test_a_stage_in_the_query_beyond_any_column_is_a_400(api, value, path):
    slug = with_round(api)
    response = api.get(f"/api/v1/tournaments/{slug}/{path}?stage={value}")
    refused(response, "stage")


@pytest.mark.parametrize("value", [2**63, 10**30])
def test_numbers_in_the_address_beyond_any_column_are_not_found(api, value):
    slug = with_round(api)
    assert api.get(f"/api/v1/tournaments/{slug}/rounds/{value}/").status_code == 404
    assert api.post(f"/api/v1/tournaments/{slug}/entrants/{value}/check-in/").status_code == 404
    assert api.post(f"/api/v1/tournaments/{slug}/stages/{value}/finish/", {}).status_code == 404
    assert api.get(f"/api/v1/matches/{value}/").status_code == 404

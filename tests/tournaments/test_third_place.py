"""A third-place match in a single-elimination bracket: the engine, the service, the API
and the add-stage page."""

import random

import pytest

from tests.factories import UserFactory, client_for, event_referee
from tests.tournaments.test_services import NAMES, play_out
from tournaments import services
from tournaments.models import Match, Round, Stage
from tournaments.pairing import PairingError, get_engine
from tournaments.pairing.base import EntrantStub
from tournaments.pairing.elimination import build_bracket, champion, settle


def test_the_semi_final_losers_meet_in_the_finals_round():
    slots = build_bracket(8, third_place=True)
    third = slots[-1]
    assert (third.key, third.round, third.third_place) == ("R3-3P", 3, True)
    assert third.sources == (("R2-1", 1), ("R2-2", 1))
    # Nothing changes the champion: the final still decides it.
    results = {"R1-1": [1, 8], "R1-2": [4, 5], "R1-3": [2, 7], "R1-4": [3, 6]}
    results |= {"R2-1": [4, 1], "R2-2": [2, 3]}
    ready, _ = settle(slots, list(range(1, 9)), results)
    assert ready == {"R3-1": [4, 2], "R3-3P": [1, 3]}
    settled = {**results, "R3-1": [2, 4], "R3-3P": [3, 1]}
    assert champion(slots, settled) == 2


def test_at_tables_of_four_the_next_of_each_semi_final_play_for_third():
    slots = build_bracket(32, table_size=4, advance=2, third_place=True)
    third = slots[-1]
    final = next(s for s in slots if s.round == third.round and not s.third_place)
    assert [place for _, place in final.sources] == [0, 1, 0, 1]
    assert [place for _, place in third.sources] == [2, 3, 2, 3]


def test_a_single_table_bracket_has_no_third_place_and_the_option_is_yes_or_no():
    assert [s.key for s in build_bracket(2, third_place=True)] == ["R1-1"]
    engine = get_engine("single_elimination")
    engine.validate_settings({"third_place": True}, table_size=2)
    with pytest.raises(PairingError, match="yes or no"):
        engine.validate_settings({"third_place": "yes"}, table_size=2)
    stubs = [EntrantStub(id=i, seed=i) for i in range(1, 9)]
    assert engine.total_rounds(8, table_size=2, settings={"third_place": True}) == 3
    first = engine.pair(stubs, round_number=1, table_size=2, settings={"third_place": True}, seed=1)
    assert len(first.tables) == 4


@pytest.mark.django_db
def test_the_service_seats_the_third_place_table_when_the_semi_finals_finish():
    organizer = UserFactory(username="organizer")
    tournament = services.create_tournament(
        by=organizer, name="Copa", ruleset_key="cutthroat", table_size=2
    )
    services.register_entrants(tournament, by=organizer, text="\n".join(NAMES[:4]))
    stage = services.add_stage(
        tournament,
        by=organizer,
        name="Llave",
        format="single_elimination",
        settings={"third_place": True},
    )
    referee = event_referee(tournament)
    semis = services.generate_round(stage, by=organizer)
    services.publish_round(semis, by=organizer)
    losers = []
    for match in semis.matches.all():
        services.assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, random.Random(match.pk))
        losers += [s.entrant_id for s in match.seats.all() if not s.won]
    for match in semis.matches.all():
        services.advance_bracket(match)
    last = Round.objects.get(stage=stage, number=2)
    third = Match.objects.get(round=last, slot="R2-3P")
    assert sorted(third.seats.values_list("entrant_id", flat=True)) == sorted(losers)
    assert third.game is not None
    assert Match.objects.filter(round=last).count() == 2


@pytest.mark.django_db
def test_the_api_and_the_add_stage_page_take_the_option(client):
    organizer = UserFactory(username="organizer")
    api = client_for(organizer)
    slug = api.post(
        "/api/v1/tournaments/",
        {"name": "Copa API", "ruleset": "cutthroat", "table_size": 2},
        format="json",
    ).json()["slug"]
    refused = api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Llave", "format": "single_elimination", "settings": {"third_place": "yes"}},
        format="json",
    )
    assert refused.status_code == 400
    made = api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Llave", "format": "single_elimination", "settings": {"third_place": True}},
        format="json",
    )
    assert made.status_code == 201, made.json()
    assert made.json()["settings"] == {"third_place": True}

    client.force_login(organizer)
    wrong = client.post(
        f"/t/{slug}/manage/stages/new/",
        {"name": "Liga", "format": "round_robin", "third_place": "on"},
    )
    assert wrong.status_code == 400
    assert wrong.context["form"].errors["third_place"] == [
        "Only a single-elimination bracket plays a third-place match."
    ]
    page = client.get(f"/t/{slug}/manage/stages/new/").content.decode()
    assert 'name="third_place"' in page
    client.post(
        f"/t/{slug}/manage/stages/new/",
        {"name": "Otra", "format": "single_elimination", "third_place": "on"},
    )
    stage = Stage.objects.get(tournament__slug=slug, name="Otra")
    assert stage.settings == {"third_place": True}
    manage = client.get(f"/t/{slug}/manage/").content.decode()
    assert "third-place match" in manage

"""The organizer's pages: create from a preset, register, pair, publish, assign, finish."""

import random

import pytest

from scoring.models import Game
from tests.factories import UserFactory
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play
from tournaments.models import Entrant, Match, Round, Staff, Stage, Tournament

pytestmark = pytest.mark.django_db

NAMES = "\n".join(f"Jugador {i:02d}" for i in range(1, 19))


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_organizer_pages_need_a_login_and_the_organizer_role(client, organizer):
    make_event(organizer, slug="copa")
    assert client.get("/organize/new/").status_code == 302
    assert client.get("/t/copa/manage/").status_code == 302
    assert client.post("/t/copa/manage/generate/").status_code == 302
    client.force_login(UserFactory(username="someone"))
    assert client.get("/t/copa/manage/").status_code == 403
    assert client.post("/t/copa/manage/generate/", {"stage": 1}).status_code == 403
    assert client.get("/organize/new/").status_code == 200  # anyone signed in may create
    client.force_login(organizer)
    assert client.get("/t/copa/manage/").status_code == 200
    assert client.post("/t/copa/manage/nonsense/").status_code == 404


def test_presets_are_described_and_their_values_filled_in(client, organizer):
    client.force_login(organizer)
    choose = client.get("/organize/new/").content.decode()
    assert "Two teams of two to 250" in choose and "?preset=doscientos" in choose
    form = client.get("/organize/new/?preset=doscientos").content.decode()
    assert 'name="target" value="200"' in form
    assert "Point differential" in form  # each metric explained beside the tiebreak order


def test_create_with_overrides_and_a_tiebreak_order(client, organizer):
    client.force_login(organizer)
    data = {
        "preset": "cutthroat",
        "name": "Copa de Verano",
        "table_size": "4",
        "target": "200",
        "in_play_scoring": "on",
        "rounding": "nearest_5",
        "block_tie": "no_award",
        "penalty_points": "10",
        "public": "on",
        "stage_name": "Liga",
        "stage_format": "round_robin",
        "rounds": "3",
        "tiebreak_1": "match_points",
        "tiebreak_2": "point_differential",
    }
    response = client.post("/organize/new/", data)
    tournament = Tournament.objects.get(name="Copa de Verano")
    assert response.status_code == 302 and response["Location"].endswith("/manage/")
    assert tournament.overrides == {"target": 200}  # only what differs from the preset
    assert tournament.tiebreak_order == ["match_points", "point_differential"]
    assert Stage.objects.get(tournament=tournament).settings == {"rounds": 3}
    twice = client.post("/organize/new/", data | {"tiebreak_2": "match_points", "name": "Dup"})
    assert twice.status_code == 400
    assert "Each tiebreaker once" in twice.content.decode()
    assert not Tournament.objects.filter(name="Dup").exists()


def test_a_whole_round_from_the_manage_page(client, organizer):
    client.force_login(organizer)
    tournament = services.create_tournament(
        by=organizer, name="Copa", slug="copa", ruleset_key="cutthroat", table_size=4
    )
    services.add_stage(tournament, by=organizer, name="Liga", format="round_robin")
    bad = client.post("/t/copa/manage/register/", {"text": NAMES + "\nJugador 01\n"}, follow=True)
    assert "Nothing was registered: 1 line(s) need fixing." in messages_of(bad)
    assert "Line 19" in bad.content.decode()
    assert Entrant.objects.filter(tournament=tournament).count() == 0
    good = client.post("/t/copa/manage/register/", {"text": NAMES}, follow=True)
    assert "Registered 18 entrant(s)." in messages_of(good)
    first = Entrant.objects.get(tournament=tournament, seed=1)
    client.post("/t/copa/manage/check-in/", {"entrant": first.pk, "present": "1"})
    assert Entrant.objects.get(pk=first.pk).checked_in
    client.post("/t/copa/manage/seed/", {"entrant": first.pk, "seed": "2"})
    assert Entrant.objects.get(pk=first.pk).seed == 2

    stage = Stage.objects.get(tournament=tournament)
    generated = client.post("/t/copa/manage/generate/", {"stage": stage.pk}, follow=True)
    assert "Round 1 generated as a draft with 5 tables" in messages_of(generated)[-1]
    round_ = Round.objects.get(stage=stage, number=1)
    seated = [s.entrant for s in Match.objects.filter(round=round_).first().seats.all()][:1]
    other = Match.objects.filter(round=round_).last().seats.first().entrant
    swapped = client.post(
        "/t/copa/manage/swap/",
        {"round": round_.pk, "first": seated[0].pk, "second": other.pk},
        follow=True,
    )
    assert "swapped seats in round 1" in messages_of(swapped)[-1]
    client.post("/t/copa/manage/publish/", {"round": round_.pk})
    assert Round.objects.get(pk=round_.pk).status == "published"

    created = client.post("/t/copa/manage/create-referee/", {"username": "mesa1"}, follow=True)
    credentials = created.context["new_credentials"]
    assert credentials["username"] == "mesa1" and credentials["password"]
    assert client.get("/t/copa/manage/").context["new_credentials"] is None  # shown once
    referee = Staff.objects.get(tournament=tournament, role="referee").user
    assert referee.check_password(credentials["password"])
    client.post(
        "/t/copa/manage/assign/", {"round": round_.pk, "match": "all", "referee": referee.pk}
    )
    assert not Match.objects.filter(round=round_, bye=False, referee=None).exists()
    revoked = client.post("/t/copa/manage/token/", {"user": referee.pk, "revoke": "1"}, follow=True)
    assert "mesa1's token revoked." in messages_of(revoked)

    early = client.post("/t/copa/manage/finish-stage/", {"stage": stage.pk}, follow=True)
    assert "game(s) of this stage are not finished" in messages_of(early)[-1]
    for match in Match.objects.filter(round=round_, bye=False):
        play(match.game, organizer, random.Random(match.pk))
    client.post("/t/copa/manage/add-stage/", {"name": "Final", "format": "single_elimination"})
    finished = client.post(
        "/t/copa/manage/finish-stage/", {"stage": stage.pk, "top": "16"}, follow=True
    )
    assert "Final is seeded from its standings" in messages_of(finished)[-1]
    final = Stage.objects.get(tournament=tournament, name="Final")
    assert final.entrants.count() == 16
    assert all(g.status == "finished" for g in Game.objects.filter(match__round=round_))


def test_attention_lists_tables_without_a_referee(client, organizer):
    make_event(organizer, slug="copa")
    client.force_login(organizer)
    page = client.get("/t/copa/manage/").content.decode()
    assert "Tables needing attention" in page
    assert "table 1: no referee" in page


def test_an_action_on_something_of_another_tournament_is_refused_in_words(client, organizer):
    make_event(organizer, slug="copa")
    other, other_round = make_event(organizer, slug="otra", name="Otra")
    stranger = Entrant.objects.filter(tournament=other).first()
    client.force_login(organizer)
    for action, data, said in (
        ("check-in", {"entrant": stranger.pk}, "Choose an entrant of this tournament."),
        ("check-in", {"entrant": "x"}, "Choose an entrant of this tournament."),
        ("publish", {"round": other_round.pk}, "Choose a round of this tournament."),
        ("generate", {}, "Choose a stage of this tournament."),
    ):
        response = client.post(f"/t/copa/manage/{action}/", data, follow=True)
        assert messages_of(response) == [said]
    assert not Entrant.objects.get(pk=stranger.pk).checked_in


@pytest.mark.parametrize("seed", ["²", "\u0661", "99999999999999999999999", "-3"])
def test_a_seed_that_is_not_a_whole_number_is_refused_beside_the_form(client, organizer, seed):
    tournament, _ = make_event(organizer, slug="copa")
    client.force_login(organizer)
    first = Entrant.objects.get(tournament=tournament, seed=1)
    response = client.post("/t/copa/manage/seed/", {"entrant": first.pk, "seed": seed}, follow=True)
    assert response.status_code == 200
    assert "A seed is a whole number from 1." in messages_of(response)
    assert Entrant.objects.get(pk=first.pk).seed == 1

"""The organizer's pages: create from a preset, register, pair, publish, assign, finish."""

import random

import pytest

from scoring.models import Game
from tests.factories import UserFactory, event_referee
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
    assert "Nothing was registered: 1 line needs fixing." in messages_of(bad)
    assert "Line 19" in bad.content.decode()
    assert Entrant.objects.filter(tournament=tournament).count() == 0
    good = client.post("/t/copa/manage/register/", {"text": NAMES}, follow=True)
    assert "Registered 18 entrants." in messages_of(good)
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

    early = client.get("/t/copa/manage/stages/1/finish/")
    assert early.status_code == 400
    assert "Games of this stage not finished yet: 5." in early.context["refused"]
    for match in Match.objects.filter(round=round_, bye=False):
        play(match.game, organizer, random.Random(match.pk))
    client.post("/t/copa/manage/stages/new/", {"name": "Final", "format": "single_elimination"})
    listed = client.get("/t/copa/manage/stages/1/finish/", {"top": "16"})
    assert len(listed.context["through"]) == 16
    assert "16 go through to Final" in listed.content.decode()
    assert Stage.objects.get(pk=stage.pk).status != Stage.Status.FINISHED  # only listed
    # Only the round robin's first round was played: the rest are named, and confirmed.
    unplayed = listed.context["unplayed"]
    assert unplayed[0] == 2
    finished = client.post(
        "/t/copa/manage/stages/1/finish/",
        {
            "top": "16",
            "listed": listed.context["listed"],
            "unplayed_rounds": ",".join(map(str, unplayed)),
        },
        follow=True,
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


HUGE = ["2147483648", "4294967299", str(2**63), str(10**30)]


@pytest.mark.parametrize("value", [*HUGE, "0", "-1", "²", "3.0", "100001", ""])
def test_a_seed_outside_its_range_is_refused_on_the_manage_page(client, organizer, value):
    tournament, _ = make_event(organizer, slug="copa")
    client.force_login(organizer)
    first = Entrant.objects.get(tournament=tournament, seed=1)
    response = client.post(
        "/t/copa/manage/seed/", {"entrant": first.pk, "seed": value}, follow=True
    )
    assert response.status_code == 200
    assert messages_of(response)[-1] == "A seed is a whole number from 1 to 100000."
    assert sorted(Entrant.objects.values_list("seed", flat=True)) == list(range(1, 9))


@pytest.mark.parametrize("value", [*HUGE, "0", "²"])
def test_entrant_and_match_ids_beyond_any_row_are_refused(client, organizer, value):
    _, round_ = make_event(organizer, slug="copa")
    client.force_login(organizer)
    checked = client.post("/t/copa/manage/check-in/", {"entrant": value}, follow=True)
    assert messages_of(checked)[-1] == "Choose an entrant of this tournament."
    swapped = client.post(
        "/t/copa/manage/swap/", {"round": round_.pk, "first": value, "second": value}, follow=True
    )
    assert messages_of(swapped)[-1] == "Choose an entrant of this tournament."
    published = client.post("/t/copa/manage/publish/", {"round": value}, follow=True)
    assert messages_of(published)[-1] == "Choose a round of this tournament."
    assigned = client.post(
        "/t/copa/manage/assign/", {"match": value, "referee": organizer.pk}, follow=True
    )
    assert assigned.status_code == 404
    assert not Entrant.objects.filter(checked_in=True).exists()


@pytest.mark.parametrize("value", [*HUGE, "0", "41", "²", "xyz"])
def test_stage_rounds_outside_their_range_are_refused(client, organizer, value):
    tournament, _ = make_event(organizer, slug="copa")
    client.force_login(organizer)
    response = client.post(
        "/t/copa/manage/stages/new/", {"name": "Final", "format": "swiss", "rounds": value}
    )
    assert response.status_code == 400
    assert response.context["form"].errors["rounds"]
    assert Stage.objects.filter(tournament=tournament).count() == 1


@pytest.mark.parametrize("value", [*HUGE, "0", "-1", "²", "abc"])
def test_finishing_with_a_count_outside_its_range_is_refused(client, organizer, value):
    tournament, _ = make_event(organizer, slug="copa")
    services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    client.force_login(organizer)
    stage = Stage.objects.get(tournament=tournament, order=1)
    listed = client.get(f"/t/copa/manage/stages/{stage.order}/finish/", {"top": value})
    posted = client.post(f"/t/copa/manage/stages/{stage.order}/finish/", {"top": value})
    for response in (listed, posted):
        assert response.status_code == 400
        assert response.context["form"].errors["top"]
        assert not response.context["through"]
    assert Stage.objects.get(pk=stage.pk).status != Stage.Status.FINISHED
    assert Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.FINISHED


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("target", str(10**30)),
        ("target", "4294967306"),
        ("target", "5001"),
        ("penalty_points", str(2**63)),
        ("penalty_points", "501"),
        ("rounds", "2147483648"),
        ("rounds", "41"),
    ],
)
def test_the_new_tournament_form_refuses_numbers_outside_their_range(
    client, organizer, field, value
):
    client.force_login(organizer)
    data = {
        "preset": "cutthroat",
        "name": "Copa",
        "table_size": "4",
        "target": "250",
        "in_play_scoring": "on",
        "rounding": "nearest_5",
        "block_tie": "no_award",
        "penalty_points": "10",
        "stage_name": "Liga",
        "stage_format": "round_robin",
        "tiebreak_1": "match_points",
    }
    response = client.post("/organize/new/", data | {field: value})
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not Tournament.objects.exists()


def test_one_referee_for_every_table_is_one_call_and_nobody_clears_a_table(
    client, organizer, monkeypatch
):
    tournament, round_ = make_event(organizer, players=16, slug="copa")
    referee = event_referee(tournament, user=UserFactory(username="marta"))
    calls = []
    real = services.assign_round_referees
    monkeypatch.setattr(
        services,
        "assign_round_referees",
        lambda *args, **kwargs: calls.append(args) or real(*args, **kwargs),
    )
    client.force_login(organizer)
    everyone = client.post(
        "/t/copa/manage/assign/",
        {"round": round_.pk, "match": "all", "referee": referee.pk},
        follow=True,
    )
    assert messages_of(everyone)[-1] == "marta referees all 4 tables of round 1."
    assert len(calls) == 1
    assert set(round_.matches.values_list("referee", flat=True)) == {referee.pk}

    first = round_.matches.get(table_number=1)
    page = client.get(f"/t/copa/manage/?round={round_.number}").content.decode()
    assert f'<select id="ref-{first.pk}" name="referee"><option value="">nobody' in page
    cleared = client.post("/t/copa/manage/assign/", {"match": first.pk, "referee": ""}, follow=True)
    assert messages_of(cleared)[-1] == "Table 1 has no referee now."
    first.refresh_from_db()
    assert first.referee is None
    assert not first.game.referees.filter(pk=referee.pk).exists()
    assert round_.matches.exclude(referee=None).count() == 3

    nobody = client.post(
        "/t/copa/manage/assign/", {"round": round_.pk, "match": "all", "referee": ""}, follow=True
    )
    assert messages_of(nobody)[-1] == "No table of round 1 has a referee now."
    assert not round_.matches.exclude(referee=None).exists()

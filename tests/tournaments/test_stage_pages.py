"""Every stage option on the organizer's pages: adding stages with their options, pools
into a bracket (through the service, the API and the pages), finishing a stage after
seeing who goes through, the event's settings, draft rounds, void hands and reopened
games, and the tournament's time zone on its pages."""

import datetime as dt
import random

import pytest
from django.utils import timezone, translation

from scoring.models import Game, Hand
from tests.factories import UserFactory, client_for, event_referee
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play
from tournaments.models import Match, MatchSeat, Round, Stage, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def eight(organizer, slug="copa", table_size=4) -> Tournament:
    tournament = services.create_tournament(
        by=organizer, name="Copa", slug=slug, ruleset_key="cutthroat", table_size=table_size
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Player {i:02d}" for i in range(1, 9))
    )
    return tournament


def play_round(round_: Round, by) -> None:
    for match in Match.objects.filter(round=round_, bye=False):
        play(match.game, by, random.Random(match.pk))


# --- adding a stage -------------------------------------------------------------------------


def test_a_pools_stage_with_its_options_from_the_page(client, organizer):
    tournament = eight(organizer)
    client.force_login(organizer)
    response = client.post(
        "/t/copa/manage/stages/new/",
        {"name": "Grupos", "format": "pools", "pools": "2", "advance": "2"},
        follow=True,
    )
    stage = Stage.objects.get(tournament=tournament)
    assert stage.settings == {"pools": 2, "advance": 2}
    assert "Added stage 1: Grupos." in messages_of(response)
    page = response.content.decode()
    assert "2 pools" in page and "top 2 of each pool go through" in page


def test_bracket_options_are_kept(client, organizer):
    tournament = eight(organizer)
    client.force_login(organizer)
    client.post(
        "/t/copa/manage/stages/new/",
        {"name": "Final", "format": "single_elimination", "advance": "2"},
    )
    assert Stage.objects.get(tournament=tournament).settings == {"advance": 2}
    assert "top 2 of each table go through" in client.get("/t/copa/manage/").content.decode()
    # Double elimination is played two a table.
    refused = client.post(
        "/t/copa/manage/stages/new/", {"name": "Doble", "format": "double_elimination"}
    )
    assert "Double elimination is played two a table." in refused.content.decode()
    pairs = eight(organizer, slug="pares", table_size=2)
    client.post("/t/pares/manage/stages/new/", {"name": "Doble", "format": "double_elimination"})
    client.post(
        "/t/pares/manage/stages/new/",
        {"name": "Otra", "format": "double_elimination", "grand_final_reset": "on"},
    )
    stages = {s.name: s.settings for s in Stage.objects.filter(tournament=pairs)}
    # An unticked box is "no": the double bracket is played without a reset.
    assert stages == {"Doble": {"grand_final_reset": False}, "Otra": {"grand_final_reset": True}}
    page = client.get("/t/pares/manage/?stage=1").content.decode()
    assert "no grand final reset" in page


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"name": "", "format": "swiss"}, "name", "This field is required."),
        ({"name": "   ", "format": "swiss"}, "name", "This field is required."),
        ({"name": "S", "format": "swiss", "rounds": "xyz"}, "rounds", "Enter a whole number."),
        ({"name": "S", "format": "nonsense"}, "format", "Select a valid choice."),
        ({"name": "P", "format": "pools"}, "pools", "Say how many pools."),
        ({"name": "P", "format": "pools", "pools": "two"}, "pools", "Enter a whole number."),
        ({"name": "S", "format": "swiss", "pools": "2"}, "pools", "Only a pools stage"),
        ({"name": "S", "format": "swiss", "advance": "2"}, "advance", "Only a single-elim"),
        ({"name": "E", "format": "single_elimination", "advance": "7"}, "advance", "less than"),
    ],
)
def test_the_add_stage_form_refuses_bad_values_in_their_field(
    client, organizer, data, field, message
):
    tournament = eight(organizer)
    client.force_login(organizer)
    response = client.post("/t/copa/manage/stages/new/", data)
    assert response.status_code == 400
    assert any(message in error for error in response.context["form"].errors[field])
    assert not Stage.objects.filter(tournament=tournament).exists()


def test_what_the_engine_refuses_is_said_on_the_form(client, organizer):
    eight(organizer)
    client.force_login(organizer)
    # Three of four cannot go through from a table of four (it must divide the size).
    response = client.post(
        "/t/copa/manage/stages/new/",
        {"name": "E", "format": "single_elimination", "advance": "3"},
    )
    assert response.status_code == 400
    assert "must divide 4" in response.content.decode()


# --- pools into a bracket, three ways ---------------------------------------------------------


def test_pools_into_a_bracket_through_the_service(organizer):
    tournament = eight(organizer)
    pools = services.add_stage(
        tournament, by=organizer, name="Grupos", format="pools", settings={"pools": 2}
    )
    final = services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    round_ = services.generate_round(pools, by=organizer)
    assert sorted(Match.objects.filter(round=round_).values_list("slot", flat=True)) == [
        "P1",
        "P2",
    ]
    services.publish_round(round_, by=organizer)
    play_round(round_, organizer)
    listed = services.finish_preview(pools, by=organizer, per_pool=2)
    assert Stage.objects.get(pk=pools.pk).status != Stage.Status.FINISHED
    assert services.finish_stage(pools, by=organizer, per_pool=2) == final
    assert list(final.entrants.values_list("pk", flat=True).order_by("pk")) == sorted(listed)
    # The pool winners are seeded first: one from each pool.
    first_two = listed[:2]
    slots = MatchSeat.objects.filter(round=round_, entrant_id__in=first_two)
    assert sorted(slots.values_list("match__slot", flat=True)) == ["P1", "P2"]
    bracket = services.generate_round(final, by=organizer)
    assert sorted(bracket.matches.get().seats.values_list("entrant_id", flat=True)) == sorted(
        listed
    )


def test_pools_into_a_bracket_through_the_api(organizer):
    api = client_for(organizer)
    made = api.post(
        "/api/v1/tournaments/",
        {"name": "Copa API", "ruleset": "cutthroat", "table_size": 4},
        format="json",
    )
    slug = made.json()["slug"]
    names = "\n".join(f"P{i}" for i in range(8))
    api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": names}, format="json")
    stage = api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Grupos", "format": "pools", "settings": {"pools": 2, "advance": 2}},
        format="json",
    )
    assert stage.status_code == 201, stage.json()
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Final", "format": "single_elimination"},
        format="json",
    )
    generated = api.post(f"/api/v1/tournaments/{slug}/rounds/", {"stage": 1}, format="json")
    assert generated.status_code == 201, generated.json()
    assert sorted(m["slot"] for m in generated.json()["matches"]) == ["P1", "P2"]
    api.post(f"/api/v1/tournaments/{slug}/rounds/1/publish/", {"stage": 1}, format="json")
    play_round(Round.objects.get(stage__tournament__slug=slug, number=1), organizer)
    finished = api.post(
        f"/api/v1/tournaments/{slug}/stages/1/finish/", {"per_pool": 2}, format="json"
    )
    assert finished.status_code == 200, finished.json()
    assert finished.json()["next"]["name"] == "Final"
    assert Stage.objects.get(tournament__slug=slug, order=2).entrants.count() == 4


def test_the_api_lists_who_goes_through_and_finishes_only_on_that_list(organizer):
    api = client_for(organizer)
    tournament = eight(organizer)
    services.add_stage(
        tournament, by=organizer, name="Grupos", format="pools", settings={"pools": 2, "advance": 2}
    )
    services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    pools = Stage.objects.get(tournament=tournament, order=1)
    round_ = services.generate_round(pools, by=organizer)
    services.publish_round(round_, by=organizer)
    play_round(round_, organizer)
    address = "/api/v1/tournaments/copa/stages/1/finish/"

    assert api.get(address, {"top": "abc"}).status_code == 400
    assert client_for(UserFactory()).get(address).status_code in (403, 404)
    shown = api.get(address, {"per_pool": 2})
    assert shown.status_code == 200, shown.json()
    listed = shown.json()["going_through"]
    assert [entry["pool"] for entry in listed] == ["1", "2", "1", "2"]
    assert {entry["name"] for entry in listed} <= set(
        tournament.entrants.values_list("name", flat=True)
    )
    ids = [entry["id"] for entry in listed]

    # A list that is not who goes through now changes nothing and is answered with the
    # list as it is.
    refused = api.post(address, {"per_pool": 2, "expected": ids[::-1]}, format="json")
    assert refused.status_code == 409, refused.json()
    assert refused.json()["going_through"] == listed
    assert "changed since the list was shown" in refused.json()["detail"]
    assert Stage.objects.get(pk=pools.pk).status == Stage.Status.RUNNING
    assert not Stage.objects.get(tournament=tournament, order=2).entrants.exists()

    done = api.post(address, {"per_pool": 2, "expected": ids}, format="json")
    assert done.status_code == 200, done.json()
    assert done.json()["next"]["name"] == "Final"
    final = Stage.objects.get(tournament=tournament, order=2)
    assert sorted(final.entrants.values_list("pk", flat=True)) == sorted(ids)
    assert final.settings["seeding"] == ids


def test_pools_into_a_bracket_from_the_pages(client, organizer):
    tournament = eight(organizer)
    client.force_login(organizer)
    client.post(
        "/t/copa/manage/stages/new/",
        {"name": "Grupos", "format": "pools", "pools": "2", "advance": "2"},
    )
    client.post("/t/copa/manage/stages/new/", {"name": "Final", "format": "single_elimination"})
    pools = Stage.objects.get(tournament=tournament, order=1)
    client.post("/t/copa/manage/generate/", {"stage": pools.pk})
    round_ = Round.objects.get(stage=pools)
    client.post("/t/copa/manage/publish/", {"round": round_.pk})
    play_round(round_, organizer)
    # The pools stage's own "advance" fills in the top of each pool.
    listed = client.get("/t/copa/manage/stages/1/finish/")
    assert listed.status_code == 200
    assert listed.context["form"]["per_pool"].initial == 2
    names = [e["name"] for e in listed.context["through"]]
    assert len(names) == 4
    # Each pool sends its winner, pool by pool, and the page says which pool.
    assert [e["pool"] for e in listed.context["through"]] == ["1", "2", "1", "2"]
    page = listed.content.decode()
    assert "4 go through to Final" in page
    assert page.index(names[0]) < page.index(names[3])
    assert Stage.objects.get(pk=pools.pk).status == Stage.Status.RUNNING  # nothing changed
    done = client.post(
        "/t/copa/manage/stages/1/finish/",
        {"per_pool": "2", "listed": listed.context["listed"]},
        follow=True,
    )
    assert "Grupos finished; Final is seeded from its standings." in messages_of(done)
    final = Stage.objects.get(tournament=tournament, order=2)
    assert sorted(final.entrants.values_list("name", flat=True)) == sorted(names)
    client.post("/t/copa/manage/generate/", {"stage": final.pk})
    assert Round.objects.get(stage=final).matches.get().seats.count() == 4


# --- finishing a stage ------------------------------------------------------------------------


def test_a_stage_without_a_game_played_is_not_finished(client, organizer):
    tournament = eight(organizer)
    services.add_stage(tournament, by=organizer, name="Liga", format="round_robin")
    client.force_login(organizer)
    for response in (
        client.get("/t/copa/manage/stages/1/finish/"),
        client.post("/t/copa/manage/stages/1/finish/", {"top": "1"}),
    ):
        assert response.status_code == 400
        assert "No game of this stage has been played" in response.context["refused"]
    assert Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.FINISHED


def test_top_and_per_pool_together_are_refused(client, organizer):
    tournament = eight(organizer)
    services.add_stage(tournament, by=organizer, name="G", format="pools", settings={"pools": 2})
    services.add_stage(tournament, by=organizer, name="F", format="single_elimination")
    client.force_login(organizer)
    response = client.get("/t/copa/manage/stages/1/finish/", {"top": "2", "per_pool": "1"})
    assert response.status_code == 400
    assert "not both" in response.context["form"].errors["top"][0]


def test_finishing_the_last_stage_lists_the_final_standings_then_finishes(client, organizer):
    tournament, round_ = make_event(organizer, slug="copa")
    play_round(round_, organizer)
    client.force_login(organizer)
    listed = client.get("/t/copa/manage/stages/1/finish/", {"top": "abc"})
    page = listed.content.decode()
    assert "finishing it finishes the tournament" in page
    assert 'name="top"' not in page  # nobody goes anywhere: no count to give
    assert len(listed.context["through"]) == 8
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING
    # The round robin's later rounds were never played: finishing names them and needs
    # them confirmed (tests/tournaments/test_finish_unplayed.py).
    unplayed = listed.context["unplayed"]
    assert unplayed and unplayed[0] == 2
    client.post(
        "/t/copa/manage/stages/1/finish/",
        {"listed": listed.context["listed"], "unplayed_rounds": ",".join(map(str, unplayed))},
    )
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED


def test_a_ranking_that_changed_since_the_list_was_shown_is_refused_and_listed_again(
    client, organizer
):
    tournament = eight(organizer)
    services.add_stage(
        tournament, by=organizer, name="Liga", format="round_robin", settings={"rounds": 1}
    )
    services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    liga = Stage.objects.get(tournament=tournament, order=1)
    round_ = services.generate_round(liga, by=organizer)
    services.publish_round(round_, by=organizer)
    play_round(round_, organizer)
    client.force_login(organizer)
    listed = client.get("/t/copa/manage/stages/1/finish/", {"top": "4"})
    shown = [int(pk) for pk in listed.context["listed"].split(",")]
    assert len(shown) == 4
    # Between the listing and the confirmation the order changed: the organizer confirms
    # the list they saw, not the one there is now (here: the list they saw, reversed).
    stale = ",".join(str(pk) for pk in reversed(shown))
    refused = client.post("/t/copa/manage/stages/1/finish/", {"top": "4", "listed": stale})
    assert refused.status_code == 400
    assert "changed since the list was shown" in refused.context["refused"]
    assert refused.context["listed"] == listed.context["listed"]  # listed again, as it is
    assert Stage.objects.get(pk=liga.pk).status == Stage.Status.RUNNING
    assert not Stage.objects.get(tournament=tournament, order=2).entrants.exists()
    for bad in ("", "x,y", "1,2,3"):
        answer = client.post("/t/copa/manage/stages/1/finish/", {"top": "4", "listed": bad})
        assert answer.status_code == 400
    done = client.post(
        "/t/copa/manage/stages/1/finish/",
        {"top": "4", "listed": refused.context["listed"]},
        follow=True,
    )
    assert "Liga finished; Final is seeded from its standings." in messages_of(done)
    final = Stage.objects.get(tournament=tournament, order=2)
    assert final.settings["seeding"] == shown


def test_the_finish_service_refuses_a_list_that_is_not_who_goes_through(organizer):
    tournament = eight(organizer)
    liga = services.add_stage(
        tournament, by=organizer, name="Liga", format="round_robin", settings={"rounds": 1}
    )
    services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    round_ = services.generate_round(liga, by=organizer)
    services.publish_round(round_, by=organizer)
    play_round(round_, organizer)
    shown = services.finish_preview(liga, by=organizer, top=4)
    with pytest.raises(services.TournamentError, match="changed since the list was shown"):
        services.finish_stage(liga, by=organizer, top=4, expected=shown[1:] + shown[:1])
    assert Stage.objects.get(pk=liga.pk).status == Stage.Status.RUNNING
    assert services.finish_stage(liga, by=organizer, top=4, expected=shown).name == "Final"


def test_someone_else_cannot_see_or_finish(client, organizer):
    make_event(organizer, slug="copa")
    client.force_login(UserFactory(username="else"))
    assert client.get("/t/copa/manage/stages/1/finish/").status_code == 403
    assert client.post("/t/copa/manage/stages/1/finish/").status_code == 403
    assert client.get("/t/copa/manage/settings/").status_code == 403
    assert client.post("/t/copa/manage/stages/new/", {"name": "x"}).status_code == 403


# --- the event's settings -----------------------------------------------------------------------


def settings_data(**changes) -> dict:
    return {
        "name": "Copa de Otoño",
        "public": "on",
        "time_zone": "America/Puerto_Rico",
        "table_size": "4",
        "target": "200",
        "in_play_scoring": "on",
        "rounding": "nearest_5",
        "block_tie": "no_award",
        "penalty_points": "10",
        "tiebreak_1": "point_differential",
        "tiebreak_2": "match_points",
        "place_1": "3",
        "place_2": "1.5",
        "bye_policy": "nothing",
        "include_live": "on",
        **changes,
    }


def test_settings_are_saved_before_play(client, organizer):
    tournament = eight(organizer)
    client.force_login(organizer)
    assert client.get("/t/copa/manage/settings/").status_code == 200
    response = client.post("/t/copa/manage/settings/", settings_data())
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert tournament.name == "Copa de Otoño"
    assert tournament.time_zone == "America/Puerto_Rico"
    assert tournament.overrides["target"] == 200
    assert tournament.tiebreak_order == ["point_differential", "match_points"]
    assert tournament.placement_points == {"4": {"1": 3, "2": 1.5}}
    assert tournament.bye_policy == "nothing"
    assert tournament.include_live


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("target", "abc", "Enter a whole number."),
        ("target", "", "This field is required."),
        ("name", "x" * 121, "at most 120 characters"),
        ("name", "", "This field is required."),
        ("time_zone", "Mars/Olympus", "Select a valid choice."),
        ("place_1", "lots", "Enter a number."),
        ("place_1", "1001", "less than or equal to 1000"),
        ("bye_policy", "free", "Select a valid choice."),
        ("tiebreak_2", "point_differential", "Each tiebreaker once"),
    ],
)
def test_the_settings_form_refuses_bad_values_in_their_field(
    client, organizer, field, value, message
):
    tournament = eight(organizer)
    client.force_login(organizer)
    response = client.post("/t/copa/manage/settings/", settings_data(**{field: value}))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert any(message in error for errors_of in errors.values() for error in errors_of)
    assert Tournament.objects.get(pk=tournament.pk).name == "Copa"


def test_rules_are_fixed_once_a_round_is_paired_and_counting_once_play_starts(client, organizer):
    tournament, round_ = make_event(organizer, slug="copa")
    client.force_login(organizer)
    page = client.get("/t/copa/manage/settings/")
    assert page.context["locked"] == {"rules": True, "standings": False}
    client.post("/t/copa/manage/settings/", settings_data(target="300"))
    tournament.refresh_from_db()
    assert "target" not in tournament.overrides  # the rules field is disabled
    assert tournament.tiebreak_order == ["point_differential", "match_points"]
    play(round_.matches.exclude(game=None).first().game, organizer, random.Random(1), hands=1)
    assert client.get("/t/copa/manage/settings/").context["locked"]["standings"]
    client.post("/t/copa/manage/settings/", settings_data(tiebreak_1="match_points", tiebreak_2=""))
    tournament.refresh_from_db()
    assert tournament.tiebreak_order == ["point_differential", "match_points"]
    assert tournament.name == "Copa de Otoño"  # what is not fixed still changes


def test_the_service_keeps_counting_fixed_once_play_starts(organizer):
    tournament, round_ = make_event(organizer, slug="copa")
    play(round_.matches.exclude(game=None).first().game, organizer, random.Random(1), hands=1)
    with pytest.raises(services.TournamentConflict):
        services.update_tournament(tournament, by=organizer, tiebreak_order=["wins"])
    with pytest.raises(services.TournamentError):
        services.update_tournament(tournament, by=organizer, name="x" * 121)


def test_tournament_names_are_as_long_as_entrant_names_at_most(client, organizer):
    with pytest.raises(services.TournamentError):
        services.create_tournament(by=organizer, name="x" * 121, ruleset_key="cutthroat")
    client.force_login(organizer)
    data = {
        "preset": "cutthroat",
        "name": "x" * 121,
        "table_size": "4",
        "target": "letters",
        "rounding": "nearest_5",
        "block_tie": "no_award",
        "penalty_points": "10",
        "stage_name": "Liga",
        "stage_format": "round_robin",
        "tiebreak_1": "match_points",
    }
    response = client.post("/organize/new/", data)
    errors = response.context["form"].errors
    assert "at most 120 characters" in errors["name"][0]
    assert errors["target"] == ["Enter a whole number."]
    assert 'inputmode="numeric"' in response.content.decode()


def test_a_new_tournament_can_start_with_pools_and_their_options(client, organizer):
    client.force_login(organizer)
    data = {
        "preset": "cutthroat",
        "name": "Copa de Grupos",
        "table_size": "4",
        "target": "250",
        "rounding": "nearest_5",
        "block_tie": "no_award",
        "penalty_points": "10",
        "stage_name": "Grupos",
        "stage_format": "pools",
        "tiebreak_1": "match_points",
    }
    page = client.get("/organize/new/?preset=cutthroat").content.decode()
    assert 'name="pools"' in page and 'name="advance"' in page
    missing = client.post("/organize/new/", data)
    assert missing.status_code == 400
    assert missing.context["form"].errors["pools"] == ["Say how many pools."]
    assert not Tournament.objects.filter(name="Copa de Grupos").exists()
    made = client.post("/organize/new/", data | {"pools": "4", "advance": "2"})
    assert made.status_code == 302
    stage = Stage.objects.get(tournament__name="Copa de Grupos")
    assert (stage.format, stage.settings) == ("pools", {"pools": 4, "advance": 2})
    wrong = client.post(
        "/organize/new/", data | {"name": "Otra", "stage_format": "round_robin", "pools": "2"}
    )
    assert wrong.context["form"].errors["pools"] == ["Only a pools stage is split into pools."]


def test_the_new_tournament_form_in_spanish(client, organizer):
    client.force_login(organizer)
    with translation.override("es"):
        page = client.get("/organize/new/?preset=cutthroat", HTTP_ACCEPT_LANGUAGE="es")
    html = page.content.decode()
    assert "Nombre" in html
    assert "Two to four play for themselves" not in html
    assert "Rounds" not in html


# --- draft rounds ---------------------------------------------------------------------------


def test_a_draft_round_is_deleted_or_paired_again(client, organizer):
    tournament = eight(organizer)
    stage = services.add_stage(tournament, by=organizer, name="Liga", format="swiss")
    client.force_login(organizer)
    client.post("/t/copa/manage/generate/", {"stage": stage.pk})
    draft = Round.objects.get(stage=stage)
    games = list(Match.objects.filter(round=draft).values_list("game_id", flat=True))
    again = client.post("/t/copa/manage/regenerate-round/", {"round": draft.pk}, follow=True)
    assert "Round 1 paired again, still a draft." in messages_of(again)[-1]
    fresh = Round.objects.get(stage=stage)
    assert fresh.status == Round.Status.DRAFT and fresh.pk != draft.pk
    assert not Game.objects.filter(pk__in=games).exists()
    gone = client.post("/t/copa/manage/delete-round/", {"round": fresh.pk}, follow=True)
    assert "Draft round 1 deleted" in messages_of(gone)[-1]
    assert not Round.objects.filter(stage=stage).exists()
    assert Stage.objects.get(pk=stage.pk).status == Stage.Status.PENDING
    client.post("/t/copa/manage/generate/", {"stage": stage.pk})
    published = Round.objects.get(stage=stage)
    client.post("/t/copa/manage/publish/", {"round": published.pk})
    refused = client.post("/t/copa/manage/delete-round/", {"round": published.pk}, follow=True)
    assert "only a draft round can be deleted" in messages_of(refused)[-1]
    refused = client.post("/t/copa/manage/regenerate-round/", {"round": published.pk}, follow=True)
    assert "only a draft round can be deleted" in messages_of(refused)[-1]
    assert Round.objects.get(pk=published.pk).status == Round.Status.PUBLISHED


# --- void a hand, reopen a game -------------------------------------------------------------------


def test_an_organizer_voids_a_hand_and_reopens_a_game_with_the_reasons_kept(client, organizer):
    _, round_ = make_event(organizer, slug="copa")
    game = round_.matches.exclude(game=None).first().game
    play(game, organizer, random.Random(3))
    client.force_login(organizer)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert "Reopen this game" in page
    empty = client.post(f"/games/{game.pk}/reopen/", {"reopen-reason": " "})
    assert empty.status_code == 400
    assert empty.context["reopen_form"].errors["reason"]
    client.post(f"/games/{game.pk}/reopen/", {"reopen-reason": "Hand 2 was misread"})
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    assert game.reopened_reason == "Hand 2 was misread"
    assert "Hand 2 was misread" in client.get(f"/games/{game.pk}/score/").content.decode()

    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert "Void hand 1" in page
    blank = client.post(f"/games/{game.pk}/score/hands/1/void/", {"reason": "", "key": "v-1"})
    assert blank["X-Capicu-Outcome"] == "refused"
    assert not Hand.objects.get(game=game, number=1, is_current=True).voided
    client.post(f"/games/{game.pk}/score/hands/1/void/", {"reason": "misdeal", "key": "v-2"})
    hand = Hand.objects.get(game=game, number=1, is_current=True)
    assert hand.voided and hand.reason == "misdeal"


def test_a_referee_cannot_reopen_a_game(client, organizer):
    tournament, round_ = make_event(organizer, slug="copa")
    game = round_.matches.exclude(game=None).first().game
    play(game, organizer, random.Random(3))
    referee = event_referee(tournament)
    client.force_login(referee)
    assert "Reopen this game" not in client.get(f"/games/{game.pk}/score/").content.decode()
    assert client.post(f"/games/{game.pk}/reopen/", {"reopen-reason": "x"}).status_code == 403
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


# --- the tournament's time zone ---------------------------------------------------------------


def test_times_on_the_event_pages_are_in_its_time_zone(
    client, organizer, django_capture_on_commit_callbacks
):
    tournament, round_ = make_event(organizer, slug="copa")
    services.update_tournament(tournament, by=organizer, time_zone="America/Puerto_Rico")
    game = round_.matches.exclude(game=None).first().game
    Game.objects.filter(pk=game.pk).update(started_at=dt.datetime(2026, 3, 1, 16, 5, tzinfo=dt.UTC))
    client.force_login(organizer)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "12:05" in page  # four hours behind UTC
    assert "16:05" not in page
    settings_page = client.get("/t/copa/manage/settings/").content.decode()
    assert "Now on the event's clock:" in settings_page
    assert "(America/Puerto_Rico)" in settings_page
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(tournament, by=organizer, time_zone="Europe/Madrid")
    assert "17:05" in client.get(f"/games/{game.pk}/").content.decode()  # read afresh
    assert timezone.get_current_timezone_name() == "UTC"  # nothing leaks past the page
    api = client_for(organizer).get(f"/api/v1/tournaments/{tournament.slug}/")
    assert api.status_code == 200


# --- the manage page reads right --------------------------------------------------------------


def test_the_stage_line_names_the_format_once(client, organizer):
    make_event(organizer, slug="copa")
    client.force_login(organizer)
    page = client.get("/t/copa/manage/").content.decode()
    assert "Round robin: round robin" not in page
    assert "Round robin (round robin)" not in page
    assert "<strong>Round robin</strong> · running" in page


def test_ten_pools_send_their_winners_in_pool_order(organizer):
    tournament = services.create_tournament(
        by=organizer, name="Diez", slug="diez", ruleset_key="cutthroat", table_size=2
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"P{i:02d}" for i in range(1, 21))
    )
    stage = services.add_stage(
        tournament, by=organizer, name="G", format="pools", settings={"pools": 10}
    )
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    play_round(round_, organizer)
    winners = services.finish_preview(stage, by=organizer, per_pool=1)
    pool_of = dict(MatchSeat.objects.filter(round=round_).values_list("entrant_id", "match__slot"))
    assert [pool_of[pk] for pk in winners] == [f"P{n}" for n in range(1, 11)]

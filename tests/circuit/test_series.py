"""Series: created from a template, events made by a click or on schedule, standings
kept current from the events' standings, shown on a page, the API and a CSV."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from circuit.models import Series, SeriesEvent
from circuit.services.series import create_due_events, create_next_event, create_series
from tests.factories import PlayerFactory, UserFactory, client_for
from tournaments import services as events
from tournaments.demo import play

pytestmark = pytest.mark.django_db

BODY = {
    "name": "Friday Cut-Throat Challenge",
    "ruleset": "cutthroat",
    "table_size": 4,
    "stage_format": "swiss",
    "stage_settings": {"rounds": 1},
    "series_points": {"1": 10, "2": 6, "3": 4, "4": 2},
    "best_of": 1,
}


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def run_event(tournament, organizer, players, committed, seed):
    events.update_tournament(tournament, by=organizer, status="registration")
    for player in players:
        events.register_entrant(tournament, by=organizer, player=player)
    events.update_tournament(tournament, by=organizer, status="running")
    round_ = events.generate_round(tournament.stages.get(), by=organizer)
    events.publish_round(round_, by=organizer)
    with committed():
        for match in round_.matches.filter(bye=False):
            play(match.game, organizer, random.Random(seed))


def test_a_series_made_through_the_api_keeps_its_standings_current(organizer, committed):
    api = client_for(organizer)
    made = api.post("/api/v1/series/", BODY, format="json")
    assert made.status_code == 201, made.json()
    slug = made.json()["slug"]
    first = api.post(f"/api/v1/series/{slug}/events/")
    second = api.post(f"/api/v1/series/{slug}/events/")
    assert first.status_code == second.status_code == 201
    assert second.json()["name"] == "Friday Cut-Throat Challenge #2"
    series = Series.objects.get(slug=slug)
    tournaments = [e.tournament for e in SeriesEvent.objects.filter(series=series)]
    assert [t.stages.get().format for t in tournaments] == ["swiss", "swiss"]
    assert tournaments[0].table_size == 4 and tournaments[0].ruleset_key == "cutthroat"

    players = [PlayerFactory() for _ in range(4)]
    run_event(tournaments[0], organizer, players, committed, seed=1)
    standings = client_for(None).get(f"/api/v1/series/{slug}/standings/").json()
    assert [e["played"] for e in standings["events"]] == [True, False]
    assert sorted(line["points"] for line in standings["lines"]) == [2, 4, 6, 10]

    run_event(tournaments[1], organizer, players, committed, seed=2)
    standings = client_for(None).get(f"/api/v1/series/{slug}/").json()["standings"]
    assert [e["played"] for e in standings["events"]] == [True, True]
    for line in standings["lines"]:
        # Best of one: only the better of the two results counts.
        counted = [r for r in line["results"] if r["counted"]]
        assert len(line["results"]) == 2 and len(counted) == 1
        assert line["points"] == max(r["points"] for r in line["results"])
    top = standings["lines"][0]
    assert top["rank"] == 1 and top["points"] == 10

    csv = client_for(None).get(f"/api/v1/series/{slug}/standings.csv")
    body = b"".join(csv.streaming_content).decode()
    header, first_row = body.splitlines()[:2]
    assert header == "series,rank,tied,player,points,wins,best,played,event_1,event_2"
    assert first_row.startswith("Friday Cut-Throat Challenge,1,")

    page = client_for(None).get(f"/series/{slug}/", HTTP_ACCEPT_LANGUAGE="es")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Torneos de la serie" in text and top["name"] in text
    assert "Crear el próximo torneo" not in text  # only its organizer sees the button


def test_the_api_refuses_a_bad_template_and_strangers(organizer):
    api = client_for(organizer)
    bad = api.post("/api/v1/series/", {**BODY, "series_points": {"0": 5}}, format="json")
    assert bad.status_code == 400 and "series_points" in bad.json()["errors"]
    bad = api.post(
        "/api/v1/series/", {**BODY, "table_size": 6, "ruleset": "partners"}, format="json"
    )
    assert bad.status_code == 400
    assert client_for(None).post("/api/v1/series/", BODY, format="json").status_code == 401
    slug = api.post("/api/v1/series/", BODY, format="json").json()["slug"]
    stranger = client_for(UserFactory())
    assert stranger.post(f"/api/v1/series/{slug}/events/").status_code == 403
    assert client_for(None).get("/api/v1/series/no-such/").status_code == 404


def test_beat_makes_the_next_event_when_its_day_comes(organizer):
    when = timezone.now() - timedelta(hours=1)
    series = create_series(
        by=organizer, name="Weekly", ruleset_key="cutthroat", every_days=7, first_event_at=when
    )
    assert create_due_events() == 1
    assert create_due_events() == 0  # not due again for a week
    series.refresh_from_db()
    assert series.next_event_at == when + timedelta(days=7)
    assert series.events.get().tournament.name == "Weekly #1"


def test_the_pages_create_a_series_and_its_next_event(client, organizer):
    client.force_login(organizer)
    form = client.get("/series/new/")
    assert form.status_code == 200
    refused = client.post("/series/new/", {"name": "", "ruleset_key": "cutthroat"})
    assert refused.status_code == 400 and "Give the series a name." in refused.content.decode()
    made = client.post(
        "/series/new/",
        {"name": "Martes", "ruleset_key": "cutthroat", "stage_format": "swiss", "rounds": "2",
         "series_points": "25, 18, 15", "best_of": "", "every_days": ""},
    )  # fmt: skip
    series = Series.objects.get(name="Martes")
    assert made.status_code == 302 and series.series_points == {"1": 25, "2": 18, "3": 15}
    page = client.get(f"/series/{series.slug}/").content.decode()
    assert "Create the next event" in page
    response = client.post(f"/series/{series.slug}/next/")
    tournament = series.events.get().tournament
    assert response.status_code == 302 and response["Location"] == f"/t/{tournament.slug}/manage/"
    assert tournament.stages.get().settings == {"rounds": 2}
    listed = client.get("/series/").content.decode()
    assert "Martes" in listed
    bad = client.post(
        "/series/new/", {"name": "X", "ruleset_key": "cutthroat", "series_points": "a"}
    )
    assert bad.status_code == 400


def test_next_event_of_a_series_someone_else_runs_is_refused(organizer):
    series = create_series(by=organizer, name="Mine", ruleset_key="cutthroat")
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        create_next_event(series, by=UserFactory())

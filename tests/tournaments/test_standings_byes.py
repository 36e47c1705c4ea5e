"""What a bye scores, a stage setting (RULES.md, "Fields that don't divide"): by default a
game won with the average points for of that round's winners; or the stage's average
game total; or nothing. Stored standings, the page and the settings' refusals."""

import random

import pytest

from scoring.models import Game
from tests.factories import UserFactory, client_for
from tests.tournaments.reference import load_rows
from tournaments import services
from tournaments.demo import play
from tournaments.forms import StageForm
from tournaments.models import MatchSeat, Stage
from tournaments.read.standings import compute_standings
from tournaments.read.standings_store import rank_stages, rebuild_standings
from tournaments.services import (
    add_stage,
    create_tournament,
    generate_round,
    publish_round,
    register_entrants,
)
from tournaments.stage_facts import settings_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def dcs_night(organizer, settings: dict, *, policy: str = "win_average", rounds: int = 2):
    """Nine DCS players (four a table): two tables and one bye a round, played out."""
    tournament = create_tournament(
        by=organizer, name="Noche", ruleset_key="dcs", table_size=4, bye_policy=policy
    )
    register_entrants(tournament, by=organizer, text="\n".join(f"P{i}" for i in range(9)))
    stage = add_stage(
        tournament, by=organizer, name="S", format="swiss", settings={"rounds": 2, **settings}
    )
    for number in range(1, rounds + 1):
        round_ = generate_round(stage, by=organizer)
        publish_round(round_, by=organizer)
        for match in round_.matches.filter(bye=False):
            play(match.game, organizer, random.Random(f"bye-{number}-{match.table_number}"))
    return tournament, stage


def winners_mean(stage: Stage, number: int) -> float:
    totals = MatchSeat.objects.filter(
        round__stage=stage, round__number=number, won=True
    ).values_list("total", flat=True)
    return round(sum(totals) / len(totals), 2)


def stage_mean(stage: Stage) -> float:
    totals = MatchSeat.objects.filter(round__stage=stage, total__isnull=False).values_list(
        "total", flat=True
    )
    return round(sum(totals) / len(totals), 2)


@pytest.mark.parametrize(
    ("chosen", "policy", "scores"),
    [
        ({}, "win_average", "round_winners_average"),
        ({}, "nothing", "nothing"),
        ({"bye_scores": "round_winners_average"}, "nothing", "round_winners_average"),
        ({"bye_scores": "stage_average", "bye_match_points": 0.5}, "win_average", "stage_average"),
        ({"bye_scores": "nothing"}, "win_average", "nothing"),
    ],
)
def test_the_stored_standings_score_a_bye_as_the_stage_says(organizer, chosen, policy, scores):
    tournament, stage = dcs_night(organizer, chosen, policy=policy)
    assert Game.objects.filter(status="finished").count() == 4
    stored = rank_stages(tournament)[0][stage.pk]
    entrants, games, byes = load_rows(tournament)[stage.pk]
    assert len(byes) == 2
    counted = settings_for(tournament, stage)
    assert counted.bye_scores == scores
    pure = compute_standings(entrants, games, counted, byes=byes)
    assert [(r.entrant_id, r.rank, r.metrics) for r in stored] == [
        (r.entrant_id, r.rank, r.metrics) for r in pure
    ]
    rows = {row.entrant_id: row for row in stored}
    for bye in byes:
        row = rows[bye.entrant_id]
        played = MatchSeat.objects.filter(
            round__stage=stage, entrant_id=bye.entrant_id, total__isnull=False
        )
        own = sum(played.values_list("total", flat=True))
        wins = played.filter(won=True).count()
        if scores == "nothing":
            assert row.games_played == 1 and row.metrics["points_for"] == own
            assert row.metrics["match_points"] == wins
            continue
        worth = (
            winners_mean(stage, bye.round_number)
            if scores == "round_winners_average"
            else stage_mean(stage)
        )
        assert row.games_played == 2
        assert row.metrics["points_for"] == pytest.approx(own + worth, abs=1e-6)
        assert row.metrics["match_points"] == wins + chosen.get("bye_match_points", 1)

    rebuild_standings(tournament.pk)
    client = client_for(None)
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    spanish = client.get(f"/t/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert f'data-bye-scores="{scores}"' in page and f'data-bye-scores="{scores}"' in spanish
    english, castellano = {
        "round_winners_average": (
            "that round's winners' average points for",
            "al promedio de puntos a favor de los ganadores de esa ronda",
        ),
        "stage_average": ("the stage's average game total", "al total medio por partida"),
        "nothing": ("scores nothing and is not a game played", "no puntúa"),
    }[scores]
    assert english in page and castellano in spanish
    if "bye_match_points" in chosen:
        assert "It is worth 0.5 match points." in page
        assert "Vale 0,5 puntos de partida." in spanish
    else:
        assert "It is worth" not in page and "Vale " not in spanish


def test_a_stage_chooses_what_a_bye_scores_and_an_unknown_choice_is_refused(organizer):
    form = StageForm(
        {"name": "F", "format": "swiss", "bye_scores": "stage_average", "bye_match_points": "2"}
    )
    assert form.is_valid(), form.errors
    assert form.settings() == {"bye_scores": "stage_average", "bye_match_points": 2}
    form = StageForm({"name": "F", "format": "swiss"})
    assert form.is_valid() and "bye_scores" not in form.settings()
    assert not StageForm({"name": "F", "format": "swiss", "bye_scores": "half"}).is_valid()
    assert not StageForm({"name": "F", "format": "swiss", "bye_match_points": "-1"}).is_valid()

    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="dcs", table_size=4)
    client = client_for(organizer)
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    for bad, field in (
        ({"bye_scores": "half"}, "bye_scores"),
        ({"bye_match_points": -1}, "bye_match_points"),
        ({"bye_match_points": "1"}, "bye_match_points"),
        ({"bye_match_points": True}, "bye_match_points"),
    ):
        refused = client.post(
            url,
            {"name": "Odd", "format": "swiss", "settings": bad},
            format="json",
            HTTP_ACCEPT_LANGUAGE="es",
        )
        assert refused.status_code == 400, bad
        body = refused.content.decode()
        assert field in body and ("es uno de" in body or "un número" in body), body
    assert tournament.stages.count() == 0
    added = client.post(
        url,
        {"name": "Final", "format": "swiss", "settings": {"bye_scores": "nothing"}},
        format="json",
    )
    assert added.status_code == 201 and added.json()["settings"] == {"bye_scores": "nothing"}
    with pytest.raises(services.TournamentError):
        services.add_stage(
            tournament, by=organizer, name="X", format="swiss", settings={"bye_scores": 3}
        )
    assert tournament.stages.count() == 1

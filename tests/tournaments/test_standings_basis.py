"""Standings across table sizes: points compared as a share of each table's target (the
default) or as raw totals, a stage setting (RULES.md, "Fields that don't divide")."""

import pytest
from django.contrib.auth import get_user_model

from players.models import Player
from scoring.models import Game
from scoring.rulesets import get_ruleset
from tests.factories import UserFactory, client_for
from tests.tournaments.reference import load_rows
from tournaments import services
from tournaments.forms import StageForm
from tournaments.models import Entrant, Match, MatchSeat, Round, Staff, Stage, Tournament
from tournaments.read.standings import (
    RAW_TOTALS,
    SAME_SCALE,
    TARGET_SHARE,
    EntrantInfo,
    EntrantResult,
    GameRow,
    StandingsSettings,
    compute_standings,
    target_scale,
)
from tournaments.read.standings_store import rank_stages, rebuild_standings
from tournaments.services import record_seat_results
from tournaments.stage_facts import settings_for

CUTTHROAT = target_scale({2: 150, 3: 200, 4: 250}, 250)


def table(game_id, *scores):
    """A game at a table of len(scores): (entrant, total) each, the highest winning."""
    totals = [total for _, total in scores]
    ordered = sorted(totals, reverse=True)
    return GameRow(
        game_id,
        1,
        tuple(
            EntrantResult(entrant, n, total, ordered.index(total) + 1, total == ordered[0])
            for n, (entrant, total) in enumerate(scores)
        ),
    )


# Entrant 1 wins a table of three at its target (200); entrant 4 wins a table of four
# with 240 of 250: as shares of the targets 1 did better, in raw points 4 did.
GAMES = [table(1, (1, 200), (2, 120), (3, 100)), table(2, (4, 240), (5, 90), (6, 60), (7, 30))]
INFOS = [EntrantInfo(n, n) for n in range(7, 0, -1)]  # entrant 1 the worst seed


def by_id(rows):
    return {row.entrant_id: row for row in rows}


def test_a_point_is_worth_the_stage_target_over_its_table_target():
    assert CUTTHROAT.of(4) == CUTTHROAT.unit  # the stage's own size is unchanged
    assert CUTTHROAT.of(3) / CUTTHROAT.unit == 250 / 200
    assert CUTTHROAT.of(2) / CUTTHROAT.unit == 250 / 150
    at_three = target_scale({2: 150, 3: 200, 4: 250}, 200)
    assert at_three.of(3) == at_three.unit and at_three.of(4) / at_three.unit == 200 / 250
    # Tables that all play to one target (two-box's 150 at four to six) keep raw points.
    assert target_scale({4: 150, 5: 150, 6: 150}, 150) == SAME_SCALE


@pytest.mark.parametrize(
    ("basis", "first", "points"), [(TARGET_SHARE, 1, 250), (RAW_TOTALS, 4, 240)]
)
def test_points_for_compare_shares_of_the_target_unless_the_stage_counts_raw_totals(
    basis, first, points
):
    settings = StandingsSettings(order=("points_for", "seed"), points_basis=basis, scale=CUTTHROAT)
    rows = compute_standings(INFOS, GAMES, settings)
    assert rows[0].entrant_id == first and rows[0].metrics["points_for"] == points
    one, four = by_id(rows)[1].metrics, by_id(rows)[4].metrics
    if basis == TARGET_SHARE:
        # The opponents' mean at the table of three (110) counts 110 x 250/200.
        assert one["points_for"] == 250 and one["points_against"] == 137.5
        assert one["point_differential"] == 112.5 and one["average_points"] == 250
    else:
        assert one["points_for"] == 200 and one["points_against"] == 110
        assert one["point_differential"] == 90
    assert four["points_for"] == 240 and four["points_against"] == 60  # a table of four


def test_a_field_at_the_stages_own_table_size_is_the_same_on_either_basis():
    games = [table(1, (1, 250), (2, 120), (3, 100), (4, 5)), table(2, (1, 40), (2, 250))]
    games[1] = table(2, (1, 40), (2, 250), (3, 90), (4, 10))
    ranked = [
        [
            (row.entrant_id, row.rank, row.metrics)
            for row in compute_standings(
                INFOS[3:], games, StandingsSettings(points_basis=basis, scale=CUTTHROAT)
            )
        ]
        for basis in (TARGET_SHARE, RAW_TOTALS)
    ]
    assert ranked[0] == ranked[1]
    assert {e: m["points_for"] for e, _, m in ranked[0]} == {1: 290, 2: 370, 3: 190, 4: 15}


# --- stored: the database's sums, the page and the API -------------------------------------

pytestmark_db = pytest.mark.django_db


def _event(basis: str | None) -> tuple[Tournament, Stage]:
    """Cutthroat at tables of four, one round with a table of three and one of four,
    played to the scores of ``GAMES`` (entrants named E1 ... E7)."""
    user = get_user_model().objects.first() or UserFactory()
    tournament = Tournament.objects.create(
        name="Mixed",
        slug=f"mixed-{basis or 'default'}",
        ruleset_key="cutthroat",
        table_size=4,
        created_by=user,
        public=True,
        tiebreak_order=["points_for", "seed"],
    )
    Staff.objects.create(tournament=tournament, user=user, role=Staff.Role.ORGANIZER)
    settings = {"points_basis": basis} if basis else {}
    stage = Stage.objects.create(
        tournament=tournament, order=1, name="S1", format="swiss", settings=settings
    )
    people = {
        n: Entrant.objects.create(
            tournament=tournament,
            name=f"E{n}",
            player=Player.objects.create(display_name=f"E{n}"),
            seed=8 - n,
        )
        for n in range(1, 8)
    }
    round_ = Round.objects.create(stage=stage, number=1, status="published")
    for number, row in enumerate(GAMES, start=1):
        names = "ABCD"[: len(row.entrants)]
        game = Game.objects.create(
            ruleset_key="cutthroat",
            ruleset=get_ruleset("cutthroat", players=len(names)).to_dict(),
            status="finished",
            winner=names[0],
            followed=True,
            totals={name: r.total for name, r in zip(names, row.entrants, strict=True)},
            tallies={},
        )
        for position, name in enumerate(names):
            game.sides.create(position=position, name=name)
        match = Match.objects.create(round=round_, table_number=number, game=game)
        for position, result in enumerate(row.entrants):
            MatchSeat.objects.create(
                match=match, round=round_, entrant=people[result.entrant_id], position=position
            )
        record_seat_results(game)
    return tournament, stage


@pytestmark_db
@pytest.mark.parametrize(
    ("basis", "first", "points"),
    [(None, "E1", 250), ("target_share", "E1", 250), ("raw", "E4", 240)],
)
def test_the_stored_standings_count_the_stages_basis_as_the_pure_module_does(basis, first, points):
    tournament, stage = _event(basis)
    stored = rank_stages(tournament)[0][stage.pk]
    entrants, games, byes = load_rows(tournament)[stage.pk]
    pure = compute_standings(entrants, games, settings_for(tournament, stage), byes=byes)
    assert [(r.entrant_id, r.rank, r.metrics) for r in stored] == [
        (r.entrant_id, r.rank, r.metrics) for r in pure
    ]
    names = dict(Entrant.objects.filter(tournament=tournament).values_list("pk", "name"))
    assert names[stored[0].entrant_id] == first and stored[0].metrics["points_for"] == points

    rebuild_standings(tournament.pk)
    client = client_for(None)
    answer = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    shown = basis or "target_share"
    assert answer["points_basis"] == shown
    assert answer["rows"][0]["entrant"]["name"] == first
    assert answer["rows"][0]["metrics"]["points_for"] == points
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    spanish = client.get(f"/t/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert f'data-points-basis="{shown}"' in page
    if shown == "raw":
        assert "Points for and against are raw totals" in page
        assert "Los puntos a favor y en contra son los totales tal cual" in spanish
    else:
        assert "count as a share of each table's target" in page
        assert "cuentan como una parte de la meta de cada mesa" in spanish


@pytestmark_db
def test_a_stage_chooses_its_basis_on_the_form_and_the_api_and_an_unknown_one_is_refused():
    form = StageForm({"name": "Final", "format": "swiss", "points_basis": "raw"})
    assert form.is_valid(), form.errors
    assert form.settings() == {"points_basis": "raw"}
    form = StageForm({"name": "Final", "format": "swiss"})
    assert form.is_valid() and "points_basis" not in form.settings()
    assert not StageForm({"name": "F", "format": "swiss", "points_basis": "rank"}).is_valid()

    tournament, _ = _event(None)
    client = client_for(tournament.created_by)
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    refused = client.post(
        url,
        {"name": "Odd", "format": "swiss", "settings": {"points_basis": "rank"}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="es",
    )
    assert refused.status_code == 400 and "points_basis" in refused.content.decode()
    assert tournament.stages.count() == 1
    added = client.post(
        url,
        {"name": "Final", "format": "swiss", "settings": {"points_basis": "raw"}},
        format="json",
    )
    assert added.status_code == 201 and added.json()["settings"] == {"points_basis": "raw"}
    with pytest.raises(services.TournamentError):
        services.add_stage(
            tournament,
            by=tournament.created_by,
            name="X",
            format="swiss",
            settings={"points_basis": 3},
        )

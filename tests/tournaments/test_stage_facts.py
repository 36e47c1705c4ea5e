"""What both sides read of a stage: its field, its draw order and how its results score."""

import pytest

from tests.factories import UserFactory
from tournaments.models import Entrant
from tournaments.read.standings import WIN_POINTS, StandingsSettings, bye_match_points
from tournaments.services import add_stage, create_tournament, register_entrants
from tournaments.stage_facts import (
    draw_order,
    is_bracket,
    points_for_place,
    settings_for,
    stage_entrants,
)

pytestmark = pytest.mark.django_db

NAMES = [f"Player {i:02d}" for i in range(1, 9)]


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def event(organizer, **kwargs):
    tournament = create_tournament(
        by=organizer, name="Copa", ruleset_key="cutthroat", table_size=2, **kwargs
    )
    register_entrants(tournament, by=organizer, text="\n".join(NAMES))
    return tournament


def test_a_stage_that_names_no_entrants_fields_every_entrant_of_the_event(organizer):
    tournament = event(organizer)
    stage = add_stage(tournament, by=organizer, name="Swiss", format="swiss")
    assert {e.name for e in stage_entrants(stage)} == set(NAMES)
    assert not is_bracket(stage)


def test_a_stage_with_check_in_fields_only_those_checked_in(organizer):
    tournament = event(organizer)
    stage = add_stage(tournament, by=organizer, name="Swiss", format="swiss")
    stage.check_in_required = True
    stage.save(update_fields=["check_in_required"])
    Entrant.objects.filter(tournament=tournament, name__in=NAMES[:3]).update(checked_in=True)
    assert sorted(e.name for e in stage_entrants(stage)) == NAMES[:3]


def test_a_bracket_is_drawn_from_the_stage_seeding_first_then_the_event_seeds(organizer):
    tournament = event(organizer)
    by_name = dict(Entrant.objects.filter(tournament=tournament).values_list("name", "pk"))
    chosen = [by_name["Player 05"], by_name["Player 02"]]
    stage = add_stage(
        tournament,
        by=organizer,
        name="Cup",
        format="single_elimination",
        settings={"seeding": chosen},
    )
    assert is_bracket(stage)
    rest = [by_name[name] for name in NAMES if by_name[name] not in chosen]
    assert draw_order(stage) == chosen + rest


def test_match_points_are_the_placement_points_where_set_else_a_win(organizer):
    settings = StandingsSettings(placement_points={4: {1: 3, 2: 1.5}})
    assert points_for_place(settings, 4, 1, True) == 3
    assert points_for_place(settings, 4, 2, False) == 1.5
    assert points_for_place(settings, 4, 4, False) == 0  # a placement the table leaves out
    assert points_for_place(settings, 2, 1, True) == WIN_POINTS
    assert points_for_place(settings, 2, 2, False) == 0
    # A bye counts a win at a table of two unless the stage says otherwise.
    assert bye_match_points(settings) == WIN_POINTS
    tournament = event(organizer, placement_points={"2": {"1": 2, "2": 0.5}})
    stage = add_stage(tournament, by=organizer, name="Swiss", format="swiss")
    assert bye_match_points(settings_for(tournament, stage)) == 2

"""Finishing a stage with rounds not played yet names them and needs them confirmed, in
the service, the API and the organizer's page; nothing changes until then."""

import pytest

from tests.factories import UserFactory, client_for
from tests.tournaments.test_stage_pages import eight, play_round
from tournaments import services
from tournaments.models import Stage, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def swiss_after_one_round(organizer) -> Stage:
    """Eight players, a three-round Swiss with its first round played, a bracket after."""
    tournament = eight(organizer)
    swiss = services.add_stage(
        tournament, by=organizer, name="Suizo", format="swiss", settings={"rounds": 3}
    )
    services.add_stage(tournament, by=organizer, name="Final", format="single_elimination")
    first = services.generate_round(swiss, by=organizer)
    services.publish_round(first, by=organizer)
    play_round(first, organizer)
    return swiss


def untouched(stage: Stage) -> bool:
    stage.refresh_from_db()
    following = Stage.objects.get(tournament=stage.tournament, order=stage.order + 1)
    return stage.status == Stage.Status.RUNNING and not following.entrants.exists()


def test_the_service_names_the_unplayed_rounds_and_finishes_once_they_are_confirmed(
    organizer, swiss_after_one_round
):
    swiss = swiss_after_one_round
    assert services.rounds_unplayed(swiss) == [2, 3]
    with pytest.raises(services.RoundsUnplayed, match="Rounds 2, 3 of Suizo are not played"):
        services.finish_stage(swiss, by=organizer, top=4)
    assert untouched(swiss)
    # Confirming other rounds than those unplayed is no confirmation.
    with pytest.raises(services.RoundsUnplayed):
        services.finish_stage(swiss, by=organizer, top=4, unplayed_rounds=[3])
    assert untouched(swiss)
    # A draft round is not played either.
    draft = services.generate_round(swiss, by=organizer)
    assert draft.number == 2 and services.rounds_unplayed(swiss) == [2, 3]
    services.delete_draft_round(draft, by=organizer)
    services.finish_stage(swiss, by=organizer, top=4, unplayed_rounds=[3, 2])
    swiss.refresh_from_db()
    assert swiss.status == Stage.Status.FINISHED


def test_a_stage_with_every_round_played_needs_no_confirmation(organizer):
    tournament = eight(organizer)
    swiss = services.add_stage(
        tournament, by=organizer, name="Suizo", format="swiss", settings={"rounds": 1}
    )
    first = services.generate_round(swiss, by=organizer)
    services.publish_round(first, by=organizer)
    play_round(first, organizer)
    assert services.rounds_unplayed(swiss) == []
    assert services.finish_stage(swiss, by=organizer) is None
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED


def test_the_api_lists_the_unplayed_rounds_and_refuses_until_they_are_confirmed(
    organizer, swiss_after_one_round
):
    api = client_for(organizer)
    address = "/api/v1/tournaments/copa/stages/1/finish/"
    shown = api.get(address, {"top": 4})
    assert shown.status_code == 200, shown.json()
    assert shown.json()["unplayed_rounds"] == [2, 3]
    refused = api.post(address, {"top": 4}, format="json")
    assert refused.status_code == 409, refused.json()
    assert "Rounds 2, 3 of Suizo are not played" in refused.json()["detail"]
    assert "unplayed_rounds" in refused.json()["errors"]
    assert untouched(swiss_after_one_round)
    bad = api.post(address, {"top": 4, "unplayed_rounds": ["two"]}, format="json")
    assert bad.status_code == 400
    done = api.post(address, {"top": 4, "unplayed_rounds": [2, 3]}, format="json")
    assert done.status_code == 200, done.json()
    assert done.json()["next"]["name"] == "Final"


def test_the_page_warns_of_the_unplayed_rounds_and_finishes_only_when_ticked(
    client, organizer, swiss_after_one_round
):
    client.force_login(organizer)
    address = "/t/copa/manage/stages/1/finish/"
    listed = client.get(address, {"top": "4"})
    page = listed.content.decode()
    assert "Rounds 2, 3 of this stage are not played yet." in page
    assert 'name="unplayed_rounds" value="2,3" required' in page
    refused = client.post(address, {"top": "4", "listed": listed.context["listed"]})
    assert refused.status_code == 400
    assert "Rounds 2, 3 of Suizo are not played" in refused.content.decode()
    assert untouched(swiss_after_one_round)
    done = client.post(
        address,
        {"top": "4", "listed": listed.context["listed"], "unplayed_rounds": "2,3"},
    )
    assert done.status_code == 302
    swiss_after_one_round.refresh_from_db()
    assert swiss_after_one_round.status == Stage.Status.FINISHED

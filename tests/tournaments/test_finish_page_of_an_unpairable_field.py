"""The finish page of a stage whose field its format cannot pair (a double elimination
of three) says why it cannot finish; it is never a server error."""

import pytest

from tests.factories import UserFactory
from tournaments import services

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("format", "names"), [("double_elimination", "A\nB\nC"), ("single_elimination", "A")]
)
def test_the_finish_page_of_a_bracket_too_small_to_pair_says_why(client, format, names):
    organizer = UserFactory()
    tournament = services.create_tournament(
        by=organizer, name="Copa", ruleset_key="cutthroat", table_size=2
    )
    services.register_entrants(tournament, by=organizer, text=names)
    stage = services.add_stage(tournament, by=organizer, name="Llave", format=format)
    assert services.rounds_unplayed(stage) == []
    client.force_login(organizer)
    page = client.get(f"/t/{tournament.slug}/manage/stages/{stage.order}/finish/")
    assert page.status_code == 400
    assert "No game of this stage has been played" in page.content.decode()

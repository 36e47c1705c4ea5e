"""Times on the event's pages show in one format with the event's zone named: the
organizer's disputes, the event's card on the home page and its games' pages."""

import datetime as dt

import pytest
from django.urls import reverse

from scoring import officiating
from scoring.models import Dispute, Game
from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

MOMENT = dt.datetime(2026, 11, 24, 22, 5, tzinfo=dt.UTC)
SHOWN = "2026-11-24 18:05 (America/Puerto_Rico)"


@pytest.fixture
def event():
    organizer = UserFactory(username="organizer")
    tournament = services.create_tournament(
        by=organizer, name="Copa", ruleset_key="cutthroat", time_zone="America/Puerto_Rico"
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i}" for i in range(6))
    )
    stage = services.add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    game = round_.matches.order_by("table_number").first().game
    return organizer, tournament, game


def test_the_disputes_part_shows_when_a_dispute_opened_with_the_zone_named(client, event):
    organizer, tournament, game = event
    officiating.open_dispute(game, by=organizer, note="Who played the 6-4?")
    Dispute.objects.filter(game=game).update(opened_at=MOMENT)
    client.force_login(organizer)
    page = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    part = page[page.index('id="disputes"') :]
    part = part[: part.index("</section>")]
    assert f"organizer, {SHOWN}" in part
    assert ", 22:05<" not in part and ", 18:05<" not in part  # no bare clock time


def test_the_card_and_the_game_page_show_times_with_the_zone_named(client, event):
    _organizer, tournament, game = event
    Tournament.objects.filter(pk=tournament.pk).update(updated_at=MOMENT, public=True)
    home = client.get("/").content.decode()
    card = home[home.index(f'href="/t/{tournament.slug}/"') :]
    card = card[: card.index("</li>")]
    assert f"updated {SHOWN}" in card
    Game.objects.filter(pk=game.pk).update(started_at=MOMENT, finished_at=MOMENT)
    page = client.get(reverse("game-page", args=[game.pk])).content.decode()
    assert f"Started {SHOWN} · finished {SHOWN}" in page
    spanish = client.get(reverse("game-page", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="es")
    assert f"Empezó {SHOWN} · terminó {SHOWN}" in spanish.content.decode()


def test_the_check_in_page_says_when_check_in_opens_with_the_zone_named(client):
    from players import registration

    organizer = UserFactory(username="organizer")
    tournament = services.create_tournament(
        by=organizer, name="Viernes", ruleset_key="cutthroat", time_zone="America/Puerto_Rico"
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    opens = dt.datetime(2099, 11, 24, 22, 5, tzinfo=dt.UTC)
    registration.open_registration(
        tournament, by=organizer, check_in_opens_at=opens, check_in_closes_at=opens.replace(hour=23)
    )
    ana = UserFactory(username="ana")
    registration.enter(tournament, by=ana, name="Ana Rivera", new_player=True)
    client.force_login(ana)
    page = client.get(f"/t/{tournament.slug}/check-in/").content.decode()
    assert (
        "Check-in opens 2099-11-24 18:05 (America/Puerto_Rico) and closes "
        "2099-11-24 19:05 (America/Puerto_Rico)." in page
    )
    # Tapped before it opens, the refusal says the same times the same way.
    refused = client.post(
        f"/t/{tournament.slug}/check-in/", {"action": "check-in"}, follow=True
    ).content.decode()
    assert (
        "Check-in is open from 2099-11-24 18:05 (America/Puerto_Rico) to "
        "2099-11-24 19:05 (America/Puerto_Rico)." in refused
    )

"""The world the access tests walk: a private event, a draft round, another event and the
outsiders who try every route on them.

It is built once per module inside a transaction that is rolled back at the end, and each
request runs in a savepoint of its own, so a write that should have been refused is caught
by the comparison of the tables and undone before the next request.
"""

from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client

from circuit.services import ladders as ladder_services
from circuit.services import series as series_services
from config.health import ROLES, heartbeat_key, write_heartbeat
from players import identity, registration
from players.models import EntryRequest, Player
from scoring import officiating
from scoring import services as scoring
from tests.factories import PlayerFactory
from tournaments import services

# Every name and address of the private things has this in it; no outsider's answer may.
SECRET = "zafiro"

# A one-pixel PNG: the dispute's photo.
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)

OUTSIDERS = ("anonymous", "outsider", "player", "referee", "organizer")


@dataclass
class World:
    """The objects the routes' parameters are filled from, and who asks."""

    users: dict = field(default_factory=dict)
    # target -> {parameter key -> value}; a target is "private" (the private event and
    # what hangs from it), "other" (the outsiders' public event) or "draft" (its round in
    # draft).
    values: dict = field(default_factory=dict)
    # kind of asker -> user (None: signed out), and the client signed in as them.
    users_of: dict = field(default_factory=dict)
    clients: dict = field(default_factory=dict)


def _user(username: str):
    return get_user_model().objects.create_user(username, email=f"{username}@example.org")


def _event(organizer, *, name: str, slug: str, public: bool, players: list[Player]):
    """A running four-player round robin with its first round published."""
    tournament = services.create_tournament(
        by=organizer, name=name, slug=slug, ruleset_key="cutthroat", table_size=4, public=public
    )
    services.update_tournament(tournament, by=organizer, status="registration")
    for player in players:
        services.register_entrant(tournament, by=organizer, player=player)
    stage = services.add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 3}
    )
    services.update_tournament(tournament, by=organizer, status="running")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    return tournament, stage, round_


def _staff(tournament, organizer, user, role: str):
    invitation = services.invite_staff(tournament, by=organizer, username=user.username, role=role)
    services.accept_invitation(invitation, by=user)


def _first_hand(game, referee):
    scoring.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 10, "C": 15, "D": 20},
        leader="A",
    )


def build_world() -> World:
    world = World()
    u = world.users
    for name in ("p_org", "p_ref", "p_invitee", "o_org", "o_ref", "o_player", "outsider"):
        u[name] = _user(name)
    own_player = PlayerFactory(display_name="Olga Jugadora", user=u["o_player"])

    # The private event: round 1 published with a game in progress, round 2 in draft.
    p_players = [PlayerFactory() for _ in range(8)]
    private, p_stage, p_round = _event(
        u["p_org"], name="Copa Zafiro", slug="copa-zafiro", public=False, players=p_players
    )
    _staff(private, u["p_org"], u["p_ref"], "referee")
    p_match = p_round.matches.order_by("table_number").first()
    services.assign_referee(p_match, u["p_ref"], by=u["p_org"])
    p_game = p_match.game
    _first_hand(p_game, u["p_ref"])
    photo = SimpleUploadedFile("table.png", PNG, content_type="image/png")
    dispute = officiating.open_dispute(p_game, by=u["p_ref"], note="Mesa", hand=1, photos=[photo])
    services.generate_round(p_stage, by=u["p_org"])
    invitation = services.invite_staff(
        private, by=u["p_org"], username=u["p_invitee"].username, role="referee"
    )
    registration.open_registration(private, by=u["p_org"])
    application = registration.enter(private, by=u["p_ref"], new_player=True)
    identity.issue_claim_code(p_players[0], by=u["p_org"])
    series = series_services.create_series(
        by=u["p_org"], name="Serie Zafiro", ruleset_key="cutthroat", public=False
    )
    series_services.create_next_event(series, by=u["p_org"])
    ladder = ladder_services.create_session(
        by=u["p_org"], name="Escalera Zafiro", ruleset_key="cutthroat", public=False
    )
    ladder_services.check_in(ladder, by=u["p_org"], player=p_players[1])
    # The invitee's own player asks to take in one of the private event's players, and is
    # asked to sit in the private ladder: requests only they or the event's organizer answer.
    invitee_player = PlayerFactory(display_name="Ines Invitada", user=u["p_invitee"])
    merge_request = identity.request_merge(p_players[2], by=u["p_invitee"])
    ladder_request = ladder_services.ask(ladder, by=u["p_org"], player=invitee_player)
    # ... and the private event's organizer entered her name: she is asked about it.
    services.register_entrant(private, by=u["p_org"], name=invitee_player.display_name)
    entry_request = EntryRequest.objects.get(player=invitee_player)

    # The outsiders' own event: public, with its organizer, referee and a player whose
    # account is linked.
    o_players = [own_player] + [PlayerFactory() for _ in range(7)]
    other, o_stage, o_round = _event(
        u["o_org"], name="Abierto del Parque", slug="abierto", public=True, players=o_players
    )
    _staff(other, u["o_org"], u["o_ref"], "referee")
    o_match = o_round.matches.order_by("table_number").first()
    services.assign_referee(o_match, u["o_ref"], by=u["o_org"])
    _first_hand(o_match.game, u["o_ref"])
    o_draft = services.generate_round(o_stage, by=u["o_org"])
    o_draft_match = o_draft.matches.order_by("table_number").first()

    private_values = {
        "t.slug": private.slug,
        "tournaments.slug": private.slug,
        "series.slug": series.slug,
        "ladders.slug": ladder.slug,
        "games.pk": p_game.pk,
        "matches.pk": p_match.pk,
        "entrants.pk": p_round.matches.first().seats.first().entrant_id,
        "stages.pk": p_stage.pk,
        "stages.order": p_stage.order,
        "rounds.number": p_round.number,
        "hands.number": 1,
        "disputes.dispute_id": dispute.pk,
        "disputes.pk": dispute.pk,
        "photos.photo_id": dispute.photos.first().pk,
        "players.pk": p_players[0].pk,
        "invitations.pk": invitation.pk,
        "roles.pk": private.staff.get(user=u["p_ref"]).pk,
        "applications.pk": application.pk,
        "merge-requests.pk": merge_request.pk,
        "requests.pk": ladder_request.pk,
        "entry-requests.pk": entry_request.pk,
        "events.event_id": 1,
        "undo.event_id": 1,
    }
    world.values["private"] = private_values
    world.values["other"] = other_values = {
        "t.slug": other.slug,
        "tournaments.slug": other.slug,
        "games.pk": o_match.game_id,
        "matches.pk": o_match.pk,
        "entrants.pk": o_match.seats.first().entrant_id,
        "stages.pk": o_stage.pk,
        "stages.order": o_stage.order,
        "rounds.number": o_round.number,
        "hands.number": 1,
        "players.pk": own_player.pk,
    }
    # The other event's round in draft: its staff's only, though the event is public.
    world.values["draft"] = {
        **other_values,
        "games.pk": o_draft_match.game_id,
        "matches.pk": o_draft_match.pk,
        "rounds.number": o_draft.number,
    }
    world.users_of = {
        "anonymous": None,
        "outsider": u["outsider"],
        "player": u["o_player"],
        "referee": u["o_ref"],
        "organizer": u["o_org"],
        "insider": u["p_org"],
    }
    return world


@pytest.fixture(scope="module")
def built(django_db_setup, django_db_blocker):
    """The world, built once for the module and rolled back after it."""
    with django_db_blocker.unblock(), transaction.atomic():
        world = build_world()
        for kind, user in world.users_of.items():
            client = Client()
            if user is not None:
                client.force_login(user)
            world.clients[kind] = client
        yield world
        transaction.set_rollback(True)


@pytest.fixture
def world(built, django_db_blocker):
    """The module's world, with the database open to the test.

    The world is a running installation: its worker and beat have just been heard from,
    so the health check answers every asker with its 200 (without them it is a 503)."""
    write_heartbeat("worker")
    write_heartbeat("beat")
    with django_db_blocker.unblock():
        yield built
    for role in ROLES:  # a shared cache (Redis) keeps them for the tests after
        cache.delete(heartbeat_key(role))

"""The API under a schema-driven fuzzer: every operation, as anonymous, a referee and an
organizer, with valid and invalid requests generated from the OpenAPI schema.

Each generated request is sent as generated (mostly unknown ids and slugs) by one of the
three in turn, and with its path pointing at a real event by all three, so the fuzzer also
reaches the code behind the 404s as each of them. (As generated, the answer is nearly
always the same refusal whoever asks: sending it three times cost a third of the run.)
Checks: no server error; every status, content type, header and body is the one the
schema documents; invalid requests are refused with a 4xx. The number of examples is
fixed so the run fits CI (``CAPICU_FUZZ_EXAMPLES`` raises it for a longer hunt).

The event is built once for the module and each operation's examples run in a savepoint
rolled back after them, as a fresh event per operation would see it. A method the schema
does not declare on a path is asked once per path, not again for each of its operations
(the same request to the same address). The stored games are replayed after every example
that sent a write (the replay itself, not the command around it); an example of reads alone
cannot change them.
"""

import itertools
import json
import os
import random

import pytest
import schemathesis
from django.core import signals
from django.core.cache import cache
from django.db import close_old_connections, transaction
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.generation.meta import CoverageScenario
from schemathesis.specs.openapi.checks import positive_data_acceptance

from config.wsgi import application
from scoring.models import Game
from scoring.selectors import replay_all
from tests.factories import UserFactory, event_referee
from tests.test_pages import make_event
from tournaments import services
from tournaments.demo import play

EXAMPLES = int(os.environ.get("CAPICU_FUZZ_EXAMPLES", "12"))
# Data the schema allows may still break a rule of the game or of the event (a table size
# the preset does not play, a name already entered): that is a 400 with its reason, so
# schema-valid data is not required to be accepted. Every other check runs.
EXCLUDED = [positive_data_acceptance]


def _raw_schema() -> dict:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


schema = schemathesis.openapi.from_dict(_raw_schema())
schema.app = application
schema.location = "/api/schema/"
schema.config.generation.update(
    modes=[schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    deterministic=True,
    # Query parameters the schema does not name are ignored, as HTTP APIs commonly do;
    # the fuzzer's invalid requests are the ones that break what the schema does say.
    allow_extra_parameters=False,
)


SAFE = {"GET", "HEAD", "OPTIONS"}
# (path, method) of the undeclared methods already asked, across the module's operations.
ASKED_UNDECLARED: set[tuple[str, str]] = set()
# Whose turn it is to send the next case as generated.
TURNS = itertools.count()


@pytest.fixture(scope="module")
def built(django_db_setup, django_db_blocker):
    """The event, built once for the module in a transaction rolled back after it."""
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # as tasks_in_process does for each test
    try:
        with django_db_blocker.unblock(), transaction.atomic():
            world = _world()
            app.conf.task_always_eager = eager
            yield world
            transaction.set_rollback(True)
    finally:
        app.conf.task_always_eager = eager


@pytest.fixture
def world(built, db):
    """A running public event with a played and a live table, and its people's tokens;
    what an operation's examples write is rolled back after them (the test's savepoint)."""
    # The fuzzer calls the WSGI application itself, whose request_finished signal would
    # close the test's database connection (and its transaction) after every request;
    # Django's own test client turns that off the same way.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield built
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _world() -> dict:
    organizer = UserFactory(username="fuzz-organizer")
    tournament, round_ = make_event(organizer, players=8, slug="fuzz")
    referee = event_referee(tournament, user=UserFactory(username="fuzz-referee"))
    matches = list(round_.matches.order_by("table_number"))
    for match in matches:
        services.assign_referee(match, referee, by=organizer)
    play(matches[0].game, referee, random.Random(1))
    play(matches[1].game, referee, random.Random(2), hands=1)
    tokens = {
        "anonymous": None,
        "referee": Token.objects.create(user=referee).key,
        "organizer": Token.objects.create(user=organizer).key,
    }
    return {
        "tokens": tokens,
        "real": {
            "slug": "fuzz",
            "id": matches[1].game_id,
            "pk": matches[1].pk,
            "number": 1,
            "order": 1,
            "n": 1,
            "key": "cutthroat",
            "kind": "results",
            "action": "check-in",
            "answer": "accept",
        },
        "entrant": tournament.entrants.first().pk,
    }


def _point_at_real(case, real: dict) -> None:
    """Point the case's path at the real event."""
    case.path_parameters = {
        name: real.get(name, value) for name, value in case.path_parameters.items()
    }


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    database=None,
)
def test_the_api_answers_every_request_as_its_schema_says(case, world):
    undeclared = _scenario(case) == CoverageScenario.UNSPECIFIED_HTTP_METHOD
    if undeclared and (case.path, case.method) in ASKED_UNDECLARED:
        return  # answered already, through another operation on the same path
    tokens = list(world["tokens"].values())
    if case.path_parameters:  # as generated by one in turn, then the real event's by all
        send(case, tokens[next(TURNS) % len(tokens)])
        _point_at_real(case, world["real"])
    for token in tokens:
        send(case, token)
    # Whatever was accepted, every stored game still replays to its totals.
    assert Game.objects.exists()
    if case.method.upper() not in SAFE:
        played = Game.objects.exclude(status=Game.Status.SCHEDULED)
        differ = [game.describe() for game in replay_all(played) if not game.agrees]
        assert not differ, differ
    if undeclared:  # only once it passed: a failing case is asked again as it shrinks
        ASKED_UNDECLARED.add((case.path, case.method))


def send(case, token: str | None) -> None:
    """The case as ``token``'s holder (signed out when None), checked against the schema."""
    # The fuzzer's WSGI transport asks for gzip (as requests does) but does not undo it;
    # the compressed standings answer is checked in tests/tournaments/test_live.py.
    headers = {"Accept-Encoding": "identity"}
    if token:
        headers["Authorization"] = f"Token {token}"
    cache.clear()  # the anonymous throttle would otherwise answer 429 to the rest
    case.call_and_validate(headers=headers, excluded_checks=EXCLUDED)


def _scenario(case):
    """The coverage scenario a case was made for (None for generated examples)."""
    return getattr(case.meta.phase.data, "scenario", None) if case.meta else None

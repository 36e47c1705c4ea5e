"""The database refuses seeds outside what the services hand out."""

import pytest
from django.db import IntegrityError, transaction

from tests.factories import UserFactory
from tournaments import services
from tournaments.bounds import SEED_CEILING
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("seed", "kept"), [(0, False), (SEED_CEILING, True), (SEED_CEILING + 1, False)]
)
def test_a_seed_is_kept_only_inside_the_columns_bounds(seed, kept):
    organizer = UserFactory()
    tournament = services.create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat")
    entrant = services.register_entrant(tournament, by=organizer, name="Ana")
    update = Entrant.objects.filter(pk=entrant.pk)
    if kept:
        update.update(seed=seed)
    else:
        with pytest.raises(IntegrityError), transaction.atomic():
            update.update(seed=seed)

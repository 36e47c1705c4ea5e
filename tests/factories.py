"""factory_boy factories shared by every test module."""

import factory
from django.contrib.auth import get_user_model

from accounts.models import Player


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", "correct-horse-battery")

    @factory.post_generation
    def _save_password(user, create, extracted, **kwargs):
        if create:
            user.save()


class SuperuserFactory(UserFactory):
    is_staff = True
    is_superuser = True


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    display_name = factory.Sequence(lambda n: f"Player {n}")
    club = "Club Capicú"
    country = "PR"


def start_game(ruleset_key: str = "cutthroat", players: int = 4, *, referee=None, **kwargs):
    """A started game with fresh players and, if given, a referee."""
    from scoring.services import start_game as start

    seats = [PlayerFactory() for _ in range(players)]
    referees = [referee] if referee is not None else []
    return start(ruleset_key=ruleset_key, seats=seats, referees=referees, **kwargs)

"""factory_boy factories shared by every test module."""

import random

import factory
from django.contrib.auth import get_user_model

from players.models import Player


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


def client_for(user):
    """An API client signed in as ``user`` (anonymous for None)."""
    from rest_framework.test import APIClient

    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def event_referee(tournament, *, user=None, role: str = "referee"):
    """A user who accepted a role in ``tournament`` (a new one unless ``user`` is given)."""
    from tournaments.models import Staff
    from tournaments.services import accept_invitation, invite_staff

    user = user or UserFactory()
    organizer = Staff.objects.filter(tournament=tournament, role="organizer").first().user
    invitation = invite_staff(tournament, by=organizer, username=user.username, role=role)
    accept_invitation(invitation, by=user)
    return user


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


HANDS_PER_GAME = 12


def bulk_event(entrants: int, rounds: int):
    """A finished event of four-player tables, built with bulk inserts for benchmarks and
    query-count tests (the services' own path is tested elsewhere)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from scoring.engine import count_tallies
    from scoring.models import Game, Hand, Seat, Side
    from scoring.rulesets import get_ruleset
    from tournaments.models import Entrant, Match, MatchSeat, Round, Stage, Tournament
    from tournaments.services import seat_results

    rng = random.Random(entrants)
    user = get_user_model().objects.create_user(f"bench-{entrants}")
    tournament = Tournament.objects.create(
        name=f"Bench {entrants}",
        slug=f"bench-{entrants}",
        ruleset_key="cutthroat",
        table_size=4,
        created_by=user,
    )
    players = Player.objects.bulk_create(Player(display_name=f"P{i}") for i in range(entrants))
    people = Entrant.objects.bulk_create(
        Entrant(tournament=tournament, name=f"P{i}", player=p, seed=i + 1)
        for i, p in enumerate(players)
    )
    stage = Stage.objects.create(
        tournament=tournament, order=1, name="RR", format="round_robin", settings={"rounds": rounds}
    )
    rules = get_ruleset("cutthroat", players=4).to_dict()
    now = timezone.now()
    hands = 0
    for number in range(1, rounds + 1):
        round_ = Round.objects.create(stage=stage, number=number, status="published")
        order = people[:]
        rng.shuffle(order)
        tables = [order[i : i + 4] for i in range(0, entrants, 4)]
        games = Game.objects.bulk_create(
            Game(
                ruleset_key="cutthroat",
                ruleset=rules,
                status="finished",
                winner="A",
                followed=True,
                totals={},
                hand_count=HANDS_PER_GAME,
            )
            for _ in tables
        )
        sides = Side.objects.bulk_create(
            Side(game=g, position=i, name="ABCD"[i]) for g in games for i in range(4)
        )
        Seat.objects.bulk_create(
            Seat(
                game=g,
                position=i,
                name="ABCD"[i],
                side=sides[gi * 4 + i],
                player=tables[gi][i].player,
            )
            for gi, g in enumerate(games)
            for i in range(4)
        )
        hand_rows = []
        for g in games:
            totals = dict.fromkeys("ABCD", 0)
            for n in range(1, HANDS_PER_GAME + 1):
                winner = "A" if n % 3 else rng.choice("BCD")
                award = rng.choice([10, 15, 20, 25, 30])
                totals[winner] += award
                hand_rows.append(
                    Hand(
                        game=g,
                        number=n,
                        ended="domino",
                        domino_by=winner,
                        pips={s: (0 if s == winner else 5) for s in "ABCD"},
                        awards={s: (award if s == winner else 0) for s in "ABCD"},
                        winners=[winner],
                    )
                )
            g.totals = totals
            played = [(h.winners, h.domino_by, False) for h in hand_rows[-HANDS_PER_GAME:]]
            g.tallies = count_tallies(totals, played)
            g.last_hand_at = now
        Game.objects.bulk_update(games, ["totals", "tallies", "last_hand_at"])
        Hand.objects.bulk_create(hand_rows, batch_size=2000)
        hands += len(hand_rows)
        matches = Match.objects.bulk_create(
            Match(round=round_, table_number=i + 1, game=g) for i, g in enumerate(games)
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=m, round=round_, entrant=e, position=p, **result)
            for m, g, table in zip(matches, games, tables, strict=True)
            for p, (e, result) in enumerate(zip(table, seat_results(g), strict=True))
        )
    return tournament, hands


def partners_round(teams: int = 6):
    """A Partners league with its first round published and refereed by its organizer:
    (tournament, organizer, stage, the round's games)."""
    from tournaments.services import (
        add_stage,
        assign_referee,
        create_tournament,
        generate_round,
        publish_round,
        register_entrants,
    )

    organizer = UserFactory()
    tournament = create_tournament(by=organizer, name="Liga", ruleset_key="partners")
    register_entrants(
        tournament, by=organizer, text="\n".join(f"A{i} & B{i}" for i in range(teams))
    )
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 5}
    )
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    games = [match.game for match in round_.matches.select_related("game")]
    for game in games:
        assign_referee(game.match, organizer, by=organizer)
    return tournament, organizer, stage, games


def cutthroat_round(organizer, players: int = 16):
    """A running four-player Cutthroat round robin with its first round published:
    (tournament, stage, round), ``players`` / 4 tables."""
    from tournaments.services import (
        add_stage,
        create_tournament,
        generate_round,
        publish_round,
        register_entrants,
        update_tournament,
    )

    tournament = create_tournament(
        by=organizer, name="Copa en vivo", ruleset_key="cutthroat", table_size=4
    )
    update_tournament(tournament, by=organizer, status="registration")
    text = "\n".join(f"P{i:02d}" for i in range(players))
    register_entrants(tournament, by=organizer, text=text)
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 3}
    )
    update_tournament(tournament, by=organizer, status="running")
    round_ = generate_round(stage, by=organizer)
    publish_round(round_, by=organizer)
    return tournament, stage, round_

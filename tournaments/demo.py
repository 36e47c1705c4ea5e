"""A realistic demo event, built through the same services an organizer and referees use.

Every hand is played from shuffled tiles under its game's rule set (``scoring.simulate``)
and recorded with ``record_hand``, so the demo's totals, standings and brackets are
exactly what the service would hold after a real event.
"""

import random
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from jobs import runner
from players.models import Player
from scoring import services as scoring
from scoring.models import Game
from scoring.selectors import ruleset_of
from scoring.simulate import play_hand
from tournaments import services
from tournaments.models import Match, Round, Stage, Tournament
from tournaments.services import TournamentConflict

PLAYERS = [
    "Ana Rivera", "Benito Cruz", "Carmen Ortiz", "Dario Fuentes", "Elena Marte", "Felix Soto",
    "Gloria Peña", "Hector Vidal", "Isabel Luna", "Julio Reyes", "Karla Medina", "Luis Arroyo",
    "Marta Colón", "Nestor Pagán", "Olga Ramos", "Pablo Quiñones", "Rosa Delgado",
    "Samuel Torres", "Teresa Vega", "Ulises Castro", "Vilma Nieves", "Wilfredo Santos",
    "Ximena Rojas", "Yolanda Báez", "Zoila Acevedo", "Ramón Ocasio", "Lucía Feliz",
    "Miguel Herrera", "Noemí Brito", "Orlando Pérez", "Patricia Solís", "Quique Almonte",
]  # fmt: skip

DEMO_PASSWORDS = {
    "organizer": "capicu-organizer",
    "referee1": "capicu-referee",
    "referee2": "capicu-referee",
    "ana": "capicu-player",
}
# The player whose account the ``ana`` login is: she plays in the Open and in the league.
DEMO_PLAYER = "Ana Rivera"


@dataclass
class Demo:
    tournaments: list[Tournament] = field(default_factory=list)
    logins: dict[str, str] = field(default_factory=dict)
    hands: int = 0
    # Who organized the events, and the shuffles' source as the events left it: the
    # apps above build their part of the demo on from them (``manage.py load_demo``).
    organizer: object = None
    rng: random.Random | None = None


def play(game: Game, by, rng: random.Random, *, hands: int | None = None) -> int:
    """Play ``game`` hand by hand to its winner (or ``hands`` more hands); returns hands played."""
    played = 0
    game.refresh_from_db()
    rules = ruleset_of(game)
    seats = [seat.name for seat in game.seats.order_by("position")]
    while game.status != Game.Status.FINISHED and (hands is None or played < hands):
        hand = play_hand(rules, seats, rng, leader=game.next_leader or None)
        lowest = None
        if hand.ended == "block" and rules.block_tie == "lowest_tile":
            # A block tied on pips goes to the lowest single tile: the referee gives them.
            lowest = {
                seat: list(min(tiles, key=lambda t: (t[0] + t[1], min(t))))
                for seat, tiles in hand.tiles_left.items()
                if tiles
            }
        outcome = scoring.record_hand(
            game,
            by=by,
            number=game.hand_count + 1,
            ended=hand.ended,
            domino_by=hand.domino_by,
            pips=hand.pips,
            leader=hand.leader,
            in_play=[{"seat": seat, "points": points} for seat, points in hand.in_play],
            lowest_tiles=lowest,
        )
        game = outcome.game
        played += 1
        if played > 200:  # pragma: no cover - a game that never ends is a bug
            raise RuntimeError(f"{game} did not finish in 200 hands.")
    return played


def _users():
    users = get_user_model().objects
    made = {}
    for username, password in DEMO_PASSWORDS.items():
        user = users.filter(username=username).first() or users.create_user(username=username)
        user.set_password(password)
        user.first_name = username.capitalize()
        if username == "ana":
            user.first_name, user.last_name = DEMO_PLAYER.split()
            user.email = "ana@example.org"
        user.save()
        made[username] = user
    return made


def _invite_referees(tournament: Tournament, by, referees) -> None:
    """Each demo referee is invited to the event and accepts, as they would on their page."""
    for referee in referees:
        invitation = services.invite_staff(
            tournament, by=by, username=referee.username, role="referee"
        )
        services.accept_invitation(invitation, by=referee)


def _start(tournament: Tournament, by) -> Tournament:
    tournament = services.update_tournament(tournament, by=by, status="registration")
    return tournament


def _round(stage: Stage, by, referees) -> Round:
    round_ = services.generate_round(stage, by=by)
    services.publish_round(round_, by=by)
    for index, match in enumerate(round_.matches.filter(bye=False).order_by("table_number")):
        services.assign_referee(match, referees[index % len(referees)], by=by)
    return round_


def _play_round(round_: Round, by, rng, *, live_tables: int = 0, live_hands: int = 2) -> int:
    """Play every table of a round; the last ``live_tables`` only ``live_hands`` hands in."""
    matches = list(round_.matches.filter(bye=False).order_by("table_number"))
    hands = 0
    for index, match in enumerate(matches):
        live = index >= len(matches) - live_tables
        hands += play(match.game, by, rng, hands=live_hands + index % 3 if live else None)
    return hands


def _running(tournament: Tournament, by) -> None:
    services.update_tournament(tournament, by=by, status="running")


def load(seed: int = 2026) -> Demo:
    """Create the demo events on an empty database (the series, leaderboards and ladder
    session are built on them by ``circuit.demo``, from ``demo.organizer`` and
    ``demo.rng``)."""
    rng = random.Random(seed)
    users = _users()
    organizer = users["organizer"]
    referees = [users["referee1"], users["referee2"]]
    demo = Demo(logins=dict(DEMO_PASSWORDS), organizer=organizer, rng=rng)

    # 1. Eighteen players, four a table, Cutthroat: three rounds played, a fourth live.
    demo.tournaments.append(
        _round_robin(
            organizer, referees, rng, name="Capicú Club Cutthroat Open", slug="cutthroat-open",
            ruleset_key="cutthroat", entries=PLAYERS[:18], live_tables=3, demo=demo,
        )
    )  # fmt: skip
    # 2. Eight teams of Partners, every team against every other: four rounds in.
    names = PLAYERS[:16]
    demo.tournaments.append(
        _round_robin(
            organizer, referees, rng, name="Liga de Parejas", slug="liga-de-parejas",
            ruleset_key="partners", live_tables=2, demo=demo,
            entries=[f"{names[i]} & {names[i + 1]}" for i in range(0, 16, 2)],
        )
    )  # fmt: skip

    # 3. Sixteen players head to head in a single-elimination bracket, part-played.
    cup = services.create_tournament(
        by=organizer, name="Copa Doble Seis", ruleset_key="cutthroat", slug="copa-doble-seis",
        table_size=2,
    )  # fmt: skip
    _invite_referees(cup, organizer, referees)
    _start(cup, organizer)
    services.register_entrants(cup, by=organizer, text="\n".join(PLAYERS[16:32]))
    stage = services.add_stage(cup, by=organizer, name="Bracket", format="single_elimination")
    _running(cup, organizer)
    with runner.held("standings", cup.pk):
        demo.hands += _play_bracket(stage, organizer, referees, rng)
    demo.tournaments.append(cup)

    # 4. Fifteen DCS players, four a table, Swiss: the field does not divide, so three sit
    # out each round with a bye (rotating, the lowest ranked first). Two rounds played.
    dcs = services.create_tournament(
        by=organizer, name="Noche DCS", ruleset_key="dcs", slug="noche-dcs", table_size=4,
    )  # fmt: skip
    _invite_referees(dcs, organizer, referees)
    _start(dcs, organizer)
    services.register_entrants(dcs, by=organizer, text="\n".join(PLAYERS[17:32]))
    stage = services.add_stage(
        dcs, by=organizer, name="Swiss", format="swiss", settings={"rounds": 3}
    )
    _running(dcs, organizer)
    with runner.held("standings", dcs.pk):
        for number in (1, 2):
            round_ = _round(stage, organizer, referees)
            live = 1 if number == 2 else 0
            demo.hands += _play_round(round_, organizer, rng, live_tables=live)
    demo.tournaments.append(dcs)

    # The same people play in several events (registering a name finds its player): the
    # Open's first sixteen make up the league's teams, and two of them play the cup too.
    # Ana Rivera's player is the ``ana`` login's, so her account page lists her events.
    Player.objects.filter(display_name=DEMO_PLAYER).update(user=users["ana"])
    return demo


def _round_robin(
    organizer, referees, rng, *, name, slug, ruleset_key, entries, live_tables, demo, rounds=4
) -> Tournament:
    """A round robin four rounds in: the last round's final ``live_tables`` still in play."""
    tournament = services.create_tournament(
        by=organizer, name=name, ruleset_key=ruleset_key, slug=slug, table_size=4
    )
    _invite_referees(tournament, organizer, referees)
    _start(tournament, organizer)
    services.register_entrants(tournament, by=organizer, text="\n".join(entries))
    stage = services.add_stage(tournament, by=organizer, name="Round robin", format="round_robin")
    _running(tournament, organizer)
    with runner.held("standings", tournament.pk):
        for number in range(1, rounds + 1):
            round_ = _round(stage, organizer, referees)
            live = live_tables if number == rounds else 0
            demo.hands += _play_round(round_, organizer, rng, live_tables=live)
    return tournament


def _play_bracket(stage: Stage, organizer, referees, rng) -> int:
    hands = 0
    first = _round(stage, organizer, referees)
    hands += _play_round(first, organizer, rng)
    second = Round.objects.filter(stage=stage, number=2).first() or _round(
        stage, organizer, referees
    )
    if second.status == Round.Status.DRAFT:
        try:
            services.publish_round(second, by=organizer)
        except TournamentConflict:
            # Under a real worker the bracket's own job may have published it meanwhile.
            second.refresh_from_db()
            if second.status == Round.Status.DRAFT:
                raise
    for index, match in enumerate(
        Match.objects.filter(round=second, bye=False).order_by("table_number")
    ):
        if match.referee_id is None:
            services.assign_referee(match, referees[index % 2], by=organizer)
        hands += play(match.game, organizer, rng, hands=None if index < 2 else 1)
    return hands

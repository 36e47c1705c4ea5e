"""The demo's series, leaderboard and ladder session, played like the demo events.

Built by ``manage.py load_demo`` once the tournaments' demo events are played: the Friday series
gets two events of eight of the open's players (so they play in three events), and a
ladder session seats ten of them, one table finished and one in play. The ratings
follow from every finished game, as they would on a real night.
"""

from circuit.models import LadderTable
from circuit.services import ladders, series
from tournaments import services as events
from tournaments.models import Entrant, Round


def load(organizer, rng, *, play, players_from: str) -> int:
    """Build the demo's series and ladder session; returns the hands played."""
    players = [
        e.player for e in Entrant.objects.filter(tournament__slug=players_from).order_by("seed")
    ]
    friday = series.create_series(
        by=organizer,
        name="Friday Cut-Throat Challenge",
        ruleset_key="cutthroat",
        table_size=4,
        stage_format="swiss",
        stage_settings={"rounds": 2},
        series_points={"1": 10, "2": 8, "3": 6, "4": 5, "5": 4, "6": 3, "7": 2, "8": 1},
        best_of=2,
    )
    hands = 0
    for week in range(2):
        tournament = series.create_next_event(friday, by=organizer)
        events.update_tournament(tournament, by=organizer, status="registration")
        for player in players[week : week + 8]:
            events.register_entrant(tournament, by=organizer, player=player)
        events.update_tournament(tournament, by=organizer, status="running")
        stage = tournament.stages.get()
        for _ in range(2):
            round_ = events.generate_round(stage, by=organizer)
            events.publish_round(round_, by=organizer)
            for match in round_.matches.filter(bye=False):
                hands += play(match.game, organizer, rng)
        assert not Round.objects.filter(stage=stage, status="draft").exists()
        events.finish_stage(stage, by=organizer)

    session = ladders.create_session(
        by=organizer, name="Tuesday Ladder", ruleset_key="cutthroat", table_size=4
    )
    for player in players[4:14]:
        ladders.check_in(session, by=organizer, player=player)
    first = LadderTable.objects.filter(session=session).order_by("number").first()
    if first is not None:
        hands += play(first.game, organizer, rng)
    return hands

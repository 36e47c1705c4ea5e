"""Loading results for the standings from game rows, and writing the snapshot."""

import random
from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.models import Hand, ScoreEvent
from scoring.services import add_score_event, correct_hand, void_hand
from tests.factories import UserFactory, bulk_event, partners_round
from tests.tournaments.reference import load_rows
from tournaments import services
from tournaments.demo import play
from tournaments.models import Round
from tournaments.read.selectors import standing_lines
from tournaments.read.standings import METRICS, StandingRow
from tournaments.read.standings_store import _write_snapshots, rebuild_standings, snapshot_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    """Six Partners teams, a round played out, with penalties, a correction and a void."""
    tournament, organizer, stage, games = partners_round()
    rng = random.Random(7)
    for game in games:
        add_score_event(game, by=organizer, hand=1, seat="B", kind="penalty")
        play(game, organizer, rng, hands=3)
    first = games[0]
    hand = Hand.objects.get(game=first, number=2, is_current=True)
    correct_hand(
        first,
        2,
        by=organizer,
        reason="misread",
        expected_version=hand.version,
        ended="block",
        pips={"A": 3, "B": 20, "C": 4, "D": 18},
    )
    void_hand(games[1], 1, by=organizer, reason="misdeal")
    for game in games:
        play(game, organizer, rng)
    return tournament, stage


def test_results_from_game_rows_count_what_the_hands_and_penalties_say(played):
    """The tallies kept on each game give what counting its hands and events gives."""
    tournament, stage = played
    _, games, _ = load_rows(tournament)[stage.pk]
    assert len(games) == 3
    hands_won, dominoes, penalties = Counter(), Counter(), Counter()
    for hand in Hand.objects.filter(is_current=True, voided=False):
        for name in hand.winners:
            hands_won[(hand.game_id, name)] += 1
        if hand.domino_by:
            side = "A+C" if hand.domino_by in "AC" else "B+D"
            dominoes[(hand.game_id, side)] += 1
    for event in ScoreEvent.objects.filter(active=True, kind="penalty").select_related("side"):
        penalties[(event.game_id, event.side.name)] -= event.points
    assert sum(dominoes.values()) > 0 and sum(penalties.values()) == 20  # one penalty voided
    for game in games:
        for result in game.entrants:
            key = (game.game_id, ("A+C", "B+D")[result.seat_position])
            assert result.hands_won == hands_won[key]
            assert result.dominoes == dominoes[key]
            assert result.penalty_points == penalties[key]


def test_a_recompute_makes_the_same_queries_for_a_small_and_a_large_event():
    small, _ = bulk_event(16, 2)
    large, _ = bulk_event(128, 4)
    counts = []
    for tournament in (small, large):
        with CaptureQueriesContext(connection) as queries:
            written = rebuild_standings(tournament.pk)
        # Head to head reads the games where entrants still tied met, once per stage at most.
        tied = [
            query
            for query in queries
            if "ms.match_id IN" in query["sql"] or "ms.match_id = ANY" in query["sql"]
        ]
        assert len(tied) <= 1
        counts.append(len(queries) - len(tied))
        assert written == tournament.entrants.count()
    assert counts[0] == counts[1]


def test_a_snapshot_keeps_every_value_and_tells_its_reasons():
    """Every metric's value survives the document, and each line's reason is told from
    the tiebreak order the snapshot was ranked by, even after the tournament changes it."""
    tournament, _ = bulk_event(4, 1)
    stage = tournament.stages.get()
    first, second, third = tournament.entrants.order_by("seed")[:3]
    metrics = {key: index / 3 for index, key in enumerate(METRICS)}
    rows = [
        StandingRow(1, False, first.pk, True, 3, {**metrics, "points_for": 100.5}),
        StandingRow(2, True, second.pk, False, 3, {**metrics, "points_for": 90}),
        StandingRow(2, True, third.pk, False, 3, {**metrics, "points_for": 90}),
    ]
    document = snapshot_document(rows, ["seed", "points_for"])
    _write_snapshots(tournament.pk, timezone.now(), {stage.pk: document})
    tournament.tiebreak_order = ["wins", "seed"]
    tournament.save()
    lines, total = standing_lines(tournament)
    assert total == 3
    assert [line.entrant for line in lines] == [first, second, third]
    assert [line.metrics for line in lines] == [row.metrics for row in rows]
    assert [line.reason for line in lines] == [
        "tied on seed, ahead on points for 100.5 to 90",
        "level on every tiebreaker",
        "",
    ]
    assert lines[0].withdrawn and not lines[0].tied and lines[1].tied
    assert [line.position for line in lines] == [1, 2, 3] and lines[0].stage == stage
    (only,), _ = standing_lines(tournament, entrant=second)
    assert only.position == 2 and only.reason == "level on every tiebreaker"
    (top,), _ = standing_lines(tournament, stage=stage, limit=1)
    assert top.reason == "tied on seed, ahead on points for 100.5 to 90"


def test_the_snapshot_keeps_the_reasons_that_ranking_decided_itself():
    """A reason decided by head to head within a group, or between the played and the
    never seated, reads the same from the stored snapshot as when it was ranked, on
    every page of it."""
    from tests.tournaments.test_standings import two
    from tournaments.read.standings import (
        EntrantInfo,
        StandingsSettings,
        compute_standings,
        new_records,
        rank,
        settle,
    )
    from tournaments.read.standings import add_game as add

    tournament, _ = bulk_event(8, 1)
    stage = tournament.stages.get()
    ids = list(tournament.entrants.order_by("seed").values_list("pk", flat=True))
    a, b, c, d, e = ids[:5]  # the other three were never seated
    games = [
        two(1, a, c, 200, 100),
        two(2, b, c, 200, 100),
        two(3, c, d, 200, 100),
        two(4, e, a, 200, 100),
        two(5, e, b, 200, 100),
    ]
    entrants = [
        EntrantInfo(pk, seed) for pk, seed in zip(ids, [8, 10, 4, 1, 2, 3, 5, 6], strict=True)
    ]
    order = ("match_points", "head_to_head", "seed")
    settings = StandingsSettings(order=order)
    expected = compute_standings(entrants, games, settings)
    records = new_records(entrants)
    for game in games:
        add(records, game)
    settle(records, settings, [], 150)
    document = snapshot_document(
        rank(
            records,
            settings,
            lambda _: {
                pk: [g for g in games if pk in {r.entrant_id for r in g.entrants}] for pk in ids
            },
        ),
        order,
    )
    _write_snapshots(tournament.pk, timezone.now(), {stage.pk: document})
    tournament.tiebreak_order = list(order)
    tournament.save()
    lines, _ = standing_lines(tournament)
    assert [line.entrant_id for line in lines] == [row.entrant_id for row in expected]
    assert [line.reason for line in lines] == [row.reason for row in expected]
    assert "ahead on head to head 1 to 0" in lines[[x.entrant_id for x in lines].index(b)].reason
    assert lines[4].reason == "has played; those below have not played a game yet"
    (only,), _ = standing_lines(tournament, entrant=tournament.entrants.get(pk=b))
    assert only.reason == "tied on match points, ahead on head to head 1 to 0"


def test_a_bye_counts_in_the_standings_once_its_round_is_published(
    django_capture_on_commit_callbacks,
):
    organizer = UserFactory()
    tournament = services.create_tournament(
        by=organizer, name="Mano a mano", ruleset_key="cutthroat", table_size=2
    )
    services.register_entrants(tournament, by=organizer, text="\n".join("ABCDE"))
    stage = services.add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    bye = round_.matches.get(bye=True).seats.get().entrant

    def games_played() -> int:
        lines, _ = standing_lines(tournament, entrant=bye)
        return lines[0].games_played if lines else 0

    rebuild_standings(tournament.pk)
    assert games_played() == 0
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_round(round_, by=organizer)  # requests the recompute itself
    assert games_played() == 1


def test_a_game_finished_in_a_round_in_draft_does_not_count():
    """Only a game scored before drafts were held can be finished in one (the migration
    leaves those open); its round is the staff's until published, and so is its result."""
    tournament, organizer, stage, games = partners_round(teams=4)
    play(games[0], organizer, random.Random(2))
    rebuild_standings(tournament.pk)
    played = {line.entrant_id: line.games_played for line in standing_lines(tournament)[0]}
    assert sorted(played.values()) == [0, 0, 1, 1]
    Round.objects.filter(stage=stage).update(status=Round.Status.DRAFT)
    rebuild_standings(tournament.pk)
    lines, _ = standing_lines(tournament)
    assert [line.games_played for line in lines] == [0, 0, 0, 0]
    assert load_rows(tournament)[stage.pk][1] == []  # the reference agrees

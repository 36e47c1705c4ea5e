"""Running a tournament through the services: entrants, stages, rounds, brackets."""

import random

import pytest
from django.core.exceptions import PermissionDenied
from django.db.models import F

from scoring.models import Game
from scoring.services import record_hand
from tests.factories import UserFactory, event_referee
from tournaments.models import Match, MatchSeat, Round, Staff, Stage, StandingsState, Tournament
from tournaments.services import (
    BulkRegistrationError,
    TournamentConflict,
    TournamentError,
    add_stage,
    advance_bracket,
    assign_referee,
    assign_round_referees,
    check_in,
    create_tournament,
    create_tournament_with_stage,
    finish_stage,
    generate_round,
    publish_round,
    register_entrant,
    register_entrants,
    set_seed,
    swap_seats,
    withdraw,
)

pytestmark = pytest.mark.django_db

NAMES = [f"Player {i:02d}" for i in range(1, 19)]


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def cutthroat(organizer, players=18, **kwargs):
    tournament = create_tournament(
        by=organizer, name="Copa Capicú", ruleset_key="cutthroat", table_size=4, **kwargs
    )
    register_entrants(tournament, by=organizer, text="\n".join(NAMES[:players]))
    return tournament


def play_out(game: Game, referee, rng: random.Random) -> None:
    """Play a game to its end with legal random blocks."""
    game.refresh_from_db()
    names = [seat.name for seat in game.seats.order_by("position")]
    number = game.hand_count
    while game.status != Game.Status.FINISHED:
        number += 1
        pips = {name: rng.randint(0, 30) for name in names}
        winner = rng.choice(names)
        pips[winner] = 0
        record_hand(game, by=referee, number=number, ended="domino", domino_by=winner, pips=pips)
        game.refresh_from_db()


def test_creator_is_organizer_and_tiebreaks_are_checked(organizer):
    tournament = create_tournament(by=organizer, name="Liga", ruleset_key="partners")
    assert Staff.objects.filter(tournament=tournament, user=organizer, role="organizer").exists()
    assert tournament.slug == "liga"
    assert tournament.table_size == 4
    with pytest.raises(TournamentError) as error:
        create_tournament(by=organizer, name="X", ruleset_key="dcs", tiebreak_order=["luck"])
    assert error.value.field == "tiebreak_order"


def test_bulk_registration_is_all_or_nothing(organizer):
    tournament = create_tournament(by=organizer, name="Pareja", ruleset_key="partners")
    with pytest.raises(BulkRegistrationError) as error:
        register_entrants(tournament, by=organizer, text="Ana & Beto\nCruz\nAna & Beto")
    assert [p.line for p in error.value.problems] == [2, 3]
    assert not tournament.entrants.exists()
    made = register_entrants(tournament, by=organizer, text="Ana & Beto\nCruz & Dalia")
    assert [e.name for e in made] == ["Ana & Beto", "Cruz & Dalia"]
    assert made[0].partner.display_name == "Beto"


def test_a_pasted_list_past_the_entrants_cap_is_refused_whole(organizer, settings):
    settings.MAX_ENTRANTS = 6
    tournament = create_tournament(by=organizer, name="Solo", ruleset_key="dcs")
    register_entrants(tournament, by=organizer, text="Ana\nBeto\nCruz\nDalia")
    with pytest.raises(TournamentError) as error:
        register_entrants(tournament, by=organizer, text="Eva\nFede\nGilda")
    assert error.value.field == "entrants"
    assert str(error.value) == (
        "Nothing was registered: the list has 3 entrants, this tournament takes at most 6 "
        "and 4 are registered."
    )
    assert tournament.entrants.count() == 4
    register_entrants(tournament, by=organizer, text="Eva\nFede")
    assert tournament.entrants.count() == 6


def test_one_entrant_past_the_cap_is_refused(organizer, settings):
    settings.MAX_ENTRANTS = 2
    tournament = create_tournament(by=organizer, name="Solo", ruleset_key="dcs")
    register_entrant(tournament, by=organizer, name="Ana")
    register_entrant(tournament, by=organizer, name="Beto")
    with pytest.raises(TournamentError) as error:
        register_entrant(tournament, by=organizer, name="Cruz")
    assert "at most 2 entrants and 2 are registered" in str(error.value)
    assert tournament.entrants.count() == 2


def test_a_paste_longer_than_any_full_tournament_is_refused_before_reading(organizer, settings):
    settings.MAX_ENTRANTS = 10
    tournament = create_tournament(by=organizer, name="Solo", ruleset_key="dcs")
    with pytest.raises(TournamentError) as error:
        register_entrants(tournament, by=organizer, text="x\n" * 100_000)
    assert "at most 10 entrants" in str(error.value)
    assert not tournament.entrants.exists()


def test_register_check_in_withdraw_and_seed(organizer):
    tournament = create_tournament(by=organizer, name="Solo", ruleset_key="dcs")
    ana = register_entrant(tournament, by=organizer, name="Ana")
    beto = register_entrant(tournament, by=organizer, name="Beto")
    with pytest.raises(TournamentError):
        register_entrant(tournament, by=organizer, name="ana")
    assert check_in(ana, by=organizer).checked_in
    beto = set_seed(beto, by=organizer, seed=1)
    ana.refresh_from_db()
    assert (ana.seed, beto.seed) == (2, 1)
    assert withdraw(ana, by=organizer).withdrawn
    with pytest.raises(TournamentConflict):
        withdraw(ana, by=organizer)


def test_only_organizers_manage(organizer):
    tournament = cutthroat(organizer)
    with pytest.raises(PermissionDenied):
        register_entrant(tournament, by=UserFactory(), name="Intruso")


def test_eighteen_players_five_rounds_of_four_and_three(organizer):
    tournament = cutthroat(organizer)
    stage = add_stage(
        tournament, by=organizer, name="Round robin", format="round_robin", settings={"rounds": 5}
    )
    referee = event_referee(tournament)
    rng = random.Random(4)
    met: dict[int, set] = {}
    for number in range(1, 6):
        round_ = generate_round(stage, by=organizer)
        assert round_.number == number
        with pytest.raises(TournamentConflict):
            generate_round(stage, by=organizer)  # twice is refused
        publish_round(round_, by=organizer)
        matches = list(round_.matches.all())
        assert sorted(m.seats.count() for m in matches) == [3, 3, 4, 4, 4]
        for match in matches:
            assign_referee(match, referee, by=organizer)
            ids = set(match.seats.values_list("entrant_id", flat=True))
            for entrant in ids:
                met.setdefault(entrant, set()).update(ids - {entrant})
            play_out(match.game, referee, rng)
    assert all(len(others) >= 12 for others in met.values())
    assert Game.objects.filter(status="finished").count() == 25
    with pytest.raises(TournamentConflict):
        generate_round(stage, by=organizer)


def test_referee_assignment_makes_them_a_referee_of_the_game(organizer):
    tournament = cutthroat(organizer, players=8)
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 1}
    )
    round_ = generate_round(stage, by=organizer)
    match = round_.matches.first()
    stranger = UserFactory()
    with pytest.raises(TournamentError):
        assign_referee(match, stranger, by=organizer)
    assert not Staff.objects.filter(user=stranger).exists()
    assert not match.game.referees.filter(pk=stranger.pk).exists()
    referee = event_referee(tournament)
    assign_referee(match, referee, by=organizer)
    assert match.game.referees.filter(pk=referee.pk).exists()


def eight_at_four_tables(organizer):
    tournament = cutthroat(organizer, players=8)
    tournament.table_size = 2
    tournament.save(update_fields=["table_size"])
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 1}
    )
    return tournament, generate_round(stage, by=organizer)


def referees_of_games(round_) -> dict[int, set[int]]:
    return {
        match.table_number: set(match.game.referees.values_list("pk", flat=True))
        for match in round_.matches.select_related("game")
    }


def test_a_whole_round_gets_its_referees_in_one_call(organizer, django_assert_max_num_queries):
    tournament, round_ = eight_at_four_tables(organizer)
    ana, beto = event_referee(tournament), event_referee(tournament)
    assign_referee(round_.matches.get(table_number=1), beto, by=organizer)
    with django_assert_max_num_queries(12):
        changed = assign_round_referees(round_, {1: ana, 2: ana, 3: beto, 4: None}, by=organizer)
    assert [m.table_number for m in changed] == [1, 2, 3]
    assert dict(round_.matches.values_list("table_number", "referee")) == {
        1: ana.pk, 2: ana.pk, 3: beto.pk, 4: None
    }  # fmt: skip
    # The replaced referee no longer scores table 1; the new ones score theirs.
    assert referees_of_games(round_) == {1: {ana.pk}, 2: {ana.pk}, 3: {beto.pk}, 4: set()}

    assign_round_referees(round_, {2: None}, by=organizer)  # an empty choice unassigns
    assert round_.matches.get(table_number=2).referee is None
    assert referees_of_games(round_)[2] == set()


def test_a_round_assignment_naming_an_outsider_changes_nothing(organizer):
    tournament, round_ = eight_at_four_tables(organizer)
    ana, stranger = event_referee(tournament), UserFactory(username="stranger")
    with pytest.raises(TournamentError, match="stranger is not a referee"):
        assign_round_referees(round_, {1: ana, 2: stranger}, by=organizer)
    with pytest.raises(TournamentError, match="has no table 9"):
        assign_round_referees(round_, {1: ana, 9: ana}, by=organizer)
    with pytest.raises(PermissionDenied):
        assign_round_referees(round_, {1: ana}, by=ana)
    assert not round_.matches.exclude(referee=None).exists()
    assert referees_of_games(round_) == {table: set() for table in range(1, 5)}


def test_swap_seats_before_play(organizer):
    tournament = cutthroat(organizer, players=8)
    stage = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 1}
    )
    round_ = generate_round(stage, by=organizer)
    one, two = round_.matches.order_by("table_number")
    a = one.seats.first().entrant
    b = two.seats.first().entrant
    swap_seats(round_, a, b, by=organizer)
    assert MatchSeat.objects.get(round=round_, entrant=a).match_id == two.pk
    seat_names = list(two.game.seats.order_by("position").values_list("display_name", flat=True))
    assert a.player.display_name in seat_names
    referee = event_referee(tournament)
    assign_referee(one, referee, by=organizer)
    publish_round(round_, by=organizer)
    record_hand(
        one.game, by=referee, number=1, ended="block", pips={"A": 1, "B": 2, "C": 3, "D": 4}
    )
    with pytest.raises(TournamentConflict):
        swap_seats(round_, a, b, by=organizer)


def test_partners_round_robin_of_eight_teams(organizer):
    tournament = create_tournament(by=organizer, name="Parejas", ruleset_key="partners")
    register_entrants(tournament, by=organizer, text="\n".join(f"A{i} & B{i}" for i in range(8)))
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    referee = event_referee(tournament)
    rng = random.Random(1)
    pairs = set()
    for _ in range(7):
        round_ = generate_round(stage, by=organizer)
        publish_round(round_, by=organizer)
        for match in round_.matches.all():
            ids = tuple(sorted(match.seats.values_list("entrant_id", flat=True)))
            pairs.add(ids)
            assign_referee(match, referee, by=organizer)
            names = list(
                match.game.seats.order_by("position").values_list("display_name", flat=True)
            )
            first, second = [s.entrant for s in match.seats.order_by("position")]
            assert names == [
                first.player.display_name,
                second.player.display_name,
                first.partner.display_name,
                second.partner.display_name,
            ]
            play_out(match.game, referee, rng)
    assert len(pairs) == 28


def test_a_bracket_of_sixteen_advances_itself_to_a_champion(organizer):
    tournament = create_tournament(
        by=organizer, name="Llave", ruleset_key="cutthroat", table_size=2
    )
    register_entrants(tournament, by=organizer, text="\n".join(NAMES[:16]))
    stage = add_stage(tournament, by=organizer, name="Bracket", format="single_elimination")
    referee = event_referee(tournament)
    rng = random.Random(2)
    first = generate_round(stage, by=organizer)
    publish_round(first, by=organizer)
    assert first.matches.count() == 8
    for number in range(1, 5):
        round_ = Round.objects.get(stage=stage, number=number)
        for match in round_.matches.all():
            assign_referee(match, referee, by=organizer)
            play_out(match.game, referee, rng)
            advance_bracket(match)
    final = Match.objects.get(round__stage=stage, slot="R4-1")
    assert final.game.status == "finished"
    assert Round.objects.filter(stage=stage).count() == 4


def test_finish_stage_seeds_the_next_from_the_standings(organizer):
    tournament = cutthroat(organizer, players=8)
    first = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 2}
    )
    bracket = add_stage(
        tournament, by=organizer, name="Final", format="single_elimination", settings={"advance": 2}
    )
    referee = event_referee(tournament)
    rng = random.Random(3)
    for _ in range(2):
        round_ = generate_round(first, by=organizer)
        publish_round(round_, by=organizer)
        for match in round_.matches.all():
            assign_referee(match, referee, by=organizer)
            play_out(match.game, referee, rng)
    with pytest.raises(TournamentConflict):
        generate_round(bracket, by=organizer)  # the earlier stage is still open
    following = finish_stage(first, by=organizer, top=4)
    assert following == bracket
    bracket.refresh_from_db()
    assert bracket.entrants.count() == 4
    assert len(bracket.settings["seeding"]) == 4
    final = generate_round(bracket, by=organizer)
    assert final.matches.count() == 1
    assert first.__class__.objects.get(pk=first.pk).status == Stage.Status.FINISHED


def played_stage(organizer, players=8):
    """A one-round stage played out, with an empty stage after it."""
    tournament = cutthroat(organizer, players=players)
    first = add_stage(
        tournament, by=organizer, name="RR", format="round_robin", settings={"rounds": 1}
    )
    following = add_stage(tournament, by=organizer, name="Final", format="swiss")
    referee = event_referee(tournament)
    round_ = generate_round(first, by=organizer)
    publish_round(round_, by=organizer)
    for match in round_.matches.all():
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, random.Random(5))
    return first, following


def test_finishing_a_stage_ranks_again_when_a_result_changed_meanwhile(organizer, monkeypatch):
    from tournaments.read import standings_store

    first, following = played_stage(organizer)
    rank = standings_store.stage_ranking
    rankings = []

    def ranking_during_a_correction(stage, **options):
        order = rank(stage, **options)
        if not rankings:  # a referee corrects a game while the first ranking is computed
            Game.objects.filter(match__round__stage=stage).update(revision=F("revision") + 1)
        rankings.append(order)
        return order

    monkeypatch.setattr(standings_store, "stage_ranking", ranking_during_a_correction)
    assert finish_stage(first, by=organizer) == following
    assert len(rankings) == 2
    following.refresh_from_db()
    assert following.settings["seeding"] == rankings[-1]
    assert set(following.entrants.values_list("pk", flat=True)) == set(rankings[-1])


def test_finishing_a_stage_refuses_when_results_never_settle(organizer, monkeypatch):
    from tournaments.read import standings_store

    first, following = played_stage(organizer)
    rank = standings_store.stage_ranking

    def always_corrected(stage, **options):
        Game.objects.filter(match__round__stage=stage).update(revision=F("revision") + 1)
        return rank(stage, **options)

    monkeypatch.setattr(standings_store, "stage_ranking", always_corrected)
    with pytest.raises(TournamentConflict):
        finish_stage(first, by=organizer)
    first.refresh_from_db()
    assert first.status != Stage.Status.FINISHED
    assert not following.entrants.exists()


def test_double_elimination_of_eight_advances_to_its_grand_final(organizer):
    tournament = create_tournament(
        by=organizer, name="Doble", ruleset_key="cutthroat", table_size=2
    )
    register_entrants(tournament, by=organizer, text="\n".join(NAMES[:8]))
    stage = add_stage(
        tournament,
        by=organizer,
        name="Doble",
        format="double_elimination",
        settings={"grand_final_reset": False},
    )
    referee = event_referee(tournament)
    rng = random.Random(6)
    publish_round(generate_round(stage, by=organizer), by=organizer)
    played = set()
    while True:
        pending = [
            m for m in Match.objects.filter(round__stage=stage, bye=False) if m.pk not in played
        ]
        if not pending:
            break
        for match in pending:
            played.add(match.pk)
            assign_referee(match, referee, by=organizer)
            play_out(match.game, referee, rng)
            advance_bracket(match)
    slots = set(Match.objects.filter(round__stage=stage).values_list("slot", flat=True))
    assert {"W3-1", "L4-1", "GF"} <= slots
    assert len(played) == 14  # 7 in the winners' bracket, 6 in the losers', the final


def swiss_round_queries(organizer, players: int, capture) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    tournament = create_tournament(
        by=organizer, name=f"Suizo {players}", ruleset_key="cutthroat", table_size=4
    )
    register_entrants(tournament, by=organizer, text="\n".join([
        f"Jugador {i}" for i in range(players)
    ]))  # fmt: skip
    stage = add_stage(tournament, by=organizer, name="Suizo", format="swiss")
    with CaptureQueriesContext(connection) as queries, capture(execute=True):
        round_ = generate_round(stage, by=organizer)
    assert round_.matches.count() == players // 4
    assert MatchSeat.objects.filter(round=round_).count() == players
    assert not StandingsState.objects.filter(tournament=tournament, dirty=True).exists()
    return len(queries)


def test_a_round_is_paired_in_the_same_few_queries_however_many_tables(
    organizer, django_capture_on_commit_callbacks
):
    small = swiss_round_queries(organizer, 16, django_capture_on_commit_callbacks)
    large = swiss_round_queries(organizer, 128, django_capture_on_commit_callbacks)
    # Eight times the tables: the same statements (SQLite may split a bulk insert in two).
    assert small <= large <= small + 3
    assert large <= 30


def test_a_tournament_and_its_first_stage_are_made_together_or_not_at_all(organizer):
    fields = {"by": organizer, "name": "Copa", "ruleset_key": "cutthroat", "table_size": 4}
    with pytest.raises(TournamentError, match="Unknown format"):
        create_tournament_with_stage(**fields, stage_name="Liga", stage_format="league")
    assert not Tournament.objects.exists() and not Staff.objects.exists()
    made = create_tournament_with_stage(
        **fields, stage_name="Liga", stage_format="swiss", stage_settings={"rounds": 3}
    )
    (stage,) = made.stages.all()
    assert (stage.name, stage.format, stage.settings) == ("Liga", "swiss", {"rounds": 3})
    assert made.staff.filter(user=organizer, role=Staff.Role.ORGANIZER).exists()

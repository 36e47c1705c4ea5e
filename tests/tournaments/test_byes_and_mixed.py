"""Fields that don't divide (RULES.md): mixed table sizes where the rule set allows
several, byes where it allows one; every table played to its end, standings counted."""

import random

import pytest

from tests.factories import UserFactory
from tournaments.demo import play
from tournaments.models import Match, MatchSeat
from tournaments.read.selectors import standing_lines
from tournaments.read.standings_store import rebuild_standings
from tournaments.services import (
    TournamentError,
    add_stage,
    create_tournament,
    generate_round,
    publish_round,
    register_entrants,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def event(organizer, count, *, ruleset, table_size=4, teams=False):
    tournament = create_tournament(
        by=organizer, name="Copa", ruleset_key=ruleset, table_size=table_size
    )
    if teams:
        text = "\n".join(f"Player {2 * i:02d} & Player {2 * i + 1:02d}" for i in range(count))
    else:
        text = "\n".join(f"Player {i:02d}" for i in range(count))
    register_entrants(tournament, by=organizer, text=text)
    return tournament


def table_sizes(round_):
    return sorted((m.seats.count() for m in round_.matches.filter(bye=False)), reverse=True)


def play_round(round_, organizer, label):
    for match in round_.matches.filter(bye=False):
        play(match.game, organizer, random.Random(f"{label}-{match.table_number}"))


@pytest.mark.parametrize(
    ("count", "size", "ruleset", "format", "expected"),
    [
        (11, 5, "two_box", "swiss", [6, 5]),
        (11, 5, "two_box", "round_robin", [6, 5]),
        (13, 6, "two_box", "swiss", [5, 4, 4]),
        (13, 6, "two_box_cutthroat", "round_robin", [5, 4, 4]),
        (10, 4, "cutthroat", "swiss", [4, 3, 3]),
        (10, 4, "cutthroat", "round_robin", [4, 3, 3]),
    ],
)
def test_a_mixed_round_seats_everyone_and_plays_to_the_end(
    organizer, count, size, ruleset, format, expected
):
    tournament = event(organizer, count, ruleset=ruleset, table_size=size)
    stage = add_stage(tournament, by=organizer, name="S", format=format, settings={"rounds": 2})
    round_ = generate_round(stage, by=organizer)
    assert table_sizes(round_) == expected
    assert not round_.matches.filter(bye=True).exists()
    publish_round(round_, by=organizer)
    play_round(round_, organizer, f"{ruleset}-{count}")
    seats = MatchSeat.objects.filter(round=round_)
    assert not seats.filter(total=None).exists()
    # Each table plays to its own target from the rule set.
    for match in round_.matches.select_related("game"):
        assert match.game.status == "finished"
        assert len(match.game.totals) == match.seats.count()
    rebuild_standings(tournament.pk)
    lines, total = standing_lines(tournament, stage=stage)
    assert total == count
    assert all(line.games_played == 1 for line in lines)
    # The second round seats the same field the same way.
    second = generate_round(stage, by=organizer)
    assert table_sizes(second) == expected


@pytest.mark.parametrize("format", ["swiss", "round_robin"])
def test_fifteen_dcs_players_play_with_byes_that_rotate(organizer, format):
    tournament = event(organizer, 15, ruleset="dcs")
    stage = add_stage(tournament, by=organizer, name="S", format=format, settings={"rounds": 5})
    sat_out = []
    for number in range(1, 6):
        round_ = generate_round(stage, by=organizer)
        assert table_sizes(round_) == [4, 4, 4]
        byes = list(round_.matches.filter(bye=True))
        assert len(byes) == 3
        # The tables in play are 1-3; a bye takes no number a page shows (after them).
        assert sorted(round_.matches.filter(bye=False).values_list("table_number", flat=True)) == [
            1,
            2,
            3,
        ]
        assert all(m.game_id is None and m.seats.count() == 1 for m in byes)
        sat_out += [m.seats.get().entrant_id for m in byes]
        publish_round(round_, by=organizer)
        play_round(round_, organizer, f"dcs-{format}-{number}")
        if number == 1:
            first_byes = {m.seats.get().entrant_id for m in byes}
    # Nobody sits out twice before everyone has once: 15 byes over 15 players.
    assert sorted(sat_out) == sorted(set(sat_out)) and len(sat_out) == 15
    rebuild_standings(tournament.pk)
    lines, total = standing_lines(tournament, stage=stage)
    assert total == 15
    # A bye counts as a game won (the default policy): five games for everyone.
    assert all(line.games_played == 5 for line in lines)
    one = next(line for line in lines if line.entrant_id in first_byes)
    assert one.metrics["points_for"] > 0


def test_swiss_gives_the_byes_to_the_lowest_ranked_first(organizer):
    tournament = event(organizer, 14, ruleset="dcs")
    stage = add_stage(tournament, by=organizer, name="S", format="swiss", settings={"rounds": 3})
    first = generate_round(stage, by=organizer)
    publish_round(first, by=organizer)
    play_round(first, organizer, "swiss-low")
    first_byes = {s.entrant_id for s in MatchSeat.objects.filter(round=first, match__bye=True)}
    second = generate_round(stage, by=organizer)
    byes = {s.entrant_id for s in MatchSeat.objects.filter(round=second, match__bye=True)}
    # Nobody sits out twice before everyone has once; among the others, the lowest
    # ranked: those who lost round 1, the lowest seeds among them.
    lost = MatchSeat.objects.filter(round=first, match__bye=False, won=False)
    lowest = [
        s.entrant_id
        for s in lost.select_related("entrant").order_by("-entrant__seed")
        if s.entrant_id not in first_byes
    ][:2]
    assert len(byes) == 2 and not byes & first_byes
    assert byes == set(lowest)


def test_nine_partners_teams_get_one_bye_a_round(organizer):
    tournament = event(organizer, 9, ruleset="partners", teams=True)
    stage = add_stage(tournament, by=organizer, name="S", format="swiss", settings={"rounds": 3})
    round_ = generate_round(stage, by=organizer)
    assert table_sizes(round_) == [2, 2, 2, 2]
    bye = round_.matches.get(bye=True)
    # The four tables in play are numbered 1-4; the bye is not "table 1".
    numbers = sorted(round_.matches.filter(bye=False).values_list("table_number", flat=True))
    assert numbers == [1, 2, 3, 4]
    assert bye.table_number > 4
    publish_round(round_, by=organizer)
    play_round(round_, organizer, "partners")
    assert not MatchSeat.objects.filter(round=round_, match__bye=False, total=None).exists()


@pytest.mark.parametrize(
    ("count", "size", "ruleset", "words"),
    [
        (7, 5, "two_box", ["7 entrants cannot be seated", "6 or 8"]),
        (3, 4, "two_box", ["3 entrants cannot be seated", "4 entrants would"]),
        (3, 4, "dcs", ["3 entrants cannot fill a table", "Add 1 more"]),
    ],
)
@pytest.mark.parametrize("format", ["swiss", "round_robin", "pools"])
def test_a_field_that_cannot_be_seated_is_refused_with_the_reason(
    organizer, count, size, ruleset, words, format
):
    tournament = event(organizer, count, ruleset=ruleset, table_size=size)
    settings = {"rounds": 2, "pools": 1} if format == "pools" else {"rounds": 2}
    stage = add_stage(tournament, by=organizer, name="S", format=format, settings=settings)
    with pytest.raises(TournamentError) as caught:
        generate_round(stage, by=organizer)
    message = str(caught.value)
    assert "changed while the round was being paired" not in message
    for word in words:
        assert word in message
    assert not Match.objects.filter(round__stage=stage).exists()


def test_the_pages_show_the_byes_and_the_mixed_tables(organizer):
    from django.test import Client

    tournament = event(organizer, 14, ruleset="dcs")
    tournament.slug = "dcs-night"
    tournament.save(update_fields=["slug"])
    stage = add_stage(tournament, by=organizer, name="S", format="swiss", settings={"rounds": 2})
    round_ = generate_round(stage, by=organizer)
    bye = round_.matches.filter(bye=True).first()
    out = bye.seats.get().entrant
    client = Client()
    client.force_login(organizer)
    manage = client.get(f"/t/dcs-night/manage/?stage={stage.order}&round=1").content.decode()
    assert f'id="bye-{bye.pk}"' in manage and "Sits out (bye)" in manage
    assert "Table 3 · 4 seats" in manage and "Table 4" not in manage
    publish_round(round_, by=organizer)
    public = client.get("/t/dcs-night/").content.decode()
    assert "Sits out (bye)" in public and f"table-{bye.table_number}" not in public
    cards = client.get("/t/dcs-night/rounds/1/cards/").content.decode()
    assert "Sitting out this round (bye):" in cards and out.name in cards
    assert cards.count('class="table-card-print"') == 3
    player = client.get(f"/t/dcs-night/entrants/{out.pk}/").content.decode()
    assert "round 1: sits out (bye)" in player
    rebuild_standings(tournament.pk)
    standings = client.get("/t/dcs-night/").content.decode()
    assert 'data-bye-scores="round_winners_average"' in standings
    assert "that round's winners' average points for" in standings


def test_the_api_pairs_byes_without_table_numbers_and_refuses_with_the_reason(organizer):
    from tests.factories import client_for

    api = client_for(organizer)
    made = api.post(
        "/api/v1/tournaments/",
        {"name": "Noche", "ruleset": "dcs", "table_size": 4},
        format="json",
    )
    slug = made.json()["slug"]
    names = "\n".join(f"P{i}" for i in range(15))
    assert api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": names}, format="json")
    stage = api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "Suizo", "format": "swiss", "settings": {"rounds": 3}},
        format="json",
    )
    assert stage.status_code == 201, stage.json()
    created = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert created.status_code == 201, created.json()
    matches = created.json()["matches"]
    played = [m for m in matches if not m["bye"]]
    byes = [m for m in matches if m["bye"]]
    assert sorted(m["table_number"] for m in played) == [1, 2, 3]
    assert len(byes) == 3 and all(m["table_number"] is None for m in byes)
    assert all(len(m["entrants"]) == 1 and m["game"] is None for m in byes)
    assert sum("Bye:" in flag["message"] for flag in created.json()["flags"]) == 3

    # Seven two-box players: no mix of four to six seats them; 400 and nothing written.
    made = api.post(
        "/api/v1/tournaments/",
        {"name": "Cajas", "ruleset": "two_box", "table_size": 5},
        format="json",
    )
    slug = made.json()["slug"]
    names = "\n".join(f"P{i}" for i in range(7))
    api.post(f"/api/v1/tournaments/{slug}/entrants/", {"text": names}, format="json")
    api.post(
        f"/api/v1/tournaments/{slug}/stages/",
        {"name": "RR", "format": "round_robin", "settings": {"rounds": 2}},
        format="json",
    )
    refused = api.post(f"/api/v1/tournaments/{slug}/rounds/", {}, format="json")
    assert refused.status_code == 400, refused.json()
    text = str(refused.json())
    assert "7 entrants cannot be seated" in text and "6 or 8 entrants would" in text
    assert not Match.objects.filter(round__stage__tournament__slug=slug).exists()
    spanish = api.post(
        f"/api/v1/tournaments/{slug}/rounds/", {}, format="json", HTTP_ACCEPT_LANGUAGE="es"
    )
    assert "No se puede sentar a 7 inscritos" in str(spanish.json())


@pytest.mark.django_db(transaction=True)
def test_a_player_who_sits_out_is_told_of_the_bye_not_a_table(organizer):
    from django.core import mail

    from players import registration

    tournament = create_tournament(by=organizer, name="Noche", ruleset_key="dcs", table_size=4)
    registration.open_registration(tournament, by=organizer)
    people = [
        UserFactory(username=name.lower(), first_name=name, last_name="R")
        for name in ("Ana", "Beto", "Cira", "Dino", "Eva")
    ]
    for person in people:
        registration.enter(tournament, by=person)
    stage = add_stage(tournament, by=organizer, name="S", format="swiss", settings={"rounds": 2})
    round_ = generate_round(stage, by=organizer)
    out = round_.matches.get(bye=True).seats.get().entrant.player.user
    mail.outbox.clear()
    publish_round(round_, by=organizer)
    assert len(mail.outbox) == 5
    told = next(m for m in mail.outbox if m.to == [out.email])
    assert "table" not in told.subject.replace("your table is published", "")
    assert "table 1" not in told.subject and "table 1" not in told.body
    assert "you have a bye" in told.body
    others = [m for m in mail.outbox if m.to != [out.email]]
    assert all("you play at table 1" in m.body for m in others)

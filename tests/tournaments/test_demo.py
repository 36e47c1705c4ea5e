"""load_demo builds the promised event through the services, with legal hands."""

import io

import pytest
from django.contrib.auth import authenticate
from django.core.management import CommandError, call_command
from django.db.models import Count, Q
from django.http import HttpRequest

from players.models import Player
from scoring.models import Game
from scoring.selectors import replay_all
from tournaments.models import Entrant, Match, Round, StandingsSnapshot, Tournament


@pytest.mark.django_db(transaction=True)
def test_load_demo_builds_the_events_with_logins():
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    printed = out.getvalue()
    for path in ("/t/cutthroat-open/", "/t/liga-de-parejas/", "/t/copa-doble-seis/"):
        assert f"http://127.0.0.1:8000{path}" in printed
    for username, password in (
        ("organizer", "capicu-organizer"),
        ("referee1", "capicu-referee"),
        ("referee2", "capicu-referee"),
    ):
        assert username in printed and password in printed
        # The login lock-out (django-axes) keys on the request, so authenticate needs one.
        assert authenticate(HttpRequest(), username=username, password=password) is not None

    open_ = Tournament.objects.get(slug="cutthroat-open")
    assert open_.entrants.count() == 18 and open_.table_size == 4
    rounds = list(Round.objects.filter(stage__tournament=open_).order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3, 4]
    for round_ in rounds[:3]:
        games = Game.objects.filter(match__round=round_)
        assert games.exists() and all(g.status == "finished" for g in games)
    live = Game.objects.filter(match__round=rounds[3])
    assert {g.status for g in live} == {"finished", "in_progress"}
    assert all(m.referee_id for m in Match.objects.filter(round__in=rounds, bye=False))

    league = Tournament.objects.get(slug="liga-de-parejas")
    assert league.entrants.count() == 8 and league.is_teams
    assert Round.objects.filter(stage__tournament=league).count() == 4

    cup = Tournament.objects.get(slug="copa-doble-seis")
    assert cup.entrants.count() == 16
    first = Game.objects.filter(match__round__stage__tournament=cup, match__round__number=1)
    assert first.count() == 8 and all(g.status == "finished" for g in first)
    second = Game.objects.filter(match__round__stage__tournament=cup, match__round__number=2)
    assert {g.status for g in second} == {"finished", "in_progress"}

    # Fifteen DCS players at tables of four: three tables and three byes a round, the
    # byes numbered after the tables and never the same player twice.
    dcs = Tournament.objects.get(slug="noche-dcs")
    assert dcs.entrants.count() == 15 and dcs.ruleset_key == "dcs"
    sat_out = []
    for round_ in Round.objects.filter(stage__tournament=dcs):
        played = round_.matches.filter(bye=False)
        assert sorted(played.values_list("table_number", flat=True)) == [1, 2, 3]
        byes = round_.matches.filter(bye=True)
        assert byes.count() == 3
        sat_out += [m.seats.get().entrant_id for m in byes]
    assert len(sat_out) == 6 and len(set(sat_out)) == 6

    for tournament in (open_, league, cup, dcs):
        assert StandingsSnapshot.objects.filter(tournament=tournament).exists()
    # The series of two events, the leaderboards and the ladder session (circuit.demo).
    from circuit.models import LadderSession, Rating, Series
    from circuit.services.ladders import session_floor
    from circuit.services.series import read_standings

    friday = read_standings(Series.objects.get(name="Friday Cut-Throat Challenge"))
    assert [e["played"] for e in friday["events"]] == [True, True]
    assert friday["lines"][0]["rank"] == 1 and len(friday["lines"]) == 9
    assert any(line["played"] == 2 for line in friday["lines"])
    assert Rating.objects.filter(pool="individual", games__gte=5).exists()
    assert Rating.objects.filter(pool="partners").exists()
    waiting, tables = session_floor(LadderSession.objects.get(name="Tuesday Ladder"))
    assert len(waiting) == 2 and len(tables) == 2

    replays = replay_all(Game.objects.all())
    assert replays and all(r.agrees for r in replays), [
        r.describe() for r in replays if not r.agrees
    ]

    # One person, many events: the league's players are the Open's, two also play the cup,
    # and the ``ana`` login is Ana Rivera's player.
    ana = Player.objects.get(display_name="Ana Rivera")
    assert ana.user.username == "ana" and "ana" in printed
    in_events = Entrant.objects.filter(Q(player=ana) | Q(partner=ana)).values("tournament")
    assert in_events.count() == 3  # the Open, the league and a Friday challenge
    several = Player.objects.annotate(
        events=Count("entries", distinct=True) + Count("partner_entries", distinct=True)
    ).filter(events__gt=1)
    # The Open's eighteen (league, series) and the DCS night's fifteen (cup, Open): all 32.
    assert several.count() == 32
    assert Player.objects.count() == 32

    with pytest.raises(CommandError):
        call_command("load_demo", stdout=io.StringIO())
    again = io.StringIO()
    call_command("load_demo", "--if-empty", stdout=again)
    assert "no demo loaded" in again.getvalue()

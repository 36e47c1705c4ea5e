"""The event day: check-in that decides who is seated, late arrivals, and a bracket's
walkovers."""

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tests.factories import UserFactory, client_for, event_referee
from tests.tournaments.test_services import NAMES, play_out
from tournaments import clock, services
from tournaments.models import Entrant, Match, MatchSeat, Round
from tournaments.services import (
    TournamentConflict,
    TournamentError,
    add_stage,
    advance_bracket,
    assign_referee,
    check_in,
    create_tournament,
    forfeits,
    generate_round,
    publish_round,
    register_entrants,
    set_check_in,
    withdraw,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


def event(organizer, players: int, *, table_size: int = 4, time_zone: str = "UTC"):
    tournament = create_tournament(
        by=organizer,
        name="Copa",
        ruleset_key="cutthroat",
        table_size=table_size,
        time_zone=time_zone,
    )
    register_entrants(tournament, by=organizer, text="\n".join(NAMES[:players]))
    return tournament


def seated(round_: Round) -> set[int]:
    return set(MatchSeat.objects.filter(round=round_).values_list("entrant_id", flat=True))


def check_in_all_but(tournament, organizer, *absent):
    for entrant in tournament.entrants.all():
        if entrant.name not in absent:
            check_in(entrant, by=organizer)


def test_a_stage_that_requires_check_in_seats_only_those_checked_in(organizer):
    tournament = event(organizer, 9)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer, NAMES[8])
    round_ = generate_round(stage, by=organizer)
    absent = tournament.entrants.get(name=NAMES[8])
    assert absent.pk not in seated(round_)
    assert len(seated(round_)) == 8
    assert round_.matches.count() == 2


def test_without_the_requirement_everyone_is_seated_checked_in_or_not(organizer):
    tournament = event(organizer, 8)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = generate_round(stage, by=organizer)
    assert len(seated(round_)) == 8


def test_a_late_arrival_joins_from_the_next_round_and_an_absent_player_sits_out(organizer):
    tournament = event(organizer, 8, table_size=2)
    stage = add_stage(
        tournament, by=organizer, name="Swiss", format="swiss", settings={"rounds": 3}
    )
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer, NAMES[7], NAMES[6])
    late = tournament.entrants.get(name=NAMES[7])
    first = generate_round(stage, by=organizer)
    assert len(seated(first)) == 6 and late.pk not in seated(first)
    publish_round(first, by=organizer)
    referee = event_referee(tournament)
    rng = random.Random(4)
    for match in first.matches.filter(bye=False):
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, rng)
    # The late one arrives; one who played round 1 leaves the hall.
    check_in(late, by=organizer)
    gone = tournament.entrants.get(pk=next(iter(seated(first))))
    check_in(gone, by=organizer, checked_in=False)
    second = generate_round(stage, by=organizer)
    assert late.pk in seated(second)
    assert gone.pk not in seated(second)
    assert len(seated(second)) == 6


def test_a_late_arrival_joins_a_round_robin_from_the_next_round(organizer):
    tournament = event(organizer, 9)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer, NAMES[8])
    first = generate_round(stage, by=organizer)
    publish_round(first, by=organizer)
    late = tournament.entrants.get(name=NAMES[8])
    check_in(late, by=organizer)
    second = generate_round(stage, by=organizer)
    assert late.pk not in seated(first)
    assert late.pk in seated(second) and len(seated(second)) == 9


def test_check_in_is_refused_outside_its_window_unless_the_organizer_overrides(organizer):
    tournament = event(organizer, 4, time_zone="America/Puerto_Rico")
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    now = timezone.now()
    set_check_in(
        stage,
        by=organizer,
        required=True,
        opens=now + timedelta(hours=1),
        closes=now + timedelta(hours=3),
    )
    entrant = tournament.entrants.first()
    with pytest.raises(TournamentConflict) as early:
        check_in(entrant, by=organizer)
    # Said on the event's clock (UTC-4), not the server's.
    local = (now + timedelta(hours=1)).astimezone(clock.zone(tournament))
    assert local.strftime("%H:%M") in early.value.message
    assert "America/Puerto_Rico" in early.value.message
    assert check_in(entrant, by=organizer, override=True).checked_in
    # Marking someone absent is never refused.
    assert not check_in(entrant, by=organizer, checked_in=False).checked_in
    set_check_in(stage, by=organizer, required=True, closes=now - timedelta(minutes=1))
    with pytest.raises(TournamentConflict) as late:
        check_in(entrant, by=organizer)
    assert "closed" in late.value.message
    set_check_in(stage, by=organizer, required=True, opens=now - timedelta(hours=1))
    assert check_in(entrant, by=organizer).checked_in


def test_a_window_is_only_checked_where_the_stage_requires_check_in(organizer):
    tournament = event(organizer, 4)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=False, closes=timezone.now() - timedelta(hours=1))
    assert check_in(tournament.entrants.first(), by=organizer).checked_in


def test_a_window_must_open_before_it_closes(organizer):
    tournament = event(organizer, 4)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    now = timezone.now()
    with pytest.raises(TournamentError) as error:
        set_check_in(stage, by=organizer, required=True, opens=now, closes=now)
    assert error.value.field == "check_in_closes"
    with pytest.raises(TournamentError):
        set_check_in(stage, by=organizer, required=True, opens=datetime(2026, 5, 1, 9, 0))
    with pytest.raises(TournamentError):
        set_check_in(stage, by=organizer, required="yes")
    outsider = UserFactory(username="outsider")
    with pytest.raises(Exception):  # noqa: B017 - the permission registry's refusal
        set_check_in(stage, by=outsider, required=True)


def test_times_are_read_and_shown_on_the_events_clock(organizer):
    tournament = event(organizer, 2, time_zone="Europe/Madrid")
    moment = clock.read_local("2026-07-01T09:30", tournament)
    assert moment.astimezone(UTC).hour == 7  # summer time, UTC+2
    assert clock.local_text(moment, tournament) == "2026-07-01 09:30 (Europe/Madrid)"
    assert clock.input_value(moment, tournament) == "2026-07-01T09:30"
    assert clock.read_local("", tournament) is None
    for bad in ("tomorrow", "2026-13-01 10:00", "9" * 40):
        with pytest.raises(ValueError):
            clock.read_local(bad, tournament)


def test_a_withdrawn_entrants_bracket_table_is_a_walkover_with_no_game(organizer):
    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    gone = tournament.entrants.get(name=NAMES[3])  # seed 4 meets seed 1
    withdraw(gone, by=organizer)
    first = generate_round(stage, by=organizer)
    walkover = Match.objects.get(round=first, seats__entrant=gone)
    assert walkover.game is None and not walkover.bye
    seats = {s.entrant_id: s.did_not_play for s in walkover.seats.all()}
    assert seats[gone.pk] == MatchSeat.DidNotPlay.WITHDRAWN
    winner = next(pk for pk, why in seats.items() if not why)
    publish_round(first, by=organizer)
    other = Match.objects.get(round=first, game__isnull=False)
    referee = event_referee(tournament)
    assign_referee(other, referee, by=organizer)
    play_out(other.game, referee, random.Random(1))
    advance_bracket(other)
    final = Match.objects.get(round__stage=stage, slot="R2-1")
    assert winner in set(final.seats.values_list("entrant_id", flat=True))
    assert final.game is not None


def test_an_absent_entrant_in_a_bracket_that_requires_check_in_gives_a_walkover(organizer):
    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer)
    first = generate_round(stage, by=organizer)
    publish_round(first, by=organizer)
    referee = event_referee(tournament)
    for match in first.matches.all():
        assign_referee(match, referee, by=organizer)
        play_out(match.game, referee, random.Random(match.pk))
    winners = [s.entrant for m in first.matches.all() for s in m.seats.all() if s.won]
    # One winner leaves before the final is seated: the final is a walkover.
    check_in(winners[0], by=organizer, checked_in=False)
    for match in first.matches.all():
        advance_bracket(match)
    final = Match.objects.get(round__stage=stage, slot="R2-1")
    assert final.game is None
    why = {s.entrant_id: s.did_not_play for s in final.seats.all()}
    assert why == {winners[0].pk: "no_show", winners[1].pk: ""}


# --- through the API ----------------------------------------------------------------------


def test_the_api_sets_a_stages_check_in_on_the_events_clock(organizer):
    tournament = event(organizer, 4, time_zone="America/Puerto_Rico")
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    url = f"/api/v1/tournaments/{tournament.slug}/stages/{stage.order}/check-in/"
    assert client_for(None).post(url, {"required": True}, format="json").status_code in (401, 403)
    api = client_for(organizer)
    answer = api.post(
        url,
        {"required": True, "opens": "2026-05-01T08:00", "closes": "2026-05-01T09:30-04:00"},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["check_in_required"] is True
    # Without an offset, 08:00 on the event's clock (UTC-4) is 12:00 UTC.
    stage.refresh_from_db()
    assert stage.check_in_opens == datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    assert stage.check_in_closes == datetime(2026, 5, 1, 13, 30, tzinfo=UTC)
    for bad in (
        {"required": "yes"},
        {"required": True, "opens": "soon"},
        {"required": True, "opens": "0001-01-01T00:00+05:00"},
    ):
        assert api.post(url, bad, format="json").status_code == 400, bad
    backwards = api.post(
        url,
        {"required": True, "opens": "2026-05-02T08:00", "closes": "2026-05-01T08:00"},
        format="json",
    )
    assert backwards.status_code == 400
    assert "closes" in str(backwards.json())


def test_the_api_refuses_a_check_in_outside_the_window_unless_overridden(organizer):
    tournament = event(organizer, 4)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=True, closes=timezone.now() - timedelta(hours=1))
    entrant = tournament.entrants.first()
    url = f"/api/v1/tournaments/{tournament.slug}/entrants/{entrant.pk}/check-in/"
    api = client_for(organizer)
    refused = api.post(url, {}, format="json")
    assert refused.status_code == 409
    assert "Check-in closed at" in refused.json()["detail"]
    assert api.post(url, {"override": "yes"}, format="json").status_code == 400
    done = api.post(url, {"override": True}, format="json")
    assert done.status_code == 200 and done.json()["checked_in"] is True
    stages = api.get(f"/api/v1/tournaments/{tournament.slug}/stages/").json()["results"]
    assert stages[0]["check_in_required"] is True


# --- on the manage page -------------------------------------------------------------------


def test_the_manage_page_sets_check_in_and_seats_only_those_present(client, organizer):
    tournament = event(organizer, 9, time_zone="Europe/Madrid")
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    client.force_login(organizer)
    manage = f"/t/{tournament.slug}/manage/"
    answer = client.post(
        f"{manage}event-day/check-in/",
        {"stage": stage.pk, "required": "1", "opens": "2026-07-01T09:00", "closes": ""},
        follow=True,
    )
    assert "RR seats only checked-in entrants." in answer.content.decode()
    stage.refresh_from_db()
    assert stage.check_in_required
    assert stage.check_in_opens == datetime(2026, 7, 1, 7, 0, tzinfo=UTC)
    page = client.get(manage).content.decode()
    assert 'value="2026-07-01T09:00"' in page and "Europe/Madrid" in page
    bad = client.post(
        f"{manage}event-day/check-in/",
        {"stage": stage.pk, "required": "1", "opens": "next tuesday"},
        follow=True,
    )
    assert "Give a date and a time" in bad.content.decode()
    assert (
        client.post(f"{manage}event-day/check-in/", {"stage": "x"}, follow=True).status_code == 200
    )
    for entrant in tournament.entrants.exclude(name=NAMES[8]):
        client.post(f"{manage}check-in/", {"entrant": entrant.pk, "present": "1"})
    client.post(f"{manage}generate/", {"stage": stage.pk})
    round_ = Round.objects.get(stage=stage)
    absent = tournament.entrants.get(name=NAMES[8])
    assert absent.pk not in seated(round_)
    page = client.get(manage).content.decode()
    assert "Not seated in round 1:" in page and f"{NAMES[8]} (not checked in)" in page


def test_the_manage_page_offers_to_check_in_anyway_when_the_window_is_shut(client, organizer):
    tournament = event(organizer, 4)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    set_check_in(stage, by=organizer, required=True, closes=timezone.now() - timedelta(hours=1))
    client.force_login(organizer)
    manage = f"/t/{tournament.slug}/manage/"
    page = client.get(manage).content.decode()
    assert "Check in anyway" in page and "Check-in closed at" in page
    entrant = tournament.entrants.first()
    refused = client.post(
        f"{manage}check-in/", {"entrant": entrant.pk, "present": "1"}, follow=True
    )
    assert "Check-in closed at" in refused.content.decode()
    entrant.refresh_from_db()
    assert not entrant.checked_in
    client.post(f"{manage}check-in/", {"entrant": entrant.pk, "present": "1", "override": "1"})
    entrant.refresh_from_db()
    assert entrant.checked_in


def test_the_manage_page_records_a_no_show(client, organizer):
    tournament = event(organizer, 8)
    stage = add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = generate_round(stage, by=organizer)
    client.force_login(organizer)
    manage = f"/t/{tournament.slug}/manage/"
    seat = (
        MatchSeat.objects.filter(round=round_).order_by("match__table_number", "position").first()
    )
    # A draft round offers no form, and a post is refused.
    assert 'id="did-not-play-form"' not in client.get(manage).content.decode()
    refused = client.post(
        f"{manage}event-day/did-not-play/",
        {"seat": seat.pk, "reason": "no_show", "confirm": "1"},
        follow=True,
    )
    assert "not published yet" in refused.content.decode()
    publish_round(round_, by=organizer)
    assert 'id="did-not-play-form"' in client.get(manage).content.decode()
    for junk in ({"seat": "abc", "reason": "no_show"}, {"seat": seat.pk, "reason": "late"}):
        answer = client.post(f"{manage}event-day/did-not-play/", junk, follow=True)
        assert answer.status_code == 200
        assert not MatchSeat.objects.get(pk=seat.pk).did_not_play
    done = client.post(
        f"{manage}event-day/did-not-play/",
        {"seat": seat.pk, "reason": "no_show", "back": "stage=1&round=1", "confirm": "1"},
        follow=True,
    )
    text = done.content.decode()
    assert f"{seat.entrant.name} did not play at table 1 (no-show)" in text
    assert "forfeit (no-show)" in text
    assert MatchSeat.objects.get(pk=seat.pk).did_not_play == "no_show"
    other = UserFactory(username="other")
    client.force_login(other)
    assert client.post(f"{manage}event-day/did-not-play/", {"seat": seat.pk}).status_code == 403


def test_a_walkover_shows_on_the_public_page_and_in_the_api(client, organizer):
    tournament = event(organizer, 4, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    withdraw(tournament.entrants.get(name=NAMES[3]), by=organizer)
    first = generate_round(stage, by=organizer)
    publish_round(first, by=organizer)
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    assert "forfeit (withdrawn)" in page
    tables = client.get(f"/t/{tournament.slug}/?stage=1").content.decode()
    assert "walkover" in tables
    body = client_for(None).get(f"/api/v1/tournaments/{tournament.slug}/rounds/1/").json()
    assert sorted(m["status"] for m in body["matches"]) == ["scheduled", "walkover"]
    client.force_login(organizer)
    assert client.get(f"/t/{tournament.slug}/rounds/1/cards/").status_code == 200
    assert client.get(f"/t/{tournament.slug}/rounds/1/sheets/").status_code == 200
    assert client.get(f"/t/{tournament.slug}/manage/").status_code == 200
    export = client.get(f"/t/{tournament.slug}/export/results.csv")
    rows = b"".join(export.streaming_content).decode().splitlines()
    walkovers = [row for row in rows if ",walkover," in row]
    assert len(walkovers) == 2 and walkovers[1].endswith(",yes,withdrawn")


def test_the_drawn_bracket_is_sized_by_the_checked_in_field_not_everyone_registered(organizer):
    from tournaments.read import selectors

    tournament = event(organizer, 8, table_size=2)
    stage = add_stage(tournament, by=organizer, name="Llave", format="single_elimination")
    stage = set_check_in(stage, by=organizer, required=True)
    check_in_all_but(tournament, organizer, *NAMES[4:8])  # four of eight arrive

    def slots(include_drafts=True):
        drawn = selectors.bracket(stage, tournament, include_drafts=include_drafts)
        return [slot.key for _, columns in drawn for column in columns for slot in column.slots]

    assert len(slots()) == 3  # two semi-finals and a final for four, before any round
    first = generate_round(stage, by=organizer)
    assert first.matches.count() == 2
    drawn = selectors.bracket(stage, tournament, include_drafts=True)
    seated_slots = [s.table for _, cols in drawn for col in cols for s in col.slots if s.table]
    assert len(seated_slots) == 2 and len(slots()) == 3


# --- withdrawing someone whose table has not started -------------------------------------


def _published(tournament, organizer, name="Liga", format="round_robin"):
    stage = add_stage(tournament, by=organizer, name=name, format=format)
    round_ = generate_round(stage, by=organizer)
    return publish_round(round_, by=organizer)


def test_a_withdrawal_before_the_game_starts_lets_the_table_play_on_with_one_fewer(organizer):
    from scoring.models import Game

    tournament = event(organizer, 8)
    round_ = _published(tournament, organizer)
    table = Match.objects.filter(round=round_).order_by("table_number").first()
    old_game = table.game_id
    leaving = table.seats.order_by("position")[1].entrant
    stay = [s.entrant_id for s in table.seats.order_by("position") if s.entrant_id != leaving.pk]
    assert forfeits.leaving_options(table.seats.get(entrant=leaving)) == ["play_on", "forfeit"]
    withdraw(leaving, by=organizer, unstarted="play_on")
    table.refresh_from_db()
    assert table.game_id != old_game and not Game.objects.filter(pk=old_game).exists()
    assert [s.entrant_id for s in table.seats.order_by("position")] == stay
    assert [s.position for s in table.seats.order_by("position")] == [0, 1, 2]
    assert table.game.status == Game.Status.SCHEDULED and not table.game.forfeits
    assert table.game.seats.count() == 3
    assert list(table.game.seats.values_list("player__display_name", flat=True)) == [
        tournament.entrants.get(pk=pk).name for pk in stay
    ]
    assert Entrant.objects.get(pk=leaving.pk).withdrawn


def test_a_withdrawal_can_seat_the_entrant_who_had_the_bye_in_their_place(organizer):
    tournament = create_tournament(by=organizer, name="Parejas", ruleset_key="partners")
    register_entrants(tournament, by=organizer, text="Ana & Beto\nCruz & Dora\nEva & Fito")
    round_ = _published(tournament, organizer)
    bye = Match.objects.get(round=round_, bye=True)
    free = bye.seats.get().entrant
    table = Match.objects.get(round=round_, bye=False)
    seat = table.seats.order_by("position").first()
    leaving = seat.entrant
    # Partners is played four at a table only: nobody plays on one team short.
    assert forfeits.leaving_options(seat) == ["reseat", "forfeit"]
    assert forfeits.substitutes(seat) == [free]
    with pytest.raises(TournamentConflict):
        withdraw(leaving, by=organizer, unstarted="play_on")
    assert not Entrant.objects.get(pk=leaving.pk).withdrawn  # refused: nothing changed
    withdraw(leaving, by=organizer, unstarted="reseat", substitute=free)
    seat.refresh_from_db()
    assert seat.entrant_id == free.pk
    assert not Match.objects.filter(pk=bye.pk).exists()
    names = list(table.game.seats.order_by("position").values_list("display_name", flat=True))
    assert names[0] == free.player.display_name and names[2] == free.partner.display_name
    table.game.refresh_from_db()
    assert table.game.status == "scheduled"


def test_a_forfeit_on_withdrawal_is_what_the_organizer_chose(organizer):
    tournament = event(organizer, 8)
    round_ = _published(tournament, organizer)
    table = Match.objects.filter(round=round_).order_by("table_number").first()
    leaving = table.seats.order_by("position").first().entrant
    withdraw(leaving, by=organizer, unstarted="forfeit")
    table.game.refresh_from_db()
    assert table.game.status == "finished" and table.game.forfeits == "A"


def test_the_api_withdraws_only_once_confirmed_and_told_what_happens_at_the_table(organizer):
    tournament = event(organizer, 8)
    round_ = _published(tournament, organizer)
    table = Match.objects.filter(round=round_).order_by("table_number").first()
    leaving = table.seats.order_by("position").first().entrant
    api = client_for(organizer)
    url = f"/api/v1/tournaments/{tournament.slug}/entrants/{leaving.pk}/withdraw/"
    unconfirmed = api.post(url, {}, format="json")
    assert unconfirmed.status_code == 400
    assert "Table 1 has not started" in unconfirmed.json()["detail"]
    assert "confirm" in unconfirmed.json()["errors"]
    unsaid = api.post(url, {"confirm": True}, format="json")
    assert unsaid.status_code == 400 and "unstarted" in unsaid.json()["errors"]
    assert not Entrant.objects.get(pk=leaving.pk).withdrawn
    table.game.refresh_from_db()
    assert table.game.status == "scheduled"  # nothing changed
    done = api.post(url, {"confirm": True, "unstarted": "play_on"}, format="json")
    assert done.status_code == 200, done.content
    table.refresh_from_db()
    assert table.game.seats.count() == 3 and table.game.status == "scheduled"
    schema = client_for(None).get("/api/schema/").content.decode()
    assert "true to confirm the act" in schema


def test_the_manage_page_withdraws_only_once_confirmed_and_stays_on_the_row(client, organizer):
    tournament = event(organizer, 8)
    round_ = _published(tournament, organizer)
    table = Match.objects.filter(round=round_).order_by("table_number").first()
    leaving = table.seats.order_by("position").first().entrant
    client.force_login(organizer)
    manage = f"/t/{tournament.slug}/manage/"
    page = client.get(manage).content.decode()
    assert f'id="entrant-{leaving.pk}"' in page and "Table 1 plays on with 3 players." in page
    # Without the confirmation nothing changes, and the page says what it would do.
    refused = client.post(f"{manage}withdraw/", {"entrant": leaving.pk}, follow=True)
    assert "leaves the event" in refused.content.decode()
    assert not Entrant.objects.get(pk=leaving.pk).withdrawn
    # htmx: only the entrants list comes back, with what was done on the row.
    answer = client.post(
        f"{manage}withdraw/",
        {"entrant": leaving.pk, "confirm": "1", "unstarted": "play_on"},
        HTTP_HX_REQUEST="true",
    )
    text = answer.content.decode()
    assert answer.status_code == 200 and "<html" not in text and 'id="entrants"' in text
    assert "their table plays on without them" in text
    # The event-day panel (who is seated, who is checked in) comes along, out of band.
    assert 'id="event-day" hx-swap-oob="true"' in text
    table.refresh_from_db()
    assert table.game.seats.count() == 3
    other = tournament.entrants.filter(withdrawn=False).first()
    plain = client.post(f"{manage}check-in/", {"entrant": other.pk, "present": "1"})
    assert plain.status_code == 302 and plain["Location"].endswith(f"#entrant-{other.pk}")


def test_a_no_show_recorded_in_spanish_keeps_its_reason_in_english_words(organizer):
    from django.utils import translation

    from scoring.models import OfficialAct

    tournament = event(organizer, 8)
    round_ = _published(tournament, organizer)
    seat = MatchSeat.objects.filter(round=round_).order_by("pk").first()
    with translation.override("es"):
        services.record_did_not_play(seat, by=organizer, reason="no_show", note="no llegó")
    assert OfficialAct.objects.get(kind="forfeit").reason == "No-show: no llegó"

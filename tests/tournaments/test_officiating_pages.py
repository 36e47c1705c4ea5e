"""Officiating on the pages: the play clock and its violation buttons at the table,
the leader question, re-deals, disputes with photos, sanctions, the organizer's
disputes, disqualification and the audit list, for each role."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Dispute, Game, OfficialAct, ScoreEvent
from tests.factories import UserFactory, event_referee
from tournaments import services
from tournaments.models import Entrant, MatchSeat

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def dcs_event(organizer, referee, ruleset_key="dcs"):
    tournament = services.create_tournament(
        by=organizer, name="Copa DCS", ruleset_key=ruleset_key, table_size=4
    )
    services.register_entrants(
        tournament, by=organizer, text="\n".join(f"Jugador {i:02d}" for i in range(8))
    )
    stage = services.add_stage(tournament, by=organizer, name="RR", format="round_robin")
    round_ = services.generate_round(stage, by=organizer)
    services.publish_round(round_, by=organizer)
    event_referee(tournament, user=referee)
    match = round_.matches.order_by("table_number").first()
    services.assign_referee(match, referee, by=organizer)
    return tournament, match.game


@pytest.fixture
def organizer():
    return UserFactory(username="organizer")


@pytest.fixture
def referee():
    return UserFactory(username="referee")


@pytest.fixture
def table(organizer, referee):
    return dcs_event(organizer, referee)


def officiate(client, game, action, **data):
    return client.post(f"/games/{game.pk}/score/officiate/{action}/", data, **HTMX)


def test_the_play_clock_shows_for_a_rule_set_with_one(client, table, referee, organizer):
    _, game = table
    client.force_login(referee)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert 'data-seconds="30"' in page
    assert "Clock violation" in page
    assert "Who holds the highest double? (else the highest tile)" in page
    _, cutthroat = dcs_event(organizer, UserFactory(), ruleset_key="cutthroat")
    client.force_login(organizer)
    other = client.get(f"/games/{cutthroat.pk}/score/").content.decode()
    assert "data-seconds" not in other and "Forced pass" in other
    assert "Who holds the double six?" in other


def test_violations_from_the_page_escalate(client, table, referee):
    _, game = table
    client.force_login(referee)
    first = officiate(client, game, "clock_violation", seat="B")
    assert first.status_code == 200
    assert "Forced pass for" in first.content.decode()
    # Answered like the panel's own actions: the panel, and the outcome for the outbox.
    assert first["X-Capicu-Outcome"] == "saved"
    assert 'id="panel"' in first.content.decode()
    second = officiate(client, game, "clock_violation", seat="B").content.decode()
    assert "Penalty for" in second and "-10" in second
    events = ScoreEvent.objects.filter(game=game, violation=True).order_by("pk")
    assert [(e.kind, e.points) for e in events] == [("forced_pass", 0), ("penalty", -10)]
    assert officiate(client, game, "forced_pass", seat="C").status_code == 200
    # A referee's penalty is the rule set's amount, whatever the form says.
    officiate(client, game, "penalty", seat="D", reason="talking", points="50")
    penalty = ScoreEvent.objects.filter(game=game, seat__name="D").get()
    assert (penalty.points, penalty.note) == (-10, "talking")


def test_an_organizer_sets_another_penalty_amount(client, table, organizer):
    _, game = table
    client.force_login(organizer)
    officiate(client, game, "penalty", seat="A", reason="phone rang", points="25")
    assert ScoreEvent.objects.get(game=game).points == -25


def test_the_leader_question_and_a_redeal(client, table, referee):
    _, game = table
    client.force_login(referee)
    answer = officiate(client, game, "leader", seat="C").content.decode()
    assert "leads hand 1" in answer
    game.refresh_from_db()
    assert game.next_leader == "C"
    redeal = officiate(client, game, "redeal").content.decode()
    assert "nothing was scored" in redeal
    game.refresh_from_db()
    assert game.next_leader == "" and game.hand_count == 0
    assert OfficialAct.objects.filter(game=game, kind="redeal").count() == 1


def test_wrong_input_is_said_in_the_part_not_a_crash(client, table, referee):
    _, game = table
    client.force_login(referee)
    for action, data in [
        ("clock_violation", {"seat": "Z"}),
        ("leader", {}),
        ("dispute", {"note": ""}),
        ("dispute", {"note": "x", "hand": "99999999999"}),
        ("penalty", {"seat": "Q"}),
        ("forced_pass", {}),
    ]:
        answer = officiate(client, game, action, **data)
        assert answer.status_code == 200
        if action == "dispute":  # the officiating part carries it for the phone's bar
            assert 'data-error=""' not in answer.content.decode()
            assert 'id="officiating"' in answer.content.decode()
        else:  # the phone's bar says it: the panel carries the message
            assert answer["X-Capicu-Outcome"] == "refused"
            assert 'data-error=""' not in answer.content.decode()
    assert officiate(client, game, "nonsense", seat="A").status_code == 404


def test_only_organizers_sanction_from_the_page(client, table, referee, organizer):
    _, game = table
    client.force_login(referee)
    assert officiate(client, game, "forfeit", seat="A", reason="x").status_code == 403
    assert officiate(client, game, "deduct", seat="A", points="5", reason="x").status_code == 403
    client.force_login(organizer)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert "Sanctions (organizers)" in page
    done = officiate(client, game, "deduct", seat="A", points="15", reason="rude").content.decode()
    assert "15 points deducted" in done
    officiate(client, game, "forfeit", seat="B", reason="left the hall")
    game.refresh_from_db()
    assert game.status == "finished" and game.forfeits == "B"


def test_strangers_and_anonymous_cannot_officiate(client, table):
    _, game = table
    assert officiate(client, game, "clock_violation", seat="A").status_code == 302
    client.force_login(UserFactory(username="stranger"))
    assert officiate(client, game, "clock_violation", seat="A").status_code in (403, 404)
    assert officiate(client, game, "dispute", note="x").status_code in (403, 404)


def test_a_dispute_from_the_table_to_the_organizer(
    client, table, referee, organizer, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    tournament, game = table
    client.force_login(referee)
    photo = SimpleUploadedFile("mesa.png", PNG, content_type="image/png")
    answer = client.post(
        f"/games/{game.pk}/score/officiate/dispute/",
        {"note": "the 6-5 was played", "photos": [photo]},
        **HTMX,
    ).content.decode()
    assert "Under dispute" in answer
    # Public page and the referee's manage access.
    client.logout()
    assert "Under dispute" in client.get(f"/games/{game.pk}/").content.decode()
    client.force_login(referee)
    assert client.get(f"/t/{tournament.slug}/manage/").status_code == 403
    assert client.get(f"/t/{tournament.slug}/manage/audit/").status_code == 403
    dispute = Dispute.objects.get()
    assert (
        client.post(
            f"/t/{tournament.slug}/manage/disputes/{dispute.pk}/resolve/",
            {"outcome": "dismissed", "reason": "x"},
        ).status_code
        == 403
    )
    client.force_login(organizer)
    manage = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "1 open dispute" in manage and "the 6-5 was played" in manage
    refused = client.post(
        f"/t/{tournament.slug}/manage/disputes/{dispute.pk}/resolve/",
        {"outcome": "dismissed", "reason": ""},
        follow=True,
    )
    assert "Say why" in refused.content.decode()
    client.post(
        f"/t/{tournament.slug}/manage/disputes/{dispute.pk}/resolve/",
        {"outcome": "dismissed", "reason": "the video shows 6-4"},
    )
    dispute.refresh_from_db()
    assert (dispute.status, dispute.resolution) == ("dismissed", "the video shows 6-4")
    audit = client.get(f"/t/{tournament.slug}/manage/audit/").content.decode()
    assert "Dispute opened" in audit and "the video shows 6-4" in audit


def test_an_upheld_dispute_with_its_correction_from_the_manage_page(
    client, table, referee, organizer
):
    tournament, game = table
    from scoring import services as scoring

    scoring.record_hand(
        game, by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    client.force_login(referee)
    officiate(client, game, "dispute", note="D held 2", hand="1")
    dispute = Dispute.objects.get()
    client.force_login(organizer)
    client.post(
        f"/t/{tournament.slug}/manage/disputes/{dispute.pk}/resolve/",
        {"outcome": "upheld", "reason": "photo", "ended": "block", "pips_D": "2"},
    )
    hand = game.hands.get(number=1, is_current=True)
    assert (hand.version, hand.pips["D"]) == (2, 2)
    assert Dispute.objects.get().status == "upheld"


def test_disqualify_from_the_manage_page(client, table, organizer):
    tournament, game = table
    seat = MatchSeat.objects.filter(match__game=game).order_by("position").first()
    client.force_login(organizer)
    client.post(
        f"/t/{tournament.slug}/manage/officiating/disqualify/",
        {"entrant": seat.entrant_id, "reason": "cheating", "confirm": "1"},
    )
    entrant = Entrant.objects.get(pk=seat.entrant_id)
    assert entrant.disqualified_reason == "cheating" and entrant.withdrawn
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.forfeits == "A"
    seat.refresh_from_db()
    assert seat.forfeit is True and seat.placement == 4
    assert (
        client.post(
            f"/t/{tournament.slug}/manage/officiating/disqualify/",
            {"entrant": "nope", "reason": "x"},
        ).status_code
        == 404
    )


def test_standings_and_exports_mark_disputes_forfeits_and_disqualifications(
    client, table, referee, organizer
):
    from scoring import officiating
    from tournaments.read.standings_store import rebuild_standings
    from tournaments.sanctions import disqualify

    tournament, game = table
    officiating.forfeit_seat(game, "B", "left the hall", organizer)
    officiating.open_dispute(game, by=referee, note="was B really gone?")
    seat_b = MatchSeat.objects.get(match__game=game, position=1)
    seat_a = MatchSeat.objects.get(match__game=game, position=0)
    disqualify(Entrant.objects.get(pk=seat_a.entrant_id), reason="cheating", by=organizer)
    rebuild_standings(tournament.pk)  # what the commit queues
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    assert "under dispute" in page and "forfeit" in page and "(disqualified)" in page
    entrant = client.get(f"/t/{tournament.slug}/entrants/{seat_a.entrant_id}/").content.decode()
    assert "Disqualified: cheating" in entrant
    answer = client.get(f"/t/{tournament.slug}/export/standings.csv")
    csv = b"".join(answer.streaming_content).decode().splitlines()
    header = csv[0].split(",")
    # The bracket's finish was appended after the marks (blank outside a bracket).
    assert header[-4:] == ["disputed", "forfeit", "disqualified", "bracket_finish"]
    by_name = {line.split(",")[4]: line.split(",") for line in csv[1:]}
    b_name = Entrant.objects.get(pk=seat_b.entrant_id).name
    a_name = Entrant.objects.get(pk=seat_a.entrant_id).name
    assert by_name[b_name][-4:] == ["yes", "yes", "no", ""]
    assert by_name[a_name][-4:] == ["yes", "no", "yes", ""]


def test_dispute_photos_are_served_to_officials_only(
    client, table, referee, organizer, settings, tmp_path
):
    from scoring import officiating

    settings.MEDIA_ROOT = tmp_path
    _, game = table
    photo = SimpleUploadedFile("mesa.png", PNG, content_type="image/png")
    dispute = officiating.open_dispute(game, by=referee, note="look", photos=[photo])
    url = dispute.photos.get().get_absolute_url()
    assert client.get(url).status_code == 302  # sign in first
    client.force_login(UserFactory(username="stranger"))
    assert client.get(url).status_code in (403, 404)
    client.force_login(organizer)
    answer = client.get(url)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "image/png"
    assert b"".join(answer.streaming_content) == PNG
    assert client.get(url.replace(str(dispute.photos.get().pk), "999")).status_code == 404


def test_a_hand_is_voided_from_the_phone_with_a_reason(client, table, referee):
    from scoring import services as scoring

    _, game = table
    scoring.record_hand(
        game, by=referee, number=1, ended="block", pips={"A": 8, "B": 15, "C": 22, "D": 12}
    )
    client.force_login(referee)
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert page.count("Why is this hand void?") == 1  # one void form, in the hands so far
    url = f"/games/{game.pk}/score/hands/1/void/"
    refused = client.post(url, {"reason": "", "key": "k1"}, **HTMX)
    assert refused["X-Capicu-Outcome"] == "refused"
    done = client.post(url, {"reason": "misdeal", "key": "k2"}, **HTMX)
    assert "Hand 1 voided: misdeal" in done.content.decode()
    game.refresh_from_db()
    assert all(total == 0 for total in game.totals.values())
    act = OfficialAct.objects.get(game=game, kind="voided")
    assert (act.actor, act.reason) == (referee, "misdeal")


def test_a_forfeit_ranks_the_same_from_the_seats_and_from_the_games(table, organizer, referee):
    """The recompute sums the seats' results; the reference reads the games: a forfeit
    (placed last at a table where the forfeiting seat led) agrees in both."""
    from scoring import officiating
    from scoring import services as scoring
    from tests.tournaments.reference import load_rows
    from tournaments.read.standings import compute_standings, explain
    from tournaments.read.standings_store import rank_stages
    from tournaments.stage_facts import settings_for

    tournament, game = table
    scoring.record_hand(
        game,
        by=referee,
        number=1,
        ended="domino",
        domino_by="A",
        pips={"A": 0, "B": 5, "C": 9, "D": 20},
    )
    officiating.forfeit_seat(game, "A", "left the hall", organizer)
    places = list(
        MatchSeat.objects.filter(match__game=game)
        .order_by("position")
        .values_list("placement", flat=True)
    )
    assert places[0] == 4  # the leader by far, placed last
    settings_ = settings_for(tournament)
    reference = {
        stage: compute_standings(entrants, games, settings_, byes=byes)
        for stage, (entrants, games, byes) in load_rows(tournament).items()
    }
    stored = {
        stage: explain(rows, settings_.order) for stage, rows in rank_stages(tournament)[0].items()
    }
    assert stored == reference


def test_an_officiating_act_sent_again_with_its_key_is_done_once(client, table, referee, organizer):
    """The phone's outbox sends an act again when its answer was lost: same key, one act."""
    _, game = table
    client.force_login(referee)
    officiate(client, game, "redeal", reason="no doubles", key="redeal-1")
    officiate(client, game, "redeal", reason="no doubles", key="redeal-1")
    assert OfficialAct.objects.filter(game=game, kind="redeal").count() == 1
    first = officiate(client, game, "clock_violation", seat="B", key="lost-answer")
    again = officiate(client, game, "clock_violation", seat="B", key="lost-answer")
    assert first["X-Capicu-Outcome"] == again["X-Capicu-Outcome"] == "saved"
    assert "Already done; nothing was done twice." in again.content.decode()
    assert ScoreEvent.objects.filter(game=game).count() == 1
    # A refused act releases its key: sent again once it can be, it is done.
    client.force_login(organizer)
    refused = officiate(client, game, "deduct", seat="A", points="", reason="x", key="d-1")
    assert refused["X-Capicu-Outcome"] == "refused"
    done = officiate(client, game, "deduct", seat="A", points="5", reason="x", key="d-2")
    assert "5 points deducted" in done.content.decode()


def test_the_steal_confirmation_names_the_seat_that_lost_the_points(client, organizer, referee):
    _, game = dcs_event(organizer, referee, ruleset_key="two_box_cutthroat")
    client.force_login(referee)
    answer = client.post(
        f"/games/{game.pk}/score/event/",
        {"seat": "C", "kind": "steal", "points": "10", "hand": "1", "from_seat": "A", "key": "s"},
        **HTMX,
    ).content.decode()
    assert "taken from Jugador" in answer
    page = client.get(f"/games/{game.pk}/score/").content.decode()
    assert "the previous seat, " in page

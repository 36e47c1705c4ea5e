"""The officials' API: clock violations through the events endpoint, disputes for each
role, forfeits, deductions, who leads, re-deals, disqualification and the audit lists."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Dispute, OfficialAct
from tests.factories import UserFactory, client_for, event_referee, partners_round, start_game
from tournaments.models import Entrant, MatchSeat
from tournaments.services import assign_referee

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


@pytest.fixture
def league():
    tournament, organizer, _stage, games = partners_round(4)
    referee = event_referee(tournament)
    game = games[0]
    assign_referee(game.match, referee, by=organizer)
    return tournament, organizer, referee, game


def total_of(game: dict, side: str) -> int:
    return next(row["total"] for row in game["sides"] if row["name"] == side)


def test_a_clock_violation_is_one_call_and_the_answer_says_what_it_became():
    referee = UserFactory()
    game = start_game("dcs", referee=referee)
    api = client_for(referee)
    url = f"/api/v1/games/{game.pk}/events/"
    body = {"kind": "clock_violation", "hand": 1, "seat": "B"}
    first = api.post(url, body, format="json")
    assert first.status_code == 201, first.content
    assert first.json()["became"] == "forced_pass"
    assert first.json()["events"][0]["points"] == 0
    assert first.json()["events"][0]["violation"] is True
    second = api.post(url, body, format="json")
    assert second.json()["became"] == "penalty"
    assert second.json()["events"][0]["points"] == -10
    assert total_of(second.json()["game"], "B") == -10
    # Undoing the first re-decides the second: it becomes the forced pass.
    undo = api.delete(f"{url}{first.json()['events'][0]['id']}/")
    assert undo.status_code == 200
    (left,) = [e for e in undo.json()["game"]["events"] if e["violation"]]
    assert (left["kind"], left["points"]) == ("forced_pass", 0)
    assert total_of(undo.json()["game"], "B") == 0
    refused = api.post(url, {**body, "points": 10}, format="json")
    assert refused.status_code == 400


def test_a_stranger_cannot_call_a_violation():
    game = start_game("dcs", referee=UserFactory())
    answer = client_for(UserFactory()).post(
        f"/api/v1/games/{game.pk}/events/",
        {"kind": "clock_violation", "hand": 1, "seat": "B"},
        format="json",
    )
    assert answer.status_code == 403


def test_disputes_for_each_role(league, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    tournament, organizer, referee, game = league
    url = f"/api/v1/games/{game.pk}/disputes/"
    photo = SimpleUploadedFile("t.png", PNG, content_type="image/png")
    opened = client_for(referee).post(
        url, {"note": "the 6-5 was played", "photos": [photo]}, format="multipart"
    )
    assert opened.status_code == 201, opened.content
    assert opened.json()["photos"][0]["content_type"] == "image/png"
    by_organizer = client_for(organizer).post(url, {"note": "game", "hand": 1}, format="json")
    assert by_organizer.status_code == 201
    assert client_for(UserFactory()).post(url, {"note": "x"}, format="json").status_code == 403
    assert client_for(None).post(url, {"note": "x"}, format="json").status_code in (401, 403)
    assert client_for(UserFactory()).get(url).status_code == 403
    assert client_for(referee).get(url).json()["count"] == 2
    fake = SimpleUploadedFile("t.png", b"MZ\x90\0", content_type="image/png")
    assert (
        client_for(referee)
        .post(url, {"note": "x", "photos": [fake]}, format="multipart")
        .status_code
        == 400
    )
    detail = client_for(None).get(f"/api/v1/games/{game.pk}/")
    assert detail.json()["under_dispute"] is True
    dispute_id = opened.json()["id"]
    resolve = f"/api/v1/games/{game.pk}/disputes/{dispute_id}/resolve/"
    body = {"upheld": False, "reason": "video shows otherwise"}
    assert client_for(referee).post(resolve, body, format="json").status_code == 403
    assert client_for(UserFactory()).post(resolve, body, format="json").status_code == 403
    done = client_for(organizer).post(resolve, body, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "dismissed"
    assert client_for(organizer).post(resolve, body, format="json").status_code == 409
    listed = client_for(organizer).get(f"/api/v1/tournaments/{tournament.slug}/disputes/")
    assert listed.json()["count"] == 1  # the organizer's own is still open
    assert (
        client_for(referee).get(f"/api/v1/tournaments/{tournament.slug}/disputes/").status_code
        == 403
    )


def test_an_upheld_dispute_with_its_correction(league):
    _tournament, organizer, referee, game = league
    api = client_for(referee)
    api.post(
        f"/api/v1/games/{game.pk}/hands/",
        {"number": 1, "ended": "block", "pips": {"A": 9, "B": 12, "C": 10, "D": 7}},
        format="json",
    )
    dispute = api.post(
        f"/api/v1/games/{game.pk}/disputes/", {"note": "C held 1", "hand": 1}, format="json"
    ).json()
    done = client_for(organizer).post(
        f"/api/v1/games/{game.pk}/disputes/{dispute['id']}/resolve/",
        {
            "upheld": True,
            "reason": "C showed 1",
            "correction": {
                "ended": "block",
                "pips": {"A": 9, "B": 12, "C": 1, "D": 7},
                "expected_version": 1,
            },
        },
        format="json",
    )
    assert done.status_code == 200, done.content
    game_now = client_for(referee).get(f"/api/v1/games/{game.pk}/").json()
    (hand,) = game_now["hands"]
    assert hand["version"] == 2 and hand["reason"] == "C showed 1"


def test_forfeit_deduction_leader_and_redeal(league):
    tournament, organizer, referee, game = league
    base = f"/api/v1/games/{game.pk}"
    leader = client_for(referee).post(f"{base}/leader/", {"seat": "B"}, format="json")
    assert leader.status_code == 200 and leader.json()["next_leader"] == "B"
    assert (
        client_for(UserFactory()).post(f"{base}/leader/", {"seat": "B"}, format="json").status_code
        == 403
    )
    assert client_for(referee).post(f"{base}/redeal/", {}, format="json").status_code == 200
    assert (
        client_for(referee)
        .post(f"{base}/deductions/", {"seat": "A", "points": 20, "reason": "x"}, format="json")
        .status_code
        == 403
    )
    deducted = client_for(organizer).post(
        f"{base}/deductions/", {"seat": "A", "points": 20, "reason": "rude"}, format="json"
    )
    assert deducted.status_code == 201 and deducted.json()["event"]["points"] == -20
    assert (
        client_for(referee)
        .post(f"{base}/forfeit/", {"seat": "A", "reason": "x"}, format="json")
        .status_code
        == 403
    )
    forfeited = client_for(organizer).post(
        f"{base}/forfeit/", {"seat": "A", "reason": "left", "confirm": True}, format="json"
    )
    assert forfeited.status_code == 200, forfeited.content
    assert forfeited.json()["status"] == "finished"
    assert forfeited.json()["forfeits"] == ["A"]
    seats = MatchSeat.objects.filter(match__game=game).order_by("position")
    assert [(s.placement, s.forfeit) for s in seats] == [(2, True), (1, False)]
    audit = client_for(organizer).get(f"/api/v1/tournaments/{tournament.slug}/audit/").json()
    kinds = [row["kind"] for row in audit["results"]]
    assert {"forfeit", "deduction", "redeal"} <= set(kinds)
    assert (
        client_for(referee).get(f"/api/v1/tournaments/{tournament.slug}/audit/").status_code == 403
    )
    assert client_for(organizer).get(f"{base}/audit/").json()["count"] == len(kinds)


def test_disqualify_forfeits_unplayed_games_and_is_audited(league):
    tournament, organizer, referee, game = league
    seat = MatchSeat.objects.filter(match__game=game).order_by("position").last()
    url = f"/api/v1/tournaments/{tournament.slug}/entrants/{seat.entrant_id}/disqualify/"
    assert client_for(referee).post(url, {"reason": "x"}, format="json").status_code == 403
    assert client_for(organizer).post(url, {"reason": " "}, format="json").status_code == 400
    unconfirmed = client_for(organizer).post(url, {"reason": "cheating"}, format="json")
    assert unconfirmed.status_code == 400 and "disqualified" in unconfirmed.json()["detail"]
    done = client_for(organizer).post(url, {"reason": "cheating", "confirm": True}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["withdrawn"] is True
    assert done.json()["disqualified_reason"] == "cheating"
    game.refresh_from_db()
    assert game.status == "finished" and game.forfeits == "B"
    again = {"reason": "again", "confirm": True}
    assert client_for(organizer).post(url, again, format="json").status_code == 409
    act = OfficialAct.objects.get(kind="disqualified")
    assert act.subject == Entrant.objects.get(pk=seat.entrant_id).name
    assert not Dispute.objects.exists()

"""An organizer's entry of a person with an account waits for their word: until they
accept, the entry plays as another player of the name and nothing of theirs (rating,
leaderboard, page) counts it. Unlinked players are entered only by whoever looks after
them."""

from datetime import timedelta
from random import Random

import pytest
from django.test import override_settings
from django.utils import timezone

from circuit.models import Rating, RatingChange, Series, SeriesEvent
from circuit.services.ratings import rebuild_all
from circuit.services.series import series_results
from players import entries, identity
from players.matching import PlayerChoiceNeeded, look_up
from players.models import EntryRequest, IdentityAct, Player
from players.names import choice_key
from scoring.models import Game, Seat
from tests.factories import UserFactory, client_for
from tests.players.conftest import entered_before, event
from tests.players.test_pages import signed_in
from tournaments import services
from tournaments.demo import play
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db

MINE = {"name": "Mallory Open", "slug": "mal", "ruleset": "cutthroat", "table_size": 4}
OTHERS = ["Zz Uno", "Zz Dos", "Zz Tres"]


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


def play_out(tournament, by, committed, seed=1):
    """Pair the event's first round, publish it and play every table to its end."""
    stage = services.add_stage(
        tournament, by=by, name="RR", format="round_robin", settings={"rounds": 3}
    )
    services.update_tournament(tournament, by=by, status="running")
    round_ = services.generate_round(stage, by=by)
    services.publish_round(round_, by=by)
    games = [match.game for match in round_.matches.all()]
    with committed():
        for game in games:
            play(game, by, Random(seed))
    return games


@pytest.fixture
def ana(organizer, committed):
    """Ana Rivera: one rated game in her organizer's public event, then her account."""
    home = event(organizer, slug="home")
    services.register_entrants(home, by=organizer, text="\n".join(["Ana Rivera", *OTHERS]))
    play_out(home, organizer, committed)
    player = Player.objects.get(display_name="Ana Rivera")
    person = UserFactory(username="ana")
    identity.claim_player(identity.issue_claim_code(player, by=organizer).code, by=person)
    player.refresh_from_db()
    assert Rating.objects.get(player=player).games == 1
    return player


def rating_of(player):
    return tuple(
        Rating.objects.filter(player=player).values_list("games", "mu", "sigma").first() or ()
    )


def mallorys_event(names: list[dict]):
    """mallory (no role anywhere) makes a public event and enters ``names`` through the
    API; returns her, her entrants and the answers."""
    mallory = UserFactory(username="mallory")
    api = client_for(mallory)
    assert api.post("/api/v1/tournaments/", MINE, format="json").status_code == 201
    answers = [api.post("/api/v1/tournaments/mal/entrants/", body, format="json") for body in names]
    return mallory, Entrant.objects.filter(tournament__slug="mal"), answers


def test_mallorys_public_event_with_anas_name_leaves_anas_rating_and_asks_her(ana, committed):
    before = rating_of(ana)
    mallory, entrants, answers = mallorys_event(
        [{"name": "Ana Rivera"}, *({"name": name} for name in OTHERS)]
    )
    assert [answer.status_code for answer in answers] == [201] * 4
    entry = entrants.get(name="Ana Rivera")
    assert entry.player_id != ana.pk and entry.player.user_id is None  # a player standing in
    games = play_out(entry.tournament, mallory, committed)
    assert Game.objects.get(pk=games[0].pk).public and rating_of(ana) == before
    assert not RatingChange.objects.filter(player=ana, game__in=games).exists()
    assert Seat.objects.filter(player=ana, game__in=games).count() == 0

    # Ana sees the request, in the API and on her account page; her player page does not
    # list the event.
    person = ana.user
    (asked,) = client_for(person).get("/api/v1/account/entry-requests/").json()
    assert asked["event"] == "Mallory Open" and asked["answer"] == "pending"
    assert asked["asked_by"] == "mallory"
    page = signed_in(person).get("/accounts/").content.decode()
    assert "mallory entered you in Mallory Open" in page
    assert "Asked to enter you in an event" in page
    assert "Mallory Open" not in signed_in(person).get(f"/players/{ana.pk}/").content.decode()
    # Nobody else answers it.
    for other in (mallory, UserFactory()):
        url = f"/api/v1/account/entry-requests/{asked['id']}/accept/"
        assert client_for(other).post(url).status_code == 404
        assert (
            signed_in(other).post(f"/players/entry-requests/{asked['id']}/accept/").status_code
            == 404
        )
    assert EntryRequest.objects.get().answer == "pending" and rating_of(ana) == before


def test_a_candidate_token_for_a_linked_player_asks_them_too(ana, committed):
    mallory = UserFactory(username="mallory")
    api = client_for(mallory)
    api.post("/api/v1/tournaments/", MINE, format="json")
    refused = api.post("/api/v1/tournaments/mal/entrants/", {"name": "Ana Riviera"}, format="json")
    assert refused.status_code == 409
    (offer,) = refused.json()["choices"][0]["candidates"]
    assert offer["id"] == ana.pk
    body = {"name": "Ana Riviera", "players": [{"name": "Ana Riviera", "token": offer["token"]}]}
    made = api.post("/api/v1/tournaments/mal/entrants/", body, format="json")
    assert made.status_code == 201, made.json()
    entry = Entrant.objects.get(tournament__slug="mal")
    assert entry.player_id != ana.pk and not ana.entries.filter(tournament__slug="mal").exists()
    asked = EntryRequest.objects.get(player=ana)
    assert asked.stand_in_id == entry.player_id and asked.asked_by == mallory


def test_accepted_the_entry_and_its_games_are_hers_and_rated(ana, committed):
    before = rating_of(ana)
    mallory, entrants, _ = mallorys_event(
        [{"name": "Ana Rivera"}, *({"name": name} for name in OTHERS)]
    )
    entry = entrants.get(name="Ana Rivera")
    stand_in = entry.player_id
    games = play_out(entry.tournament, mallory, committed)
    asked = EntryRequest.objects.get()
    with committed():
        answered = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/accept/")
    assert answered.status_code == 200 and answered.json()["answer"] == "accepted"
    entry.refresh_from_db()
    assert entry.player_id == ana.pk and not Player.objects.filter(pk=stand_in).exists()
    assert Seat.objects.filter(player=ana, game__in=games).count() == 1
    assert rating_of(ana)[0] == before[0] + 1  # her game there counts from now on
    state = sorted(Rating.objects.values_list("player_id", "games", "mu"))
    rebuild_all()
    assert sorted(Rating.objects.values_list("player_id", "games", "mu")) == state
    assert IdentityAct.objects.filter(kind="entry_accept", account=ana.user).exists()
    page = signed_in(ana.user).get(f"/players/{ana.pk}/").content.decode()
    assert "Mallory Open" in page
    again = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/decline/")
    assert again.status_code == 409


def test_declined_the_entry_never_counts_for_her(ana, committed):
    before = rating_of(ana)
    mallory, entrants, _ = mallorys_event(
        [{"name": "Ana Rivera"}, *({"name": name} for name in OTHERS)]
    )
    entry = entrants.get(name="Ana Rivera")
    asked = EntryRequest.objects.get()
    client = signed_in(ana.user)
    answered = client.post(f"/players/entry-requests/{asked.pk}/decline/", follow=True)
    assert "Entry declined" in answered.content.decode()
    play_out(entry.tournament, mallory, committed)
    asked.refresh_from_db()
    entry.refresh_from_db()
    assert asked.answer == "declined" and entry.player_id == asked.stand_in_id
    assert rating_of(ana) == before
    assert IdentityAct.objects.filter(kind="entry_decline", account=ana.user).exists()
    # The event asks once: entering her name again asks nothing more.
    mallory_event = entry.tournament
    with pytest.raises(PlayerChoiceNeeded):  # two players of the name now: hers and the stand-in
        services.register_entrant(mallory_event, by=mallory, name="Ana Rivera")
    assert EntryRequest.objects.count() == 1


def test_an_entry_made_before_the_rule_counts_only_once_accepted(organizer, ana, committed):
    """Data from before: the entry holds her player; a pending request keeps its games
    out of the ratings, and a decline moves the entry to a new player."""
    before = rating_of(ana)
    other = UserFactory(username="other-org")
    theirs = event(other, slug="theirs")
    services.register_entrants(theirs, by=other, text="\n".join(OTHERS))
    entry = entered_before(theirs, ana)
    asked = EntryRequest.objects.create(
        tournament=theirs, entrant=entry, player=ana, asked_by=other, asked_at=timezone.now()
    )
    games = play_out(theirs, other, committed)
    assert Seat.objects.filter(player=ana, game__in=games).count() == 1
    assert rating_of(ana) == before  # pending: not rated
    rebuild_all()
    assert rating_of(ana) == before
    with committed():
        entries.answer(asked, by=ana.user, accept=False)
    entry.refresh_from_db()
    assert entry.player_id != ana.pk and entry.player.display_name == "Ana Rivera"
    assert not Seat.objects.filter(player=ana, game__in=games).exists()
    assert Rating.objects.get(player=entry.player).games == 1  # the new player's game
    assert rating_of(ana) == before


def test_one_request_per_event_and_person_one_at_a_time_per_organizer(ana):
    mallory = UserFactory(username="mallory")
    first, second = event(mallory, slug="m1"), event(mallory, slug="m2")
    services.register_entrant(first, by=mallory, name="Ana Rivera")
    services.register_entrant(second, by=mallory, name="Ana Rivera")
    # Her second event's entry plays as a new player, unasked: mallory waits for Ana.
    assert EntryRequest.objects.filter(player=ana).count() == 1
    assert second.entrants.get().player.user_id is None


@override_settings(ENTRY_REQUESTS_PER_HOUR=1)
def test_requests_are_limited_per_organizer_an_hour(organizer):
    people = []
    for name in ("Ana Rivera", "Beto Cruz"):
        services.register_entrants(event(organizer, slug=f"e-{name[:3]}"), by=organizer, text=name)
        player = Player.objects.get(display_name=name)
        person = UserFactory(username=name[:3].lower())
        identity.claim_player(identity.issue_claim_code(player, by=organizer).code, by=person)
        people.append(player)
    mallory = UserFactory(username="mallory")
    mine = event(mallory, slug="mal")
    services.register_entrants(mine, by=mallory, text="Ana Rivera\nBeto Cruz\nZz Uno\nZz Dos")
    assert EntryRequest.objects.count() == 1  # past the hour's number: entered, unasked
    assert mine.entrants.count() == 4


def test_an_old_request_is_too_old_to_accept_and_may_still_be_declined(ana):
    mallory = UserFactory(username="mallory")
    services.register_entrant(event(mallory, slug="m1"), by=mallory, name="Ana Rivera")
    asked = EntryRequest.objects.get()
    EntryRequest.objects.filter(pk=asked.pk).update(asked_at=timezone.now() - timedelta(days=31))
    answered = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/accept/")
    assert answered.status_code == 409
    assert client_for(ana.user).get("/api/v1/account/entry-requests/").json()[0]["answer"] == (
        "expired"
    )
    assert EntryRequest.objects.get().answer == "pending"
    assert not ana.entries.filter(tournament__slug="m1").exists()
    assert "too old to accept" in signed_in(ana.user).get("/accounts/").content.decode()
    declined = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/decline/")
    assert declined.status_code == 200 and declined.json()["answer"] == "declined"


def test_the_holder_enters_themselves_in_their_own_event(ana):
    mine = event(ana.user, slug="own")
    services.register_entrant(mine, by=ana.user, name="Ana Rivera")
    assert mine.entrants.get().player_id == ana.pk and not EntryRequest.objects.exists()


def test_an_unlinked_player_is_entered_only_by_who_looks_after_them(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Jose Perez")
    jose = Player.objects.get()
    # Their organizer enters them again, by name or as a candidate.
    services.register_entrant(event(organizer, slug="two"), by=organizer, name="Jose Perez")
    assert jose.entries.count() == 2
    with pytest.raises(PlayerChoiceNeeded) as refused:
        services.register_entrant(event(organizer, slug="three"), by=organizer, name="Jose Peres")
    assert [c.pk for c in refused.value.lookups[0].candidates] == [jose.pk]
    # Anyone else gets a new player of the name, and is offered no candidate.
    mallory = UserFactory(username="mallory")
    mine = event(mallory, slug="mal")
    services.register_entrant(mine, by=mallory, name="Jose Perez")
    assert mine.entrants.get().player_id != jose.pk and jose.entries.count() == 2
    assert jose.pk not in [c.pk for c in look_up("Jose Peres", by=mallory).candidates]
    # A co-organizer of an event the player plays in looks after them too.
    helper = UserFactory(username="helper")
    one = jose.entries.get(tournament__slug="one").tournament
    services.invite_staff(one, by=organizer, username="helper", role="organizer")
    invitation = one.invitations.get()
    services.accept_invitation(invitation, by=helper)
    services.register_entrant(event(helper, slug="h"), by=helper, name="Jose Perez")
    assert jose.entries.count() == 3
    assert choice_key("Jose Perez") == "jose perez|"


def test_the_paste_check_says_a_person_with_an_account_is_asked(ana):
    mallory = UserFactory(username="mallory")
    event(mallory, slug="mal")
    answer = client_for(mallory).post(
        "/api/v1/tournaments/mal/entrants/preview/", {"text": "Ana Rivera"}, format="json"
    )
    (name,) = answer.json()["lines"][0]["names"]
    assert name["player"] == ana.pk and name["asked"] is True
    page = signed_in(mallory).post("/t/mal/manage/paste/", {"text": "Ana Rivera"})
    assert "they are asked to accept" in page.content.decode()
    signed_in(mallory).post("/t/mal/manage/paste/", {"text": "Ana Rivera", "confirm": "1"})
    assert Entrant.objects.get(tournament__slug="mal").player_id != ana.pk
    assert EntryRequest.objects.filter(player=ana).count() == 1


def test_the_migration_asks_about_entries_others_made_before(organizer, ana, committed):
    from importlib import import_module

    from django.apps import apps

    from circuit.models import RatingsDirty

    migration = import_module("players.migrations.0003_entry_requests")
    other = UserFactory(username="other-org")
    theirs = event(other, slug="theirs")
    services.register_entrants(theirs, by=other, text="\n".join(OTHERS))
    entered_before(theirs, ana)
    games = play_out(theirs, other, committed)
    own = event(ana.user, slug="own")
    services.register_entrant(own, by=ana.user, name="Ana Rivera")
    RatingsDirty.objects.all().delete()
    migration.ask_for_earlier_entries(apps, None)
    (asked,) = EntryRequest.objects.all()
    assert asked.tournament == theirs and asked.stand_in is None and asked.answer == "pending"
    assert not entries.expired(asked)
    # Her home event's entry was claimed by her after it was made: hers, not asked.
    assert set(RatingsDirty.objects.values_list("game_id", flat=True)) == {g.pk for g in games}
    assert IdentityAct.objects.filter(kind="entry_request", account=ana.user).count() == 1


def test_an_entry_that_changed_hands_or_a_person_entered_already_is_not_moved(ana):
    mallory = UserFactory(username="mallory")
    first = event(mallory, slug="m1")
    services.register_entrant(first, by=mallory, name="Ana Rivera")
    asked = EntryRequest.objects.get()
    # She entered the event herself meanwhile: accepting would seat her twice.
    herself = Entrant.objects.create(tournament=first, name="Ana R.", player=ana, seed=9)
    answered = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/accept/")
    assert answered.status_code == 409
    assert EntryRequest.objects.get().answer == "pending"
    herself.delete()
    # The request no longer names the player holding the entry (nothing should lose it,
    # but if it were): it cannot be accepted, and a decline moves nobody.
    other = Entrant.objects.get(tournament=first).player
    EntryRequest.objects.update(stand_in=None)
    answered = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/accept/")
    assert answered.status_code == 409
    declined = client_for(ana.user).post(f"/api/v1/account/entry-requests/{asked.pk}/decline/")
    assert declined.status_code == 200
    entry = Entrant.objects.get(tournament=first)
    assert entry.player_id == other.pk and entry.partner_id is None
    assert not ana.entries.filter(tournament=first).exists()


def test_an_entry_made_before_the_rule_joins_her_series_line_only_once_accepted(
    organizer, ana, committed
):
    """A series reads placings as the ratings do: an earlier entry's unanswered request
    keeps its placing off her line; accepted, it is hers."""
    other = UserFactory(username="other-org")
    theirs = event(other, slug="theirs")
    services.register_entrants(theirs, by=other, text="\n".join(OTHERS))
    entry = entered_before(theirs, ana)
    asked = EntryRequest.objects.create(
        tournament=theirs, entrant=entry, player=ana, asked_by=other, asked_at=timezone.now()
    )
    series = Series.objects.create(
        name="Liga", slug="liga", ruleset_key="cutthroat", table_size=4, created_by=other
    )
    SeriesEvent.objects.create(series=series, tournament=theirs, number=1)
    play_out(theirs, other, committed)
    placed = {result.player_id for result in series_results(series)[0]}
    others = set(
        Entrant.objects.filter(tournament=theirs)
        .exclude(pk=entry.pk)
        .values_list("player", flat=True)
    )
    assert placed == others  # everyone who played but her
    with committed():
        entries.answer(asked, by=ana.user, accept=True)
    placed = {result.player_id for result in series_results(series)[0]}
    assert placed == others | {ana.pk}

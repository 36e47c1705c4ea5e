"""One player across events: names find their player, close ones wait for a choice,
players merge keeping every result, and claim codes link an account."""

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.test import override_settings

from domain.errors import Conflict, TooMany, UserError
from players import identity, selectors
from players.matching import NEW, PlayerChoiceNeeded, look_up
from players.models import ClaimCode, IdentityAct, MergeRequest, Player, PlayerMerge
from players.names import choice_key, name_key, split_club
from tests.factories import SuperuserFactory, UserFactory
from tests.players.conftest import entered_before, event
from tests.test_pages import make_event
from tournaments import services
from tournaments.models import Entrant, MatchSeat

pytestmark = pytest.mark.django_db


def test_a_name_is_folded_for_accents_case_and_spacing():
    assert name_key("  José   PÉREZ ") == name_key("jose perez") == "jose perez"
    assert split_club("Ana Rivera (Club Capicú)") == ("Ana Rivera", "Club Capicú")
    assert split_club("Ana Rivera") == ("Ana Rivera", "")


def test_registering_the_same_name_in_two_events_is_one_player(organizer):
    first, second = event(organizer, slug="one"), event(organizer, slug="two")
    services.register_entrants(first, by=organizer, text="José Pérez\nAna Rivera")
    services.register_entrants(second, by=organizer, text="jose  perez\nBeto Cruz")
    assert Player.objects.count() == 3
    jose = Player.objects.get(display_name="José Pérez")
    assert set(Entrant.objects.filter(player=jose).values_list("tournament__slug", flat=True)) == {
        "one",
        "two",
    }


def test_a_close_name_is_not_registered_until_the_organizer_chooses(organizer):
    first, second = event(organizer, slug="one"), event(organizer, slug="two")
    services.register_entrants(first, by=organizer, text="José Pérez")
    jose = Player.objects.get()
    with pytest.raises(PlayerChoiceNeeded) as refused:
        services.register_entrants(second, by=organizer, text="Jose Peres\nCarmen Ortiz")
    assert [c.pk for c in refused.value.lookups[0].candidates] == [jose.pk]
    assert not second.entrants.exists() and Player.objects.count() == 1
    [offer] = refused.value.body(str)["choices"][0]["candidates"]

    services.register_entrants(
        second, by=organizer, text="Jose Peres\nCarmen Ortiz",
        choices={choice_key("Jose Peres"): offer["token"]},
    )  # fmt: skip
    assert second.entrants.get(name="José Pérez").player == jose


def test_choosing_a_new_player_for_a_namesake_numbers_them_apart(organizer):
    first, second = event(organizer, slug="one"), event(organizer, slug="two")
    services.register_entrants(first, by=organizer, text="Ana Rivera (Club A)")
    # Same name, no club given: the one Ana known is her.
    services.register_entrant(second, by=organizer, name="Ana Rivera")
    assert Player.objects.count() == 1
    third = event(organizer, slug="three")
    services.register_entrant(
        third, by=organizer, name="Ana Rivera (Club A)",
        choices={choice_key("Ana Rivera", "Club A"): NEW},
    )  # fmt: skip
    assert sorted(Player.objects.values_list("homonym", flat=True)) == [0, 1]


def test_numbers_in_names_are_not_typos(organizer):
    services.register_entrants(event(organizer), by=organizer, text="Player 16")
    assert look_up("Player 17").candidates == []
    assert look_up("Playr 16").candidates != []


def test_the_database_refuses_two_players_of_one_name_club_and_number():
    Player.objects.create(display_name="Ana", club="X")
    with pytest.raises(IntegrityError):
        Player.objects.create(display_name="ANA", club="x")


def test_a_player_enters_an_event_once(organizer, tournament):
    services.register_entrants(tournament, by=organizer, text="Ana Rivera")
    with pytest.raises(services.TournamentError):
        services.register_entrant(tournament, by=organizer, name="ana rivera")


def test_merging_keeps_every_entry_and_seat_and_the_old_address_leads_on(organizer):
    make_event(organizer, slug="one", players=4)
    second = event(organizer, slug="two")
    services.register_entrants(
        second, by=organizer, text="Player 00 (Club B)\nB1\nB2\nB3",
        choices={choice_key("Player 00", "Club B"): NEW},
    )  # fmt: skip
    keep = Player.objects.get(display_name="Player 00", club="")
    other = Player.objects.get(display_name="Player 00", club="Club B")
    seats = MatchSeat.objects.filter(entrant__player=keep).count()
    assert seats == 1

    identity.merge_players(keep, other, by=organizer)
    assert not Player.objects.filter(pk=other.pk).exists()
    assert Entrant.objects.filter(player=keep).count() == 2
    assert MatchSeat.objects.filter(entrant__player=keep).count() == seats
    assert PlayerMerge.objects.get(removed_id=other.pk).kept == keep
    keep.refresh_from_db()
    assert keep.club == "Club B"


def test_two_players_of_one_event_are_not_merged(organizer, tournament):
    services.register_entrants(tournament, by=organizer, text="Ana\nBeto")
    ana, beto = Player.objects.order_by("display_name")
    with pytest.raises(identity.PlayerConflict):
        identity.merge_players(ana, beto, by=organizer)


def test_only_organizers_of_their_events_or_a_superuser_merge(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana")
    stranger = UserFactory(username="other-org")
    services.register_entrants(event(stranger, slug="two"), by=stranger, text="Beto")
    ana, beto = Player.objects.order_by("display_name")
    with pytest.raises(PermissionDenied):
        identity.merge_players(ana, beto, by=organizer)
    identity.merge_players(ana, beto, by=SuperuserFactory())
    assert Player.objects.count() == 1


def test_a_claim_code_links_an_account_once(organizer, tournament):
    services.register_entrants(tournament, by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    claim = identity.issue_claim_code(ana, by=organizer)
    user = UserFactory(username="ana")
    player = identity.claim_player(claim.code.lower(), by=user)
    assert player == ana and Player.objects.get().user == user
    with pytest.raises(identity.PlayerError):
        identity.claim_player(claim.code, by=UserFactory())  # used up
    with pytest.raises(PermissionDenied):
        identity.issue_claim_code(ana, by=organizer)  # linked: the account holder's alone
    with pytest.raises(PermissionDenied):
        identity.issue_claim_code(ana, by=user)  # nor by its holder: there is nothing to claim
    with pytest.raises(identity.PlayerConflict):
        identity.issue_claim_code(ana, by=SuperuserFactory())  # already linked


@override_settings(CLAIM_CODE_TRIES=3)
def test_an_account_that_guesses_codes_is_refused_for_the_hour(organizer, tournament):
    from django.core.cache import cache

    services.register_entrants(tournament, by=organizer, text="Ana Rivera")
    claim = identity.issue_claim_code(Player.objects.get(), by=organizer)
    guesser, ana = UserFactory(), UserFactory(username="ana")
    for wrong in ("AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC"):
        with pytest.raises(identity.PlayerError):
            identity.claim_player(wrong, by=guesser)
    with pytest.raises(TooMany) as refused:
        identity.claim_player(claim.code, by=guesser)  # even the right code, this hour
    assert refused.value.retry_after == identity.WRONG_CODES_WINDOW
    assert (
        Player.objects.get().user is None and ClaimCode.objects.filter(player=claim.player).exists()
    )
    # Two wrong codes of another account do not stop it; the right one links it.
    for wrong in ("AAAAAAAAAA", "BBBBBBBBBB"):
        with pytest.raises(identity.PlayerError):
            identity.claim_player(wrong, by=ana)
    assert identity.claim_player(claim.code, by=ana).user == ana
    # When the hour is over (its count gone from the cache), the guesser may try again.
    cache.delete(f"players:wrong-claim-codes:{guesser.pk}")
    with pytest.raises(identity.PlayerError):
        identity.claim_player("DDDDDDDDDD", by=guesser)


def test_a_stranger_cannot_issue_a_claim_code(organizer, tournament):
    services.register_entrants(tournament, by=organizer, text="Ana Rivera")
    with pytest.raises(PermissionDenied):
        identity.issue_claim_code(Player.objects.get(), by=UserFactory())


# --- one player identity, owned by the person ------------------------------------------


def linked(name: str, organizer, *, slug: str, username: str):
    """A player entered in ``organizer``'s event and claimed by an account of theirs."""
    services.register_entrants(event(organizer, slug=slug), by=organizer, text=name)
    player = Player.objects.get(display_name=name)
    person = UserFactory(username=username)
    identity.claim_player(identity.issue_claim_code(player, by=organizer).code, by=person)
    player.refresh_from_db()
    return player, person


def test_entering_a_known_player_in_your_own_event_gives_no_hold_over_them(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    mallory = UserFactory(username="mallory")
    services.register_entrants(event(mallory, slug="mal"), by=mallory, text="Ana Rivera")
    # Another organizer's player is not hers to enter: the name is a new player.
    assert ana.entries.count() == 1 and Player.objects.count() == 2
    entered_before(event(mallory, slug="mal-before"), ana)
    with pytest.raises(PermissionDenied):
        identity.issue_claim_code(ana, by=mallory)
    assert not ClaimCode.objects.exists() and not IdentityAct.objects.exists()
    # Alone in one's own events, an unlinked player is one's to look after.
    services.register_entrants(event(mallory, slug="mal2"), by=mallory, text="Zz Puppet")
    assert identity.issue_claim_code(Player.objects.get(display_name="Zz Puppet"), by=mallory)


def test_a_players_number_chooses_nobody(organizer, tournament):
    services.register_entrants(tournament, by=organizer, text="Ana Rivera")
    ana = Player.objects.get()
    mallory = UserFactory(username="mallory")
    mine = event(mallory, slug="mal")
    for choice in (ana.pk, str(ana.pk), "not-a-token"):
        with pytest.raises(UserError):
            services.register_entrant(mine, by=mallory, name="zz", choices={"zz|": choice})
    assert not mine.entrants.exists() and Player.objects.count() == 1


def test_a_candidate_token_chooses_only_for_its_name_event_and_organizer(organizer, monkeypatch):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="José Pérez")
    second, third = event(organizer, slug="two"), event(organizer, slug="three")
    with pytest.raises(PlayerChoiceNeeded) as refused:
        services.register_entrant(second, by=organizer, name="Jose Peres")
    token = refused.value.body(str)["choices"][0]["candidates"][0]["token"]
    key = choice_key("Jose Peres")
    with pytest.raises(UserError):  # offered for another event
        services.register_entrant(third, by=organizer, name="Jose Peres", choices={key: token})
    with pytest.raises(UserError):  # offered to another organizer
        services.register_entrant(
            second, by=SuperuserFactory(), name="Jose Peres", choices={key: token}
        )
    with pytest.raises(UserError):  # offered for another name
        services.register_entrant(
            second, by=organizer, name="Jose Perez", choices={choice_key("Jose Perez"): token}
        )
    monkeypatch.setattr("players.matching.CANDIDATE_MAX_AGE", -1)
    with pytest.raises(Conflict):  # too old
        services.register_entrant(second, by=organizer, name="Jose Peres", choices={key: token})
    assert not second.entrants.exists() and not third.entrants.exists()


def test_a_linked_player_is_merged_only_when_its_holder_asks(organizer):
    ana, person = linked("Ana Rivera", organizer, slug="one", username="ana")
    services.register_entrants(
        event(organizer, slug="two"), by=organizer, text="Ana Riviera",
        choices={"ana riviera|": NEW},
    )  # fmt: skip
    other = Player.objects.get(display_name="Ana Riviera")
    for keep, gone in ((ana, other), (other, ana)):
        with pytest.raises(PermissionDenied):
            identity.merge_players(keep, gone, by=organizer)
    with pytest.raises(PermissionDenied):  # nor does the holder by themselves
        identity.merge_players(ana, other, by=person)
    assert Player.objects.count() == 2 and not PlayerMerge.objects.exists()

    asked = identity.request_merge(other, by=person)
    assert identity.request_merge(other, by=person) == asked  # asked once
    with pytest.raises(PermissionDenied):
        identity.confirm_merge(asked, by=UserFactory())
    done = identity.confirm_merge(asked, by=organizer)
    assert done.status == MergeRequest.Status.DONE
    assert not Player.objects.filter(pk=other.pk).exists() and ana.entries.count() == 2
    kinds = list(selectors.identity_acts(person).values_list("kind", flat=True))
    assert kinds == ["merge", "merge_confirm", "merge_request", "claim", "claim_code"]


def test_a_merge_asked_for_waits_for_the_organizers_of_every_event(organizer):
    ana, person = linked("Ana Rivera", organizer, slug="one", username="ana")
    second, third = UserFactory(username="second"), UserFactory(username="third")
    services.register_entrants(
        event(second, slug="two"), by=second, text="Ana Riviera", choices={"ana riviera|": NEW}
    )
    other = Player.objects.get(display_name="Ana Riviera")
    entered_before(event(third, slug="three"), other)
    assert other.entries.count() == 2
    asked = identity.request_merge(other, by=person)
    with pytest.raises(PermissionDenied):  # Ana's own events are not the ones that move
        identity.confirm_merge(asked, by=organizer)
    assert identity.confirm_merge(asked, by=second).status == MergeRequest.Status.OPEN
    with pytest.raises(PermissionDenied):  # second has confirmed all theirs
        identity.confirm_merge(asked, by=second)
    assert Player.objects.filter(pk=other.pk).exists()
    assert identity.confirm_merge(asked, by=third).status == MergeRequest.Status.DONE
    assert ana.entries.count() == 3


def test_organizers_merge_only_players_of_their_own_events_alone(organizer):
    services.register_entrants(event(organizer, slug="one"), by=organizer, text="Ana Rivera")
    services.register_entrants(
        event(organizer, slug="two"), by=organizer, text="Ana Riviera",
        choices={"ana riviera|": NEW},
    )  # fmt: skip
    ana, other = Player.objects.order_by("pk")
    mallory = UserFactory(username="mallory")
    entered_before(event(mallory, slug="mal"), other)
    with pytest.raises(PermissionDenied):  # other played in mallory's event too
        identity.merge_players(ana, other, by=organizer)
    with pytest.raises(PermissionDenied):
        identity.merge_players(other, ana, by=mallory)
    assert Player.objects.count() == 2


def test_an_account_holder_unlinks_themselves_and_it_is_recorded(organizer):
    ana, person = linked("Ana Rivera", organizer, slug="one", username="ana")
    services.register_entrants(
        event(organizer, slug="two"), by=organizer, text="Ana Riviera",
        choices={"ana riviera|": NEW},
    )  # fmt: skip
    asked = identity.request_merge(Player.objects.get(display_name="Ana Riviera"), by=person)
    with pytest.raises(PermissionDenied):
        identity.unlink_player(ana, by=organizer)
    identity.unlink_player(ana, by=person)
    ana.refresh_from_db()
    assert ana.user is None
    assert IdentityAct.objects.filter(kind="unlink", account=person, by=person).exists()
    # The merge she asked for ends with the link: nobody confirms it into an unlinked player.
    with pytest.raises(identity.PlayerConflict):
        identity.confirm_merge(asked, by=organizer)
    assert Player.objects.count() == 2

"""How players learn what happens in their events, without tournaments knowing of them."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from players.entries import ask_for
from players.registration import entrant_withdrew
from players.tables import tell_tables
from tournaments.models import Round
from tournaments.signals import entrant_withdrawn, entrants_entered, tables_seated


@receiver(entrant_withdrawn, dispatch_uid="players-entrant-withdrawn")
def move_the_waiting_list_up(sender, entrant, **kwargs):
    entrant_withdrew(entrant)


@receiver(entrants_entered, dispatch_uid="players-entrants-entered")
def ask_the_people_standing_in_for(sender, tournament, entrants, by, **kwargs):
    """An organizer entered names that are people's accounts: each person is asked
    whether the entry is theirs (``players.entries``)."""
    ask_for(tournament, entrants, by=by)


@receiver(post_save, sender=Round, dispatch_uid="players-round-published")
def tell_players_their_tables(sender, instance: Round, update_fields=None, **kwargs):
    """A round just published (``publish_round`` saves its status): each seated player
    with an account and an email address gets their table, after the round commits."""
    if instance.status != Round.Status.PUBLISHED or not update_fields:
        return
    if "status" not in update_fields:
        return
    tell_tables(instance)


@receiver(tables_seated, dispatch_uid="players-tables-seated")
def tell_players_their_new_tables(sender, round, matches, **kwargs):
    """A bracket seated its winners at tables of a round already published: the players
    at those tables get their table as they would have at publication."""
    tell_tables(round, matches)

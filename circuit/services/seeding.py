"""Seeding an event by rating: the Swiss engine pairs round 1 by seed, so seeding by
rating before round 1 makes the first round's tables by rating too."""

from django.db import transaction

from accounts.permissions import require
from circuit.models import Pool, Rating
from circuit.services.common import CircuitConflict
from domain.say import say
from tournaments.models import Entrant, Round, Tournament
from tournaments.services import forget_live_parts, lock_tournament


def entrant_strength(members: list[int], ordinals: dict[int, float]) -> float | None:
    """An entrant's rating: its player's ordinal, or the mean of a team's two (None
    while a member is unrated)."""
    values = [ordinals.get(player) for player in members]
    if not values or None in values:
        return None
    return sum(values) / len(values)


def seed_by_rating(tournament: Tournament, *, by) -> list[Entrant]:
    """Give the entrants seeds 1, 2, ... by rating, best first; unrated entrants follow
    in their current seed order. Refused once a round has been generated."""
    with transaction.atomic():
        tournament = lock_tournament(tournament)
        require(by, "tournament.manage", tournament)
        if Round.objects.filter(stage__tournament=tournament).exists():
            raise CircuitConflict(
                say("Seeds by rating are given before the first round is generated."), "seed"
            )
        pool = Pool.PARTNERS if tournament.is_teams else Pool.INDIVIDUAL
        entrants = list(Entrant.objects.select_for_update().filter(tournament=tournament))
        members = {
            e.pk: [p for p in (e.player_id, e.partner_id) if p is not None] for e in entrants
        }
        everyone = {p for group in members.values() for p in group}
        ordinals = dict(
            Rating.objects.filter(pool=pool, player_id__in=everyone).values_list(
                "player_id", "ordinal"
            )
        )

        def order(entrant: Entrant):
            strength = entrant_strength(members[entrant.pk], ordinals)
            return (strength is None, -(strength or 0.0), entrant.seed, entrant.pk)

        ranked = sorted(entrants, key=order)
        # Park every seed above the highest first (at most the field's size above it, as
        # tournaments.bounds allows), so no two entrants share one mid-way.
        top = max((e.seed for e in entrants), default=0)
        for index, entrant in enumerate(ranked, start=1):
            entrant.seed = top + index
        Entrant.objects.bulk_update(ranked, ["seed"])
        for index, entrant in enumerate(ranked, start=1):
            entrant.seed = index
        Entrant.objects.bulk_update(ranked, ["seed"])
        forget_live_parts(tournament.pk)
    return ranked

"""Reads about players: their events, placings and games; search; a user's own entries;
the record of acts on who they are and the merges waiting."""

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q

from players.models import (
    ACTIVE,
    Application,
    EntryRequest,
    IdentityAct,
    MergeRequest,
    Player,
    PlayerMerge,
)
from players.names import name_key
from tournaments.models import Entrant, MatchSeat, Round, Staff, StandingsSnapshot, Tournament
from tournaments.read.standings_store import SnapshotDocument

SEARCH_LIMIT = 50


def entries_of(player_id: int):
    """The entrants a player is part of, alone or in a team."""
    return Entrant.objects.filter(Q(player_id=player_id) | Q(partner_id=player_id))


def events_of(player_id: int) -> set[int]:
    """The events (tournament ids) a player entered, alone or in a team."""
    return set(entries_of(player_id).values_list("tournament_id", flat=True))


@dataclass
class EventLine:
    """One event a player entered: as whom, their placing and the games they played."""

    tournament: Tournament
    entrant: Entrant
    placing: int | None
    tied: bool
    of: int
    stage_name: str
    games: int


def shown_tournaments(user):
    """The events ``user`` may see: public ones and those they are staff of."""
    if getattr(user, "is_superuser", False):
        return Tournament.objects.all()
    if getattr(user, "is_authenticated", False):
        return Tournament.objects.filter(Q(public=True) | Q(staff__user=user)).distinct()
    return Tournament.objects.filter(public=True)


def player_events(player: Player, user) -> list[EventLine]:
    """Every event ``player`` entered that ``user`` may see, newest first (three queries).
    An entry someone else made for the person, that they have yet to accept, is not
    theirs to show (``players.entries``)."""
    unanswered = EntryRequest.objects.filter(
        entrant=OuterRef("pk"), player=player, answer=EntryRequest.Answer.PENDING
    )
    entrants = list(
        entries_of(player.pk)
        .filter(tournament__in=shown_tournaments(user))
        .exclude(Exists(unanswered))
        .select_related("tournament")
        .order_by("-tournament__created_at", "-pk")
    )
    return event_lines(entrants)


def event_lines(entrants: list[Entrant]) -> list[EventLine]:
    ids = [entrant.pk for entrant in entrants]
    games = dict(
        MatchSeat.objects.filter(entrant_id__in=ids, total__isnull=False)
        .exclude(match__round__status=Round.Status.DRAFT)
        .values_list("entrant_id")
        .annotate(n=Count("pk"))
        .values_list("entrant_id", "n")
    )
    # The placing is the entrant's line in the last stage whose standings hold them.
    snapshots = StandingsSnapshot.objects.filter(
        tournament_id__in={entrant.tournament_id for entrant in entrants}
    ).select_related("stage")
    placed: dict[int, tuple[int, int, bool, int, str]] = {}
    for snapshot in snapshots:
        document = SnapshotDocument(snapshot.document)
        for entrant in entrants:
            if entrant.tournament_id != snapshot.tournament_id:
                continue
            index = document.index_of(entrant.pk)
            if index is None:
                continue
            previous = placed.get(entrant.pk)
            if previous is None or previous[0] < snapshot.stage.order:
                row = document.rows(index, index + 1)[0]
                if not row.games_played:
                    continue  # no placing before a game of theirs counts
                placed[entrant.pk] = (
                    snapshot.stage.order,
                    row.rank,
                    row.tied,
                    len(document),
                    snapshot.stage.name,
                )
    lines = []
    for entrant in entrants:
        _, rank, tied, of, stage_name = placed.get(entrant.pk, (0, None, False, 0, ""))
        lines.append(
            EventLine(
                tournament=entrant.tournament,
                entrant=entrant,
                placing=rank,
                tied=tied,
                of=of,
                stage_name=stage_name,
                games=games.get(entrant.pk, 0),
            )
        )
    return lines


def search_players(text: str, *, limit: int = SEARCH_LIMIT):
    """Players whose folded name or club holds the folded ``text``, by name."""
    key = name_key(text)
    players = Player.objects.all()
    if key:
        players = players.filter(Q(name_key__contains=key) | Q(club_key__contains=key))
    return players.order_by("display_name", "pk")[:limit] if limit else players


def own_player(user) -> Player | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return Player.objects.filter(user=user).first()


def open_applications(user):
    """The user's entries in progress, and the partner invitations waiting for them."""
    if not getattr(user, "is_authenticated", False):
        return Application.objects.none()
    return (
        Application.objects.filter(Q(user=user) | Q(partner_user=user), status__in=ACTIVE)
        .select_related("tournament", "player", "partner", "user", "partner_user")
        .order_by("-created_at")
    )


def identity_acts(user):
    """The acts on who ``user`` is: on their account, on their player, or on a player
    since merged into theirs, newest first."""
    if not getattr(user, "is_authenticated", False):
        return IdentityAct.objects.none()
    player = own_player(user)
    ids = []
    if player is not None:
        ids = [
            player.pk,
            *PlayerMerge.objects.filter(kept=player).values_list("removed_id", flat=True),
        ]
    return IdentityAct.objects.filter(
        Q(account=user) | Q(player_id__in=ids) | Q(other_id__in=ids)
    ).select_related("by")


def merge_requests(user):
    """The merges ``user`` asked for, and the open ones they may have to confirm (as a
    superuser, or an organizer of an event the other player entered)."""
    if not getattr(user, "is_authenticated", False):
        return MergeRequest.objects.none()
    rows = MergeRequest.objects.select_related("keep", "other", "asked_by")
    if user.is_superuser:
        return rows.filter(Q(asked_by=user) | Q(status=MergeRequest.Status.OPEN))
    organized = Staff.objects.filter(user=user, role=Staff.Role.ORGANIZER).values("tournament_id")
    entries = Entrant.objects.filter(tournament_id__in=organized)
    theirs = Q(other_id__in=entries.values("player_id")) | Q(
        other_id__in=entries.exclude(partner=None).values("partner_id")
    )
    return rows.filter(Q(asked_by=user) | (Q(status=MergeRequest.Status.OPEN) & theirs))

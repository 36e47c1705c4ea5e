"""One player across events: telling whether a name already belongs to a player.

A player is known by their name and, where given, their club. Two names are the same
name when they differ only in accents, case and spacing ("José  Pérez" / "jose perez");
a name a few letters away from a known one ("Jose Peres") is a close match. A same name
is the same player; a close match, or a name several players share, is the organizer's
choice: the existing player or a new one. Nothing here creates a player silently beside
one it might be.

A known player is chosen only among the candidates offered for that name: each comes
with a signed, short-lived token (``candidate_token``) naming the name, the player and
the scope (the event and the organizer) it was offered in, and a choice is that token
given back. A player's number alone chooses nothing, so nobody attaches to their own
event a player the product never offered them.

Looked up for an organizer (``by``), a name is only the players that organizer may enter:
an unlinked player they look after (who plays in an event they organize or a ladder they
made, or who appears nowhere yet), and anyone linked to an account. A linked player is
never entered by someone else's act: the entry gets a new player of the name standing
in (``stands_in_for``), and the person is asked (``players.entries``).
"""

from dataclasses import dataclass, field

from django.core import signing
from django.db.models import Max, Q

from domain.errors import Conflict, UserError
from domain.say import say
from players.models import Player
from players.names import MOST_CANDIDATES, blocks, choice_key, close_names, name_key

NEW = 0  # the choice "a new player", beside a candidate's token
# The salt keeps its first module's name: tokens already offered stay good.
CANDIDATE_SALT = "accounts.players.candidate"
# How long a candidate offered stays choosable: long enough to read a list and choose.
CANDIDATE_MAX_AGE = 3600


@dataclass
class Lookup:
    """What the players already known say about one name (and club)."""

    name: str
    club: str
    same: Player | None = None
    candidates: list[Player] = field(default_factory=list)

    @property
    def key(self) -> str:
        return choice_key(self.name, self.club)

    @property
    def needs_choice(self) -> bool:
        return self.same is None and bool(self.candidates)


def look_up(name: str, club: str = "", *, by=None) -> Lookup:
    """The player this name (and club) is, or the players it might be."""
    return look_up_all([(name, club)], by=by)[0]


# Who may enter which unlinked player is a rule of the layers above (events, entry
# requests, ladders); the app that holds it registers it here (``circuit.consent``), so
# this module imports none of them. Until one does, only linked players are attachable.
_attachable_rule = None


def attach_rule(rule):
    """Register ``rule(by, players) -> set[int]``, the players ``by`` may enter."""
    global _attachable_rule
    _attachable_rule = rule
    return rule


def attachable(by, players) -> set[int]:
    """Of ``players``, the numbers of those ``by`` may enter in an event (the registered
    rule; see ``circuit.consent.attachable``)."""
    players = list(players)
    if _attachable_rule is None:
        return {p.pk for p in players if p.user_id is not None}
    return _attachable_rule(by, players)


def look_up_all(people: list[tuple[str, str]], *, by=None) -> list[Lookup]:
    """``look_up`` for a whole list, in three queries however long it is (a few more
    with ``by``: only the players ``by`` may enter are found, see ``attachable``)."""
    keys = [(name_key(name), name_key(club)) for name, club in people]
    namesakes: dict[str, list[Player]] = {}
    wanted = {key for key, _ in keys}
    found_players = list(Player.objects.filter(name_key__in=wanted).order_by("pk"))
    if by is not None:
        may = attachable(by, found_players)
        found_players = [p for p in found_players if p.pk in may]
    for player in found_players:
        namesakes.setdefault(player.name_key, []).append(player)
    found = [Lookup(name, club) for name, club in people]
    near: dict[int, list[int]] = {}
    for index, (key, club_key) in enumerate(keys):
        lookup, same_name = found[index], namesakes.get(key, [])
        same_club = [p for p in same_name if p.club_key == club_key] if club_key else []
        if len(same_club) == 1:
            lookup.same = same_club[0]
        elif not club_key and len(same_name) == 1:
            lookup.same = same_name[0]
        else:
            lookup.candidates = (same_club or same_name)[:MOST_CANDIDATES]
            near[index] = []
    if near:
        by_name: dict[str, list[int]] = {}
        by_block: dict[tuple, set[str]] = {}
        for pk, other in Player.objects.exclude(name_key="").values_list("pk", "name_key"):
            by_name.setdefault(other, []).append(pk)
            for block in blocks(other):
                by_block.setdefault(block, set()).add(other)
        for index in near:
            key = keys[index][0]
            pool = set().union(*(by_block.get(block, ()) for block in blocks(key)))
            near[index] = [pk for other in close_names(key, pool) for pk in by_name[other]]
        players = Player.objects.in_bulk({pk for ids in near.values() for pk in ids})
        if by is not None:
            may = attachable(by, players.values())
            players = {pk: p for pk, p in players.items() if pk in may}
        for index, ids in near.items():
            lookup = found[index]
            have = {p.pk for p in lookup.candidates}
            extra = [players[pk] for pk in ids if pk in players and pk not in have]
            lookup.candidates = (lookup.candidates + extra)[:MOST_CANDIDATES]
    return found


def similar_players(player: Player) -> list[Player]:
    """Other players who may be the same person: the same name, or a close one."""
    key = player.name_key or name_key(player.display_name)
    others = Player.objects.exclude(pk=player.pk)
    found = list(others.filter(name_key=key).order_by("pk")[:MOST_CANDIDATES])
    words = key.split()
    if words and len(found) < MOST_CANDIDATES:
        pool: dict[str, list[int]] = {}
        nearby = others.exclude(name_key=key).exclude(name_key="")
        query = Q()
        for word in words:
            query |= Q(name_key__contains=word)
        for pk, other in nearby.filter(query).values_list("pk", "name_key")[:5000]:
            pool.setdefault(other, []).append(pk)
        ids = [pk for other in close_names(key, pool) for pk in pool[other]]
        near = Player.objects.in_bulk(ids)
        found += [near[pk] for pk in ids if pk in near]
    return found[:MOST_CANDIDATES]


class PlayerChoiceNeeded(Conflict):
    """Some names could be players already known: the organizer must choose for each."""

    def __init__(self, lookups: list[Lookup], field_name: str = "players", *, scope: str = ""):
        names = ", ".join(lookup.name for lookup in lookups)
        super().__init__(
            say(
                "Choose for {names}: an existing player or a new one (nothing was registered).",
                names=names,
            ),
            field_name,
        )
        self.lookups = lookups
        self.scope = scope

    def body(self, tell) -> dict:
        """Each name with the players it might be and their tokens, so a program can
        choose (by giving the token back)."""
        return {
            "detail": tell(self.message),
            "errors": {self.field: [tell(self.message)]},
            "choices": [
                {
                    "name": lookup.name,
                    "club": lookup.club,
                    "candidates": offered(lookup, self.scope),
                }
                for lookup in self.lookups
            ],
        }


def candidate_token(key: str, player_id: int, scope: str) -> str:
    """A signed proof that ``player_id`` was offered for the name ``key``
    (``choice_key``) in ``scope``: what a choice of a known player gives back."""
    return signing.dumps([key, player_id, scope], salt=CANDIDATE_SALT)


def offered(lookup: Lookup, scope: str) -> list[dict]:
    """The candidates of a name as the product offers them: each with its token."""
    return [
        {
            "id": p.pk,
            "name": p.display_name,
            "club": p.club,
            "token": candidate_token(lookup.key, p.pk, scope),
        }
        for p in lookup.candidates
    ]


def token_player(token: str) -> int | None:
    """The player a well-signed token names, however old (to show a choice again)."""
    try:
        return int(signing.loads(token, salt=CANDIDATE_SALT)[1])
    except (signing.BadSignature, TypeError, ValueError, IndexError):
        return None


def players_for(
    people: list[tuple[str, str]],
    choices: dict[str, int | str] | None = None,
    *,
    scope: str = "",
    by=None,
) -> list[Player]:
    """The player of each ``(name, club)``: the same one when known, else the one the
    organizer chose (``choices``: ``choice_key`` → a candidate's token offered in
    ``scope``, or ``NEW``), else a new player. Raises ``PlayerChoiceNeeded`` when a name
    could be a known player and no choice says which; call inside the transaction that
    uses the players.

    With ``by`` (the organizer entering them) only the players ``by`` may enter are
    found, and a player linked to someone else's account is not entered: a new player of
    the name stands in, its ``stands_in_for`` naming the person to ask."""
    choices = choices or {}
    lookups = look_up_all(people, by=by)
    unresolved = [lookup for lookup in lookups if lookup.needs_choice and lookup.key not in choices]
    if unresolved:
        raise PlayerChoiceNeeded(_unique(unresolved), scope=scope)
    players: list[Player] = []
    made: dict[str, Player] = {}
    for lookup in lookups:
        chosen = choices.get(lookup.key)
        if chosen is not None and chosen != NEW:
            player = _chosen(lookup, chosen, scope)
        elif chosen is None and lookup.same is not None:
            player = lookup.same
        elif lookup.key in made:
            player = made[lookup.key]
        else:
            player = new_player(lookup.name, lookup.club)
            made[lookup.key] = player
        if by is not None and player.user_id is not None and player.user_id != by.pk:
            holder = player
            player = new_player(lookup.name, lookup.club)
            player.stands_in_for = holder
        players.append(player)
    return players


def _unique(lookups: list[Lookup]) -> list[Lookup]:
    seen: dict[str, Lookup] = {}
    for lookup in lookups:
        seen.setdefault(lookup.key, lookup)
    return list(seen.values())


def _chosen(lookup: Lookup, token, scope: str) -> Player:
    """The candidate a token chooses: signed by us, for this name, in this scope, within
    the hour, and still a candidate of the name now."""
    try:
        key, pk, offered_in = signing.loads(
            str(token), salt=CANDIDATE_SALT, max_age=CANDIDATE_MAX_AGE
        )
    except signing.SignatureExpired as error:
        raise Conflict(
            say("The choice for {name} is too old: check the list again.", name=lookup.name),
            "players",
        ) from error
    except (signing.BadSignature, TypeError, ValueError) as error:
        raise UserError(_not_offered(lookup), "players") from error
    if key != lookup.key or offered_in != scope:
        raise UserError(_not_offered(lookup), "players")
    player = next((p for p in lookup.candidates if p.pk == pk), None)
    if player is None:
        raise Conflict(
            say("{name} no longer matches that player: check the list again.", name=lookup.name),
            "players",
        )
    return player


def _not_offered(lookup: Lookup) -> str:
    return say(
        "For {name}, choose one of the players offered for that name, or a new one.",
        name=lookup.name,
    )


def new_player(name: str, club: str = "", **extra) -> Player:
    """A new player; a namesake of the same club gets the next homonym number."""
    key, club_key = name_key(name), name_key(club)
    taken = Player.objects.filter(name_key=key, club_key=club_key).aggregate(m=Max("homonym"))["m"]
    return Player.objects.create(
        display_name=name, club=club, homonym=0 if taken is None else taken + 1, **extra
    )

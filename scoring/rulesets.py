"""Every rule set capicu keeps score by, as data (RULES.md, "Rule-set fields" and "Presets").

A ``Preset`` names a house rule's choices, some of them per table size (hand size,
target, removed tiles). ``get_ruleset(key, players=N)`` resolves a preset for one table
size, applies an organizer's overrides, and returns a frozen ``RuleSet``: the object the
engine reads. A new house rule is a new preset or an override, never an ``if`` on a
preset's name. Pure Python: no Django.
"""

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from domain.errors import UserError
from domain.say import say
from scoring.bounds import MOST_TILES, PENALTY_POINTS_RANGE, TARGET_RANGE, within


def gettext_noop(message: str) -> str:
    """Mark a phrase for translation where it is defined; translate it where it is used."""
    return message


class ScoringError(UserError):
    """Input that cannot be scored, in words a referee understands, with the field at fault."""


Tile = tuple[int, int]

# The values each choice may take (RULES.md, "Rule-set fields").
CHOICES: dict[str, tuple[str, ...]] = {
    "teams": ("none", "partners"),
    "domino_award": ("opponents_pips", "all_pips"),
    "block_winner": ("lowest_hand", "lowest_team"),
    "block_award": (
        "opponents_pips",
        "opponents_minus_own",
        "sum_of_differences",
        "cascade",
        "losing_team_pips",
        "all_pips",
    ),
    "rounding": ("none", "nearest_5"),
    "block_tie": ("split", "no_award", "lowest_tile", "starting_team"),
    "first_leader": ("double_six", "highest_double", "highest_double_then_tile", "drawn"),
    "next_leader": ("previous_winner", "rotate", "highest_double"),
    "win_check": ("end_of_hand", "immediate"),
    "clock_escalation": ("forced_pass_then_penalty",),
}

# Seconds a play clock may be set to (RULES.md, Officiating).
PLAY_CLOCK_RANGE = (5, 600)


@dataclass(frozen=True)
class RuleSet:
    """The rules of one game at one table size: every rule choice is a field."""

    key: str
    players: int
    teams: str = "none"
    boxes: int = 1
    hand_size: int = 7
    removed_tiles: tuple[Tile, ...] = ()
    draws: bool = False
    target: int = 250
    in_play_scoring: bool = True
    stacking: bool = False
    steal: bool = False
    domino_award: str = "opponents_pips"
    block_winner: str = "lowest_hand"
    block_award: str = "opponents_minus_own"
    rounding: str = "nearest_5"
    block_tie: str = "no_award"
    first_leader: str = "double_six"
    next_leader: str = "previous_winner"
    play_on_tie_at_target: bool = True
    win_check: str = "end_of_hand"
    penalty_points: int = 10
    # RULES.md, Officiating: seconds per play (None: no clock) and what a clock
    # violation costs (the first a forced pass, each later one penalty_points).
    play_clock_seconds: int | None = None
    clock_escalation: str = "forced_pass_then_penalty"

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def tiles(self) -> list[Tile]:
        """Every tile in play: the double-six set once per box, less the removed tiles."""
        tiles = [(a, b) for a in range(7) for b in range(a, 7)] * self.boxes
        for removed in self.removed_tiles:
            tiles.remove(removed)
        return tiles

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict that ``from_dict`` turns back into an equal rule set."""
        data = asdict(self)
        data["removed_tiles"] = [list(tile) for tile in self.removed_tiles]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RuleSet":
        """Rebuild a rule set frozen with ``to_dict``."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ScoringError(
                say("Unknown rule {value!r}.", value=sorted(unknown)[0]), sorted(unknown)[0]
            )
        values = dict(data)
        values["removed_tiles"] = tuple(
            _tile(tile, "removed_tiles") for tile in values.get("removed_tiles", ())
        )
        return cls(**values)


def _tile(value: Any, field_name: str) -> Tile:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(half, int) and not isinstance(half, bool) for half in value)
        or not all(0 <= half <= 6 for half in value)
    ):
        raise ScoringError(say("{value!r} is not a double-six tile.", value=value), field_name)
    return (min(value), max(value))


def _validate(rules: RuleSet) -> None:
    for name, allowed in CHOICES.items():
        value = getattr(rules, name)
        if value not in allowed:
            raise ScoringError(
                say(
                    "{name} must be one of {names}; got {value!r}.",
                    name=name,
                    names=", ".join(allowed),
                    value=value,
                ),
                name,
            )
    for name in ("in_play_scoring", "stacking", "steal", "draws", "play_on_tie_at_target"):
        if not isinstance(getattr(rules, name), bool):
            raise ScoringError(say("{name} is yes or no (true/false).", name=name), name)
    # The whole set (or both) dealt out is the most a hand can be, drawing or not.
    most_tiles = MOST_TILES if rules.boxes == 2 else MOST_TILES // 2
    hand_sizes = (1, most_tiles // max(1, rules.players))
    for name, (low, high) in (
        ("target", TARGET_RANGE),
        ("hand_size", hand_sizes),
        ("penalty_points", PENALTY_POINTS_RANGE),
    ):
        if not within(getattr(rules, name), (low, high)):
            raise ScoringError(
                say(
                    "{name} must be a whole number from {low} to {high}.",
                    name=name,
                    low=low,
                    high=high,
                ),
                name,
            )
    if rules.play_clock_seconds is not None and not within(
        rules.play_clock_seconds, PLAY_CLOCK_RANGE
    ):
        raise ScoringError(
            say(
                "play_clock_seconds is empty (no clock) or a whole number from {low} to {high}.",
                low=PLAY_CLOCK_RANGE[0],
                high=PLAY_CLOCK_RANGE[1],
            ),
            "play_clock_seconds",
        )
    if rules.boxes not in (1, 2):
        raise ScoringError(say("A game uses one double-six set or two."), "boxes")
    if rules.teams == "partners" and rules.players != 4:
        raise ScoringError(say("Partners is played by four: two teams of two."), "players")
    if rules.steal and not rules.stacking:
        raise ScoringError(say("Stealing happens by stacking: turn stacking on too."), "steal")
    if rules.stacking and rules.boxes != 2:
        raise ScoringError(
            say("Stacking needs two sets, so that every tile has a twin."), "stacking"
        )
    pool = [(a, b) for a in range(7) for b in range(a, 7)] * rules.boxes
    for tile in rules.removed_tiles:
        if tile not in pool:
            raise ScoringError(
                say("Tile {tile} is not in the set to remove.", tile=tile), "removed_tiles"
            )
        pool.remove(tile)
    if not rules.draws and rules.players * rules.hand_size > len(pool):
        raise ScoringError(
            say(
                "{players} hands of {hand_size} need more than the {count} tiles in play.",
                players=rules.players,
                hand_size=rules.hand_size,
                count=len(pool),
            ),
            "hand_size",
        )


@dataclass(frozen=True)
class Preset:
    """A named rule set before its table size is chosen; per-size fields are maps."""

    key: str
    label: str
    description: str
    players: tuple[int, ...]
    default_players: int
    hand_size: dict[int, int]
    target: dict[int, int]
    removed_tiles: dict[int, tuple[Tile, ...]] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def resolve(self, players: int) -> RuleSet:
        """The rule set at a table of ``players``."""
        return RuleSet(
            key=self.key,
            players=players,
            hand_size=self.hand_size[players],
            target=self.target[players],
            removed_tiles=self.removed_tiles.get(players, ()),
            **self.rules,
        )

    def to_dict(self) -> dict[str, Any]:
        """Every field of the preset, per table size where it varies, for pickers and the API."""
        return {
            "key": self.key,
            "label": self.label,
            "description": self.description,
            "source": self.source,
            "players": list(self.players),
            "default_players": self.default_players,
            "per_table_size": {str(size): self.resolve(size).to_dict() for size in self.players},
        }


def _each(players: tuple[int, ...], value: int) -> dict[int, int]:
    return dict.fromkeys(players, value)


_PARTNERS = {
    "teams": "partners",
    "in_play_scoring": True,
    "domino_award": "opponents_pips",
    "block_winner": "lowest_team",
    "block_award": "losing_team_pips",
    "rounding": "nearest_5",
    "block_tie": "no_award",
    "first_leader": "double_six",
    "next_leader": "rotate",
}

_TWO_BOX = {
    "boxes": 2,
    "draws": True,
    "in_play_scoring": True,
    "stacking": True,
    "steal": False,
    "domino_award": "opponents_pips",
    "block_winner": "lowest_hand",
    "block_award": "opponents_minus_own",
    "rounding": "none",
    "block_tie": "lowest_tile",
    "first_leader": "highest_double",
    "next_leader": "highest_double",
}

PRESETS: dict[str, Preset] = {
    preset.key: preset
    for preset in (
        Preset(
            key="cutthroat",
            label="Cutthroat",
            description=gettext_noop(
                "Two to four play for themselves to 150/200/250; fives score in play; "
                "a block pays the opponents' pips less the winner's own, to the nearest five."
            ),
            players=(2, 3, 4),
            default_players=4,
            hand_size={2: 14, 3: 9, 4: 7},
            target={2: 150, 3: 200, 4: 250},
            removed_tiles={3: ((0, 0),)},
            rules={
                "in_play_scoring": True,
                "domino_award": "opponents_pips",
                "block_winner": "lowest_hand",
                "block_award": "opponents_minus_own",
                "rounding": "nearest_5",
                # seed 000 is silent on a tied block: the All Fives custom, nobody scores.
                "block_tie": "no_award",
                "first_leader": "double_six",
                "next_leader": "previous_winner",
            },
            source="seed 000",
        ),
        Preset(
            key="dcs",
            label="DCS Cut-Throat",
            description=gettext_noop(
                "Four play for themselves to 250; no points in play; a block pays the "
                "difference to each opponent, split on a tie; nothing rounded."
            ),
            players=(4,),
            default_players=4,
            hand_size={4: 7},
            target={4: 250},
            rules={
                # seed 001 lists no in-play points and shows an unrounded example.
                "in_play_scoring": False,
                "domino_award": "opponents_pips",
                "block_winner": "lowest_hand",
                "block_award": "sum_of_differences",
                "rounding": "none",
                "block_tie": "split",
                "first_leader": "highest_double_then_tile",
                "next_leader": "highest_double",
                # "30 seconds per play"; a forced pass first, point penalties after.
                "play_clock_seconds": 30,
            },
            source="seed 001",
        ),
        Preset(
            key="partners",
            label="Partners",
            description=gettext_noop(
                "Two teams of two to 250; fives score in play; the winning team scores the "
                "losing team's pips to the nearest five; a tied block is a draw."
            ),
            players=(4,),
            default_players=4,
            hand_size={4: 7},
            target={4: 250},
            rules=_PARTNERS,
            source="seed 002",
        ),
        Preset(
            key="doscientos",
            label="Doscientos",
            description=gettext_noop(
                "Puerto Rican Partners to 200: the winning team scores every pip left on "
                "the table, its own included."
            ),
            players=(4,),
            default_players=4,
            hand_size={4: 7},
            target={4: 200},
            rules={**_PARTNERS, "domino_award": "all_pips", "block_award": "all_pips"},
            source="seed 002",
        ),
        Preset(
            key="federation",
            label="Federation",
            description=gettext_noop(
                "International Partners to 200; the first leader is drawn; the winning team "
                "scores the losing team's pips."
            ),
            players=(4,),
            default_players=4,
            hand_size={4: 7},
            target={4: 200},
            rules={**_PARTNERS, "first_leader": "drawn"},
            source="seed 002",
        ),
        Preset(
            key="mexican",
            label="Mexican",
            description=gettext_noop(
                "Partners to 250 where the hand's winner leads the next and a tied block "
                "goes to the team that led."
            ),
            players=(4,),
            default_players=4,
            hand_size={4: 7},
            target={4: 250},
            rules={**_PARTNERS, "block_tie": "starting_team", "next_leader": "previous_winner"},
            source="seed 002",
        ),
        Preset(
            key="two_box",
            label="Two-box",
            description=gettext_noop(
                "Four (up to six) play alone with two sets, drawing from the boneyard, to "
                "150; matching tiles stack; a tied block goes to the lowest single tile."
            ),
            players=(4, 5, 6),
            default_players=4,
            hand_size=_each((4, 5, 6), 7),
            target=_each((4, 5, 6), 150),
            rules=_TWO_BOX,
            source="seed 003",
        ),
        Preset(
            key="two_box_cutthroat",
            label="Two-box Cutthroat",
            description=gettext_noop(
                "Two-box where a stack steals the previous play's points (double with a "
                "double) from the player who made it."
            ),
            players=(4, 5, 6),
            default_players=4,
            hand_size=_each((4, 5, 6), 7),
            target=_each((4, 5, 6), 150),
            rules={**_TWO_BOX, "steal": True},
            source="seed 003",
        ),
    )
}

# Fields an organizer may not override: they say which preset and table size this is.
FIXED_FIELDS = {"key", "players"}


def allowed_table_sizes(key: str) -> tuple[int, ...]:
    """The table sizes (players a table) a preset allows: a round seats a field with
    these (RULES.md, "Fields that don't divide"); empty for an unknown key."""
    preset = PRESETS.get(key)
    return tuple(sorted(preset.players)) if preset else ()


def get_ruleset(key: str, *, players: int | None = None, overrides: dict | None = None) -> RuleSet:
    """Resolve a preset for a table of ``players`` and apply an organizer's overrides."""
    preset = PRESETS.get(key)
    if preset is None:
        raise ScoringError(
            say(
                "There is no rule set called {key!r}; choose from {names}.",
                key=key,
                names=", ".join(PRESETS),
            ),
            "ruleset",
        )
    if players is None:
        players = preset.default_players
    if players not in preset.players:
        sizes = ", ".join(str(size) for size in preset.players)
        raise ScoringError(
            say(
                "{label} is played by {sizes} players, not {players}.",
                label=preset.label,
                sizes=sizes,
                players=players,
            ),
            "players",
        )
    rules = preset.resolve(players)
    if not overrides:
        return rules
    if not isinstance(overrides, dict):
        raise ScoringError(say("Overrides are a set of rule names and values."), "overrides")
    known = {f.name for f in fields(RuleSet)} - FIXED_FIELDS
    changes = {}
    for name, value in overrides.items():
        if name not in known:
            raise ScoringError(
                say("There is no rule called {name!r} to override.", name=name), name
            )
        if name == "removed_tiles":
            if not isinstance(value, list | tuple):
                raise ScoringError(say("removed_tiles is a list of tiles."), name)
            value = tuple(_tile(tile, name) for tile in value)
        changes[name] = value
    return replace(rules, **changes)


__all__ = [
    "CHOICES",
    "PLAY_CLOCK_RANGE",
    "PRESETS",
    "Preset",
    "RuleSet",
    "ScoringError",
    "Tile",
    "allowed_table_sizes",
    "get_ruleset",
]

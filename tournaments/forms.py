"""Organizer forms: a tournament from a preset, its settings, its stages, and finishing one.

Numbers are typed in text boxes (``inputmode`` brings up the phone's number pad): a number
box would send letters as nothing at all, and the organizer would read "This field is
required." instead of what is wrong."""

import json

from django import forms
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import wording
from scoring.bounds import PENALTY_RANGE, TARGET_RANGE
from scoring.rulesets import CHOICES, PLAY_CLOCK_RANGE, PRESETS, get_ruleset
from tournaments import clock
from tournaments.bounds import (
    ADVANCING_RANGE,
    PLACEMENT_POINTS_RANGE,
    POOLS_RANGE,
    ROUNDS_RANGE,
    STAGE_SETTING_RANGES,
)
from tournaments.entries import MAX_NAME
from tournaments.models import Stage, Tournament, default_tiebreak_order
from tournaments.read.standings import METRICS, TIEBREAKERS

TIEBREAK_SLOTS = 6
# The rule-set fields an organizer may change from the preset.
RULE_FIELDS = (
    "target",
    "in_play_scoring",
    "rounding",
    "block_tie",
    "penalty_points",
    "play_clock_seconds",
)

_READABLE = {
    "rounding": {"none": _("exact, not rounded"), "nearest_5": _("to the nearest five")},
    "block_tie": {
        "split": _("split the award"),
        "no_award": _("nobody scores"),
        "lowest_tile": _("lowest single tile wins"),
        "starting_team": _("the team that led wins"),
    },
}


def preset_lines() -> list[dict]:
    """Each preset in one line of plain words, at its usual table size."""
    return [
        {
            "key": key,
            "label": preset.label,
            # Its own words first: two presets may read the same in the summary (the
            # two-box games differ only in the steal).
            "description": gettext(preset.description),
            "summary": wording.summary(get_ruleset(key), gettext),
            "sizes": preset.players,
        }
        for key, preset in PRESETS.items()
    ]


def whole_number(label, bounds: tuple[int, int], *, required: bool = True, help_text=""):
    """A whole number typed in a text box and read within ``bounds``."""
    return forms.IntegerField(
        label=label,
        min_value=bounds[0],
        max_value=bounds[1],
        required=required,
        help_text=help_text,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )


class RulesForm(forms.Form):
    """The rules a tournament plays (a preset's values, changed where the event differs)
    and the order that breaks ties in its standings."""

    table_size = forms.TypedChoiceField(label=_("Players at a table"), coerce=int)
    target = whole_number(_("Points to win"), TARGET_RANGE)
    in_play_scoring = forms.BooleanField(label=_("Points score during play"), required=False)
    rounding = forms.ChoiceField(label=_("Awards rounded"))
    block_tie = forms.ChoiceField(label=_("A tied block"))
    penalty_points = whole_number(_("Points a penalty costs"), PENALTY_RANGE)
    play_clock_seconds = whole_number(
        _("Seconds per play (play clock)"),
        PLAY_CLOCK_RANGE,
        required=False,
        help_text=_("Blank: no play clock."),
    )

    def __init__(self, *args, preset: str, rules=None, tiebreak_order=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.preset = PRESETS[preset]
        self.rules = rules or get_ruleset(preset)
        self.fields["table_size"].choices = [(n, str(n)) for n in self.preset.players]
        self.fields["rounding"].choices = [
            (c, _READABLE["rounding"][c]) for c in CHOICES["rounding"]
        ]
        self.fields["block_tie"].choices = [
            (c, _READABLE["block_tie"][c]) for c in CHOICES["block_tie"]
        ]
        for field in RULE_FIELDS:
            self.fields[field].initial = getattr(self.rules, field)
        self.fields["table_size"].initial = (
            self.rules.players if rules is not None else self.preset.default_players
        )
        metrics = [("", "—")] + [(key, _(METRICS[key].label)) for key in TIEBREAKERS]
        order = list(tiebreak_order or get_default_order())
        for index in range(TIEBREAK_SLOTS):
            self.fields[f"tiebreak_{index + 1}"] = forms.ChoiceField(
                label=_("Tiebreak {number}").format(number=index + 1),
                choices=metrics,
                required=index == 0,
                initial=order[index] if index < len(order) else "",
            )

    def rule_fields(self):
        return [self[name] for name in ("table_size", "target", "rounding", "block_tie")] + [
            self["penalty_points"],
            self["play_clock_seconds"],
        ]

    def tiebreak_fields(self):
        return [self[f"tiebreak_{index + 1}"] for index in range(TIEBREAK_SLOTS)]

    def clean(self):
        data = super().clean()
        order = [data.get(f"tiebreak_{i + 1}") for i in range(TIEBREAK_SLOTS)]
        order = [key for key in order if key]
        if len(set(order)) != len(order):
            self.add_error("tiebreak_1", _("Each tiebreaker once: one is chosen twice."))
        data["tiebreak_order"] = order
        return data

    def overrides(self) -> dict:
        """Only what differs from the preset (at the chosen table size)."""
        rules = get_ruleset(self.preset.key, players=self.cleaned_data["table_size"])
        changed = {}
        for field in RULE_FIELDS:
            if self.cleaned_data[field] != getattr(rules, field):
                changed[field] = self.cleaned_data[field]
        return changed


class StageOptions(forms.Form):
    """The options a stage's format takes (pools, how many go through, a grand-final
    reset), checked against the chosen format; ``format_field`` names the format's field."""

    format_field = "format"
    name_field = "name"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The stage's name follows its format until the organizer types one of their own.
        named = self.fields.get(self.name_field)
        if named is not None:
            named.widget.attrs["data-format-names"] = json.dumps(format_names())

    def _name_follows_format(self, data) -> None:
        name = (data.get(self.name_field) or "").strip()
        kind = data.get(self.format_field)
        if kind and name in default_names():
            data[self.name_field] = format_names()[kind]

    pools = whole_number(
        _("Pools"),
        POOLS_RANGE,
        required=False,
        help_text=_("Pools only: how many groups the field is split into."),
    )
    advance = whole_number(
        _("Go through from each table or pool"),
        STAGE_SETTING_RANGES["advance"],
        required=False,
        help_text=_(
            "A bracket: how many go through from each table (it must divide the table "
            "size). Pools: how many of each pool go through when the stage finishes."
        ),
    )
    grand_final_reset = forms.BooleanField(
        label=_("Grand final reset"),
        required=False,
        initial=True,
        help_text=_(
            "Double elimination: if the finalist from the losers' bracket wins the final, "
            "a second final decides."
        ),
    )

    third_place = forms.BooleanField(
        label=_("Third-place match"),
        required=False,
        help_text=_(
            "Single elimination: those the semi-finals put out play a table for third "
            "place in the final's round."
        ),
    )

    points_basis = forms.ChoiceField(
        label=_("Points compared as"),
        choices=[
            ("target_share", _("a share of each table's target")),
            ("raw", _("raw totals")),
        ],
        initial="target_share",
        required=False,
        help_text=_(
            "Where tables of different sizes play to different targets (200 at three, "
            "250 at four), a share of the target counts each table's points in the "
            "stage's own table size: 180 of 200 counts as 225 of 250. A field at one "
            "table size is the same either way."
        ),
    )

    bye_scores = forms.ChoiceField(
        label=_("A bye scores"),
        choices=[
            ("", _("as the event's bye policy says")),
            (
                "round_winners_average",
                _("a win, with the average points for of the round's winners"),
            ),
            ("stage_average", _("a win, with the stage's average game total")),
            ("nothing", _("nothing")),
        ],
        required=False,
        help_text=_(
            "What an entrant who sits out a round (the field does not fill the last "
            "table) gets: a game won, against nothing, with the points for said here "
            "(on the stage's points basis, to hundredths of a point), or nothing."
        ),
    )
    bye_match_points = forms.DecimalField(
        label=_("A bye's match points"),
        required=False,
        min_value=0,
        max_value=999999,
        decimal_places=2,
        help_text=_("Blank: a win's."),
    )

    def clean(self):
        data = super().clean()
        self._name_follows_format(data)
        kind = data.get(self.format_field)
        if data.get("third_place") and kind != "single_elimination":
            self.add_error(
                "third_place", _("Only a single-elimination bracket plays a third-place match.")
            )
        if kind == "pools" and not data.get("pools") and "pools" not in self.errors:
            self.add_error("pools", _("Say how many pools."))
        elif kind != "pools" and data.get("pools"):
            self.add_error("pools", _("Only a pools stage is split into pools."))
        if data.get("advance") and kind not in ("pools", "single_elimination"):
            self.add_error(
                "advance", _("Only a single-elimination bracket or pools send some through.")
            )
        return data

    def settings(self) -> dict:
        """The stage's settings, as the pairing engines read them."""
        data = self.cleaned_data
        settings = {}
        for name in ("rounds", "pools", "advance"):
            if data.get(name):
                settings[name] = data[name]
        if data[self.format_field] == "double_elimination":
            settings["grand_final_reset"] = bool(data.get("grand_final_reset"))
        if data.get("third_place"):
            settings["third_place"] = True
        if data.get("points_basis") == "raw":
            settings["points_basis"] = "raw"
        if data.get("bye_scores"):
            settings["bye_scores"] = data["bye_scores"]
        if data.get("bye_match_points") is not None:
            points = data["bye_match_points"]
            settings["bye_match_points"] = int(points) if points == int(points) else float(points)
        return settings


def format_names() -> dict[str, str]:
    """Each stage format's name in the active language: a stage's name until the
    organizer gives one."""
    return {value: str(label) for value, label in Stage.Format.choices}


def default_names() -> set[str]:
    """Names that only say a format, in English or the active language: not typed."""
    with translation.override("en"):
        english = format_names()
    return {*format_names().values(), *english.values()}


class TournamentForm(RulesForm, StageOptions):
    """A new tournament: the preset's values filled in, changed where the event differs,
    and its first stage with the options of its format."""

    format_field = "stage_format"
    name_field = "stage_name"

    name = forms.CharField(label=_("Name"), max_length=MAX_NAME)
    public = forms.BooleanField(
        label=_("Public: anyone can follow it"), required=False, initial=True
    )
    stage_name = forms.CharField(label=_("First stage"), max_length=120, initial=_("Round robin"))
    stage_format = forms.ChoiceField(label=_("Format"), choices=Stage.Format.choices)
    rounds = whole_number(
        _("Rounds"),
        ROUNDS_RANGE,
        required=False,
        help_text=_("Blank: everyone meets everyone (round robin) or the bracket's own length."),
    )


def get_default_order():
    return default_tiebreak_order()


class SettingsForm(RulesForm):
    """A tournament's settings: its name, who sees it, its time zone, and (until the
    first game starts) its rules and how its standings count."""

    name = forms.CharField(label=_("Name"), max_length=MAX_NAME)
    public = forms.BooleanField(label=_("Public: anyone can follow it"), required=False)
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_("Every time on the event's pages is shown in this zone."),
    )
    bye_policy = forms.ChoiceField(
        label=_("A bye counts as"),
        # A stage's own choice (its "A bye scores") comes first; this is the default.
        choices=[
            (
                Tournament.ByePolicy.WIN_AVERAGE,
                _(
                    "A win, its points for as each stage says (by default the round "
                    "winners' average)"
                ),
            ),
            (Tournament.ByePolicy.NOTHING, Tournament.ByePolicy.NOTHING.label),
        ],
    )
    include_live = forms.BooleanField(
        label=_("Count games in play in the standings"),
        required=False,
        help_text=_("Otherwise the standings count finished games only."),
    )

    def __init__(self, *args, tournament: Tournament, countries=(), **kwargs):
        rules = get_ruleset(
            tournament.ruleset_key, players=tournament.table_size, overrides=tournament.overrides
        )
        super().__init__(
            *args,
            preset=tournament.ruleset_key,
            rules=rules,
            tiebreak_order=tournament.tiebreak_order,
            **kwargs,
        )
        self.tournament = tournament
        # Canonical zones only, those of the event's likely countries first.
        self.fields["time_zone"].choices = clock.zone_choices(countries, tournament.time_zone)
        for name in ("name", "public", "time_zone", "bye_policy", "include_live"):
            self.fields[name].initial = getattr(tournament, name)
        self.sides = tournament.sides_per_table
        kept = (tournament.placement_points or {}).get(str(self.sides), {})
        for place in range(1, self.sides + 1):
            self.fields[f"place_{place}"] = forms.FloatField(
                label=_("Place {place}").format(place=place),
                required=False,
                min_value=PLACEMENT_POINTS_RANGE[0],
                max_value=PLACEMENT_POINTS_RANGE[1],
                initial=kept.get(str(place)),
                widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
            )

    def placement_fields(self):
        return [self[f"place_{place}"] for place in range(1, self.sides + 1)]

    def placement_points(self) -> dict:
        """The tournament's table with this size's row as typed (blank: the default)."""
        table = {
            size: places
            for size, places in (self.tournament.placement_points or {}).items()
            if size != str(self.sides)
        }
        row = {}
        for place in range(1, self.sides + 1):
            value = self.cleaned_data.get(f"place_{place}")
            if value is not None:
                row[str(place)] = int(value) if float(value).is_integer() else value
        if row:
            table[str(self.sides)] = row
        return table


class StageForm(StageOptions):
    """A stage added to the tournament, with the options its format takes."""

    name = forms.CharField(label=_("Stage name"), max_length=120)
    format = forms.ChoiceField(label=_("Format"), choices=Stage.Format.choices)
    rounds = whole_number(
        _("Rounds"),
        ROUNDS_RANGE,
        required=False,
        help_text=_("Blank: the format's own (a round robin: until everyone has met everyone)."),
    )
    field_order = [
        "name",
        "format",
        "rounds",
        "pools",
        "advance",
        "third_place",
        "grand_final_reset",
        "points_basis",
        "bye_scores",
        "bye_match_points",
    ]


class FinishForm(forms.Form):
    """How many of a stage go through to the next: the top overall or the top of each
    pool."""

    top = whole_number(
        _("Top overall"),
        ADVANCING_RANGE,
        required=False,
        help_text=_("Blank: everyone still in the stage goes through."),
    )
    per_pool = whole_number(
        _("Top of each pool"), ADVANCING_RANGE, required=False, help_text=_("Pools only.")
    )

    def __init__(self, *args, stage: Stage, last: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.stage = stage
        if last:  # nobody goes anywhere: the last stage's standings are the result
            self.fields.clear()
        elif stage.format == "pools":
            self.fields["per_pool"].initial = stage.settings.get("advance")
        else:
            del self.fields["per_pool"]

    def clean(self):
        data = super().clean()
        if data.get("top") and data.get("per_pool"):
            self.add_error("top", _("Choose the top overall or the top of each pool, not both."))
        return data

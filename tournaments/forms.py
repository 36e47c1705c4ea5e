"""Organizer forms: a tournament from a preset, its stages and its tiebreak order."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import wording
from scoring.bounds import PENALTY_RANGE, TARGET_RANGE
from scoring.rulesets import CHOICES, PLAY_CLOCK_RANGE, PRESETS, get_ruleset
from tournaments.bounds import ROUNDS_RANGE
from tournaments.models import Stage
from tournaments.standings import METRICS

TIEBREAK_SLOTS = 6

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
            "summary": wording.summary(get_ruleset(key), gettext),
            "sizes": preset.players,
        }
        for key, preset in PRESETS.items()
    ]


# The rule-set fields the new-tournament form lets an organizer change.
RULE_FIELDS = (
    "target",
    "in_play_scoring",
    "rounding",
    "block_tie",
    "penalty_points",
    "play_clock_seconds",
)


class TournamentForm(forms.Form):
    """A new tournament: the preset's values filled in, changed where the event differs."""

    name = forms.CharField(max_length=200)
    table_size = forms.TypedChoiceField(label=_("Players at a table"), coerce=int)
    target = forms.IntegerField(
        label=_("Points to win"), min_value=TARGET_RANGE[0], max_value=TARGET_RANGE[1]
    )
    in_play_scoring = forms.BooleanField(label=_("Points score during play"), required=False)
    rounding = forms.ChoiceField(label=_("Awards rounded"))
    block_tie = forms.ChoiceField(label=_("A tied block"))
    penalty_points = forms.IntegerField(
        label=_("Points a penalty costs"), min_value=PENALTY_RANGE[0], max_value=PENALTY_RANGE[1]
    )
    play_clock_seconds = forms.IntegerField(
        label=_("Seconds per play (play clock)"),
        required=False,
        min_value=PLAY_CLOCK_RANGE[0],
        max_value=PLAY_CLOCK_RANGE[1],
        help_text=_("Blank: no play clock."),
    )
    public = forms.BooleanField(
        label=_("Public: anyone can follow it"), required=False, initial=True
    )
    stage_name = forms.CharField(label=_("First stage"), max_length=120, initial="Round robin")
    stage_format = forms.ChoiceField(label=_("Format"), choices=Stage.Format.choices)
    rounds = forms.IntegerField(
        label=_("Rounds"), required=False, min_value=ROUNDS_RANGE[0], max_value=ROUNDS_RANGE[1],
        help_text=_("Blank: everyone meets everyone (round robin) or the bracket's own length."),
    )  # fmt: skip

    def __init__(self, *args, preset: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.preset = PRESETS[preset]
        self.rules = get_ruleset(preset)
        self.fields["table_size"].choices = [(n, str(n)) for n in self.preset.players]
        self.fields["rounding"].choices = [
            (c, _READABLE["rounding"][c]) for c in CHOICES["rounding"]
        ]
        self.fields["block_tie"].choices = [
            (c, _READABLE["block_tie"][c]) for c in CHOICES["block_tie"]
        ]
        for field in RULE_FIELDS:
            self.fields[field].initial = getattr(self.rules, field)
        self.fields["table_size"].initial = self.preset.default_players
        metrics = [("", "—")] + [(key, _(metric.label)) for key, metric in METRICS.items()]
        defaults = list(get_default_order())
        for index in range(TIEBREAK_SLOTS):
            self.fields[f"tiebreak_{index + 1}"] = forms.ChoiceField(
                label=_("Tiebreak {number}").format(number=index + 1),
                choices=metrics,
                required=index == 0,
                initial=defaults[index] if index < len(defaults) else "",
            )

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


def get_default_order():
    from tournaments.models import default_tiebreak_order

    return default_tiebreak_order()


class StageForm(forms.Form):
    name = forms.CharField(max_length=120)
    format = forms.ChoiceField(choices=Stage.Format.choices)
    rounds = forms.IntegerField(
        required=False, min_value=ROUNDS_RANGE[0], max_value=ROUNDS_RANGE[1]
    )

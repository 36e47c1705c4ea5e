"""The referee's forms: the end of a hand, a correction and points during play."""

import re
import uuid

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from domain.i18n import told
from scoring.bounds import FIRST_HAND, LAST_HAND, MOST_PIPS, MOST_VERSIONS, PENALTY_RANGE
from scoring.models import Hand, ScoreEvent
from scoring.rulesets import RuleSet, ScoringError

# "seat B" in English, "asiento B" in Spanish: referees read the player's name instead.
_SEAT_IN_MESSAGE = re.compile(r"\b(?:[Ss]eat|[Ee]l asiento|[Aa]siento) ([A-F])\b")


def in_names(message: str, seat_labels: dict[str, str]) -> str:
    """Say "Ana" where the engine says "seat A": referees know players, not letters."""
    return _SEAT_IN_MESSAGE.sub(lambda m: seat_labels.get(m.group(1), m.group(0)), message)


def _tile(text: str) -> tuple[int, int]:
    found = re.fullmatch(r"\s*([0-6])\s*[-/|: ]\s*([0-6])\s*", text)
    if not found:
        raise forms.ValidationError(gettext('Write a tile as two numbers, like "1-2".'))
    return int(found.group(1)), int(found.group(2))


class HandForm(forms.Form):
    """How a hand ended: a domino by one seat or a block, and the pips left per seat."""

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=FIRST_HAND, max_value=LAST_HAND)
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=255, required=False)
    ending = forms.ChoiceField(
        label=_("How did the hand end?"),
        widget=forms.RadioSelect,
        error_messages={"required": _("Say who dominoed, or that the hand was blocked.")},
    )
    leader = forms.ChoiceField(label=_("Led by"), required=False)

    def __init__(self, *args, seats, ruleset: RuleSet, leader: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.seats = list(seats)
        self.ruleset = ruleset
        self.labels = {seat.name: seat.display_name or seat.name for seat in self.seats}
        self.fields["ending"].choices = [
            (seat.name, gettext("Domino by {name}").format(name=self.labels[seat.name]))
            for seat in self.seats
        ] + [("block", gettext("Blocked"))]
        self.fields["leader"].choices = [("", gettext("not noted"))] + [
            (seat.name, self.labels[seat.name]) for seat in self.seats
        ]
        self.fields["leader"].initial = leader
        for seat in self.seats:
            self.fields[f"pips_{seat.name}"] = forms.IntegerField(
                label=gettext("Pips left: {name}").format(name=self.labels[seat.name]),
                required=False,
                min_value=0,
                max_value=MOST_PIPS,
                widget=forms.NumberInput(
                    attrs={"inputmode": "numeric", "pattern": "[0-9]*", "class": "pips"}
                ),
                error_messages={
                    "invalid": gettext("Enter the pips as a whole number."),
                    "min_value": gettext("Pips cannot be fewer than 0."),
                    # Every pip of two sets; the rule set's own limit is the engine's.
                    "max_value": gettext("No hand holds more than {most} pips.").format(
                        most=MOST_PIPS
                    ),
                },
            )
            if ruleset.block_tie == "lowest_tile":
                self.fields[f"lowest_{seat.name}"] = forms.CharField(
                    label=gettext("Lowest tile: {name}").format(name=self.labels[seat.name]),
                    required=False,
                    max_length=5,
                    help_text=gettext("Only for a tied block, like 1-2."),
                )
        if not self.is_bound:
            self.fields["idempotency_key"].initial = uuid.uuid4().hex

    def pip_fields(self):
        return [self[f"pips_{seat.name}"] for seat in self.seats]

    def lowest_fields(self):
        return [
            self[f"lowest_{seat.name}"]
            for seat in self.seats
            if f"lowest_{seat.name}" in self.fields
        ]

    def clean(self):
        data = super().clean()
        ending = data.get("ending")
        for seat in self.seats:
            key = f"pips_{seat.name}"
            if key in self.errors:
                continue
            if data.get(key) is None:
                if ending == seat.name:
                    data[key] = 0  # who dominoed holds nothing
                else:
                    self.add_error(
                        key,
                        gettext("Give the pips left in {name}'s hand (0 if none).").format(
                            name=self.labels[seat.name]
                        ),
                    )
            elif ending == seat.name and data[key] != 0:
                self.add_error(
                    key,
                    gettext("{name} dominoed, so no pips are left in that hand.").format(
                        name=self.labels[seat.name]
                    ),
                )
            lowest = f"lowest_{seat.name}"
            if lowest in self.fields and data.get(lowest):
                try:
                    data[lowest] = _tile(data[lowest])
                except forms.ValidationError as error:
                    self.add_error(lowest, error)
        return data

    def ending_kwargs(self) -> dict:
        data = self.cleaned_data
        ending = data["ending"]
        lowest = {
            seat.name: data[f"lowest_{seat.name}"]
            for seat in self.seats
            if data.get(f"lowest_{seat.name}")
        }
        return {
            "ended": Hand.Ended.BLOCK if ending == "block" else Hand.Ended.DOMINO,
            "domino_by": None if ending == "block" else ending,
            "pips": {seat.name: data[f"pips_{seat.name}"] for seat in self.seats},
            "tiles": None,
            "leader": data.get("leader") or None,
            "lowest_tiles": lowest or None,
        }

    def refuse(self, error: ScoringError) -> None:
        """Put a service's refusal beside the field it is about, in the players' names."""
        message = in_names(told(error.message), self.labels)
        seat = _SEAT_IN_MESSAGE.search(error.message)
        if error.field == "pips" and seat and f"pips_{seat.group(1)}" in self.fields:
            self.add_error(f"pips_{seat.group(1)}", message)
        elif error.field in ("ended", "domino_by"):
            self.add_error("ending", message)
        elif error.field == "leader":
            self.add_error("leader", message)
        else:
            self.add_error(None, message)

    @classmethod
    def initial_from(cls, hand: Hand) -> dict:
        initial = {
            "number": hand.number,
            "ending": hand.domino_by if hand.ended == Hand.Ended.DOMINO else "block",
            "leader": hand.leader,
        }
        for seat, pips in hand.pips.items():
            initial[f"pips_{seat}"] = pips
        for seat, tile in (hand.lowest_tiles or {}).items():
            initial[f"lowest_{seat}"] = f"{tile[0]}-{tile[1]}"
        return initial


class CorrectionForm(HandForm):
    """A new version of an earlier hand: the same fields, the version seen and a reason."""

    expected_version = forms.IntegerField(
        widget=forms.HiddenInput, min_value=1, max_value=MOST_VERSIONS
    )
    reason = forms.CharField(
        label=_("Why is this hand being corrected?"),
        max_length=500,
        error_messages={"required": _("Say why the hand is being corrected.")},
    )


class ReopenForm(forms.Form):
    """Undo a finished game's result so that its hands can be corrected or added."""

    reason = forms.CharField(
        label=_("Why reopen this game?"),
        max_length=500,
        error_messages={"required": _("Say why the game is being reopened.")},
    )


class EventForm(forms.Form):
    """Points during play: in-play points, a steal or a penalty for one seat."""

    seat = forms.CharField(max_length=1)
    kind = forms.ChoiceField(
        choices=[
            (ScoreEvent.Kind.IN_PLAY, "in play"),
            (ScoreEvent.Kind.STEAL, "steal"),
            (ScoreEvent.Kind.PENALTY, "penalty"),
        ]
    )
    # In-play points, a steal's play or a penalty: the service holds each kind to its
    # own bound; this keeps any number that reaches it inside the widest of them.
    points = forms.IntegerField(
        required=False, min_value=-PENALTY_RANGE[1], max_value=PENALTY_RANGE[1]
    )
    double = forms.BooleanField(required=False)
    # A steal's victim when a pass came after the stacked play; blank: the previous seat.
    from_seat = forms.CharField(required=False, max_length=1)
    hand = forms.IntegerField(min_value=FIRST_HAND, max_value=LAST_HAND)

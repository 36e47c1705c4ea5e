"""Serializers for games, hands and events: thin; the engine and services do the checking."""

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from players.models import Player
from scoring.api import fields
from scoring.bounds import (
    FIRST_HAND,
    ID_MAX,
    LAST_HAND,
    MOST_PIPS,
    MOST_PLAY_POINTS,
    MOST_TILES,
    MOST_VERSIONS,
    PENALTY_RANGE,
    PLAY_POINTS_STEP,
    whole_number,
    within,
)
from scoring.models import Game, Hand, ScoreEvent, Seat, Side
from scoring.rulesets import PRESETS
from scoring.selectors import ruleset_of


def bounded(low: int, high: int, message=None, **kwargs) -> serializers.IntegerField:
    """An integer field bounded on both sides, refusing in words that give both bounds.

    Every number a body carries is bounded like this before it reaches a service: on
    PostgreSQL a value outside its column would wrap instead of being refused.
    """
    message = message or format_lazy(
        _("Give a whole number from {low} to {high}."), low=low, high=high
    )
    return fields.WholeNumber(
        min_value=low,
        max_value=high,
        error_messages={"min_value": message, "max_value": message},
        **kwargs,
    )


class SeatSerializer(serializers.ModelSerializer):
    side = fields.Text(source="side.name")
    player = fields.WholeNumber(source="player_id", allow_null=True)

    class Meta:
        model = Seat
        fields = ["name", "position", "display_name", "player", "side"]


class SideSerializer(serializers.ModelSerializer):
    seats = serializers.SerializerMethodField()

    class Meta:
        model = Side
        fields = ["name", "position", "total", "seats"]

    def get_seats(self, side: Side) -> list[str]:
        return side.name.split("+")


class EventSerializer(serializers.ModelSerializer):
    seat = fields.Text(source="seat.name")
    side = fields.Text(source="side.name")
    hand = fields.WholeNumber(source="hand_number")

    class Meta:
        model = ScoreEvent
        fields = [
            "id",
            "hand",
            "seat",
            "side",
            "kind",
            "points",
            "note",
            "violation",
            "active",
            "created_at",
        ]


class HandSerializer(serializers.ModelSerializer):
    recorded_by = fields.Text(source="recorded_by.username", default=None)
    domino_by = serializers.SerializerMethodField()
    leader = serializers.SerializerMethodField()

    class Meta:
        model = Hand
        fields = [
            "number",
            "version",
            "ended",
            "domino_by",
            "leader",
            "pips",
            "tiles",
            "lowest_tiles",
            "awards",
            "winners",
            "voided",
            "reason",
            "recorded_by",
            "recorded_at",
        ]

    def get_domino_by(self, hand: Hand) -> str | None:
        return hand.domino_by or None

    def get_leader(self, hand: Hand) -> str | None:
        return hand.leader or None


class GameSummarySerializer(serializers.ModelSerializer):
    """A game as lists show it: who plays, the totals and the state."""

    sides = SideSerializer(many=True, read_only=True)
    winner = serializers.SerializerMethodField()
    next_hand = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "label",
            "ruleset_key",
            "status",
            "public",
            "sides",
            "winner",
            "next_hand",
            "revision",
            "updated_at",
        ]

    def get_next_hand(self, game: Game) -> int | None:
        return None if game.is_finished else game.hand_count + 1

    def get_winner(self, game: Game) -> str | None:
        return game.winner or None


class GameSerializer(GameSummarySerializer):
    """A game in full: rules in effect, seats, hands and in-play events."""

    seats = SeatSerializer(many=True, read_only=True)
    ruleset = serializers.SerializerMethodField()
    next_leader = serializers.SerializerMethodField()
    hands = serializers.SerializerMethodField()
    events = serializers.SerializerMethodField()
    forfeits = serializers.SerializerMethodField()
    under_dispute = serializers.SerializerMethodField()

    class Meta(GameSummarySerializer.Meta):
        fields = [
            *GameSummarySerializer.Meta.fields,
            "overrides",
            "ruleset",
            "seats",
            "next_leader",
            "forfeits",
            "under_dispute",
            "time_limit_at",
            "hands_after_time",
            "hands",
            "events",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_forfeits(self, game: Game) -> list[str]:
        """Seats that forfeited the game, in order."""
        return list(game.forfeits)

    def get_under_dispute(self, game: Game) -> bool:
        """Whether a dispute about the game waits for an organizer."""
        return game.disputes.filter(status="open").exists()

    def get_next_leader(self, game: Game) -> str | None:
        return game.next_leader or None

    def get_ruleset(self, game: Game) -> dict:
        return game.ruleset or ruleset_of(game).to_dict()

    def get_hands(self, game: Game) -> list[dict]:
        hands = [hand for hand in game.hands.all() if hand.is_current]
        return HandSerializer(sorted(hands, key=lambda hand: hand.number), many=True).data

    def get_events(self, game: Game) -> list[dict]:
        events = [event for event in game.events.all() if event.active]
        return EventSerializer(events, many=True).data


class GameCreateSerializer(serializers.Serializer):
    ruleset = serializers.ChoiceField(choices=sorted(PRESETS))
    overrides = serializers.DictField(required=False, default=dict)
    seats = serializers.ListField(
        child=serializers.JSONField(),
        min_length=2,
        max_length=6,
        help_text="In the order of play: a player's id, or a name.",
    )
    label = fields.Text(required=False, allow_blank=True, max_length=200, default="")
    public = fields.Flag(required=False, default=True)

    def validate_seats(self, seats: list) -> list:
        ids = [seat for seat in seats if isinstance(seat, int) and not isinstance(seat, bool)]
        if not all(within(seat, (1, ID_MAX)) for seat in ids):
            raise serializers.ValidationError(_("A player's id is a whole number from 1."))
        players = Player.objects.in_bulk(ids)
        resolved = []
        for seat in seats:
            if isinstance(seat, bool) or not isinstance(seat, int | str):
                raise serializers.ValidationError(_("Each seat is a player's id or a name."))
            if isinstance(seat, int):
                if seat not in players:
                    raise serializers.ValidationError(f"There is no player {seat}.")
                resolved.append(players[seat])
            else:
                name = " ".join(seat.split())
                if not name or len(name) > 120:
                    raise serializers.ValidationError("A seat's name is 1 to 120 characters.")
                resolved.append(name)
        return resolved


ENDINGS = frozenset(Hand.Ended.values)
# The serializer's bound on one play is the largest any rule set allows (two boxes);
# the service then holds each game to its own (35 with one box).
PLAY_POINTS = (PLAY_POINTS_STEP, MOST_PLAY_POINTS)
HAND_NUMBERS = (FIRST_HAND, LAST_HAND)
PIPS = (0, MOST_PIPS)
PLAY_POINTS_MESSAGE = format_lazy(
    _("In-play points are a multiple of five from {low} to {high}."),
    low=PLAY_POINTS[0],
    high=PLAY_POINTS[1],
)
IN_PLAY_COUNT_MESSAGE = format_lazy(
    _("A hand has at most {most} in-play scores: one per tile played."), most=MOST_TILES
)


class InPlayListSerializer(serializers.ListSerializer):
    """A hand's in-play scores: too many is refused before any entry is read, in the
    field's own error list (DRF's ``max_length`` would nest it under non_field_errors)."""

    def to_internal_value(self, data):
        if isinstance(data, list) and len(data) > MOST_TILES:
            raise serializers.ValidationError([IN_PLAY_COUNT_MESSAGE], code="max_length")
        return super().to_internal_value(data)


class InPlaySerializer(serializers.Serializer):
    seat = fields.Text(max_length=1)
    points = bounded(*PLAY_POINTS, PLAY_POINTS_MESSAGE)

    class Meta:
        list_serializer_class = InPlayListSerializer


def in_play_list(**kwargs) -> InPlayListSerializer:
    # Built by hand, not with many=True: DRF hands allow_null to the child too, and a
    # list that may be null must not accept null entries.
    return InPlayListSerializer(child=InPlaySerializer(), required=False, **kwargs)


class HandInputSerializer(serializers.Serializer):
    """What a referee sends for the end of a hand."""

    number = bounded(*HAND_NUMBERS)
    ended = serializers.ChoiceField(choices=Hand.Ended.choices)
    domino_by = fields.Text(max_length=1, required=False, allow_null=True, default=None)
    pips = serializers.JSONField(required=False, default=None)
    tiles = serializers.JSONField(required=False, default=None)
    leader = fields.Text(max_length=1, required=False, allow_null=True, default=None)
    in_play = in_play_list(default=list)
    lowest_tiles = serializers.JSONField(required=False, default=None)

    def validate_pips(self, pips):
        # The engine checks the pips against the rule set; a count no table could leave
        # is refused here, before anything else reads it.
        if isinstance(pips, dict) and any(
            whole_number(count) and not within(count, PIPS) for count in pips.values()
        ):
            raise serializers.ValidationError(
                format_lazy(
                    _("Pips left in a hand are a whole number from {low} to {high}."),
                    low=PIPS[0],
                    high=PIPS[1],
                )
            )
        return pips

    def validate(self, attrs: dict) -> dict:
        if attrs["ended"] == "domino" and not attrs.get("domino_by"):
            raise serializers.ValidationError({"domino_by": ["Say which seat went out."]})
        if attrs["ended"] == "block" and attrs.get("domino_by"):
            raise serializers.ValidationError({"domino_by": ["A blocked hand has nobody out."]})
        if (attrs.get("pips") is None) == (attrs.get("tiles") is None):
            raise serializers.ValidationError(
                {"pips": ["Give the pips left in every hand, or the tiles (not both)."]}
            )
        return attrs


def validated_hand_body(body) -> dict:
    """The end of a hand as ``HandInputSerializer`` validates it; raises its ValidationError.

    A body of seat letters, whole numbers and pips is read directly: building the
    serializer costs a fresh copy of its fields (and the in-play ones) per request.
    Anything else goes through the serializer, so every refusal keeps its words.
    """
    hand = plain_hand_body(body)
    if hand is None:
        serializer = HandInputSerializer(data=body)
        serializer.is_valid(raise_exception=True)
        hand = serializer.validated_data
    return hand


def plain_hand_body(body) -> dict | None:
    """What ``HandInputSerializer`` would make of a plain, valid hand body; None for any
    other body (tiles, strings for numbers, padded letters, a refusal ...)."""
    if type(body) is not dict or "tiles" in body or "lowest_tiles" in body:
        return None
    number, ended, pips = body.get("number"), body.get("ended"), body.get("pips")
    domino_by, leader = body.get("domino_by"), body.get("leader")
    in_play = body.get("in_play", [])
    if not (
        type(number) is int
        and FIRST_HAND <= number <= LAST_HAND
        and type(ended) is str
        and ended in ENDINGS
        and (domino_by is None or _is_seat_letter(domino_by))
        and (leader is None or _is_seat_letter(leader))
        and _is_plain_pips(pips)
        and type(in_play) is list
        and len(in_play) <= MOST_TILES
        and all(_is_plain_in_play(entry) for entry in in_play)
    ):
        return None
    if ended == Hand.Ended.DOMINO and domino_by is None:
        return None
    if ended == Hand.Ended.BLOCK and domino_by is not None:
        return None
    return {
        "number": number,
        "ended": ended,
        "domino_by": domino_by,
        "pips": pips,
        "tiles": None,
        "leader": leader,
        "in_play": [{"seat": entry["seat"], "points": entry["points"]} for entry in in_play],
        "lowest_tiles": None,
    }


def _is_seat_letter(value) -> bool:
    """One ASCII letter or digit: what a one-character CharField keeps as it is."""
    return type(value) is str and len(value) == 1 and value.isascii() and value.isalnum()


def _is_plain_pips(pips) -> bool:
    return type(pips) is dict and all(
        type(seat) is str and type(count) is int and PIPS[0] <= count <= PIPS[1]
        for seat, count in pips.items()
    )


def _is_plain_in_play(entry) -> bool:
    points = entry.get("points") if type(entry) is dict else None
    return (
        type(entry) is dict
        and _is_seat_letter(entry.get("seat"))
        and type(points) is int
        and PLAY_POINTS[0] <= points <= PLAY_POINTS[1]
    )


class CorrectionSerializer(HandInputSerializer):
    number = bounded(*HAND_NUMBERS, required=False)
    reason = fields.Text(max_length=500)
    expected_version = bounded(1, MOST_VERSIONS)
    in_play = in_play_list(default=None, allow_null=True)


class VoidSerializer(serializers.Serializer):
    # The reason comes in the body or, for clients that send no body with DELETE, as
    # ?reason=; one of the two is required.
    reason = fields.Text(max_length=500, required=False)


class EventInputSerializer(serializers.Serializer):
    hand = bounded(*HAND_NUMBERS)
    seat = fields.Text(max_length=1)
    # A clock violation is stored as what the server decides it is: the seat's first in
    # the game a forced pass, each later one a penalty (RULES.md, Officiating).
    kind = serializers.ChoiceField(
        choices=[k for k in ScoreEvent.Kind.values if k != ScoreEvent.Kind.STOLEN]
        + ["clock_violation"]
    )
    # In-play points, the play a steal stacks on, or a penalty's deduction (written 10
    # or -10): the service holds each kind to its own bound.
    points = bounded(
        -PENALTY_RANGE[1], PENALTY_RANGE[1], required=False, allow_null=True, default=None
    )
    double = fields.Flag(required=False, default=False)
    # A steal's victim: the last player who played a tile; the previous seat if not given.
    from_seat = fields.Text(max_length=1, required=False, allow_null=True, default=None)
    note = fields.Text(required=False, allow_blank=True, max_length=300, default="")


class ReasonSerializer(serializers.Serializer):
    reason = fields.Text(max_length=500)


class CalculatorSerializer(serializers.Serializer):
    """A hand to score without a game: the hand's body plus the seats and overrides."""

    ended = serializers.ChoiceField(choices=Hand.Ended.choices)
    seats = serializers.ListField(
        child=fields.Text(max_length=20), required=False, min_length=2, max_length=6
    )
    domino_by = fields.Text(max_length=20, required=False, allow_null=True, default=None)
    pips = serializers.JSONField(required=False, default=None)
    tiles = serializers.JSONField(required=False, default=None)
    leader = fields.Text(max_length=20, required=False, allow_null=True, default=None)
    lowest_tiles = serializers.JSONField(required=False, default=None)
    overrides = serializers.DictField(required=False, default=dict)

    validate_pips = HandInputSerializer.validate_pips

    def validate(self, attrs: dict) -> dict:
        HandInputSerializer.validate(self, attrs)
        if not attrs.get("seats"):
            given = attrs.get("pips") if attrs.get("pips") is not None else attrs.get("tiles")
            if not isinstance(given, dict) or not given:
                raise serializers.ValidationError({"pips": ["Give the pips left per seat."]})
            attrs["seats"] = list(given)
        return attrs


class HandResultSerializer(serializers.Serializer):
    ended = fields.Text()
    awards = serializers.DictField(child=fields.WholeNumber())
    raw_awards = serializers.DictField(child=fields.WholeNumber())
    winners = serializers.ListField(child=fields.Text())
    pips = serializers.DictField(child=fields.WholeNumber())


class RulesetSerializer(serializers.Serializer):
    """A preset as the rule book lists it (its fields per table size, as ``to_dict`` gives)."""

    key = fields.Text()
    label = fields.Text()
    description = fields.Text()
    source = fields.Text()
    players = serializers.ListField(child=fields.WholeNumber())
    default_players = fields.WholeNumber()
    per_table_size = serializers.DictField(child=serializers.DictField())

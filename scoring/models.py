"""Games, their sides and seats, the hands recorded at the table and in-play score events.

A game freezes the rule set it is played under when it starts, so a later change to a
preset never changes a game in progress. Every hand is versioned: a correction writes a
new version and keeps the old one, with who changed it, when and why.
"""

from django.conf import settings
from django.core.files.storage import storages
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Mod
from django.db.models.lookups import Exact
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.bounds import (
    LAST_HAND,
    MOST_PLAY_POINTS,
    MOST_STEAL_POINTS,
    PENALTY_RANGE,
    PLAY_POINTS_STEP,
    TARGET_RANGE,
)

# A table's seats are named by letter in the order of play.
SEAT_NAMES = "ABCDEF"


def seat_names(count: int) -> list[str]:
    """The seat names of a table of ``count`` in the order of play: A, B, C ..."""
    return list(SEAT_NAMES[:count])


class Game(models.Model):
    """One game of dominoes to a target, scored hand by hand."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        IN_PROGRESS = "in_progress", _("In progress")
        FINISHED = "finished", _("Finished")

    ruleset_key = models.CharField(max_length=40)
    overrides = models.JSONField(default=dict, blank=True)
    ruleset = models.JSONField(
        null=True, blank=True, help_text="The resolved rule set, frozen when the game starts."
    )
    label = models.CharField(max_length=200, blank=True)
    public = models.BooleanField(default=True)
    followed = models.BooleanField(
        default=False,
        help_text="Set by whatever holds the game (a tournament's table): game_changed "
        "passes it on, so that listeners pass over a lone game without a query.",
    )
    held = models.BooleanField(
        default=False,
        help_text="Set by whatever holds the game while its table is not official yet (a "
        "tournament's round in draft): nothing is recorded in it, and it is shown only to "
        "those a rule lets see it (its referees, the event's staff).",
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SCHEDULED)
    totals = models.JSONField(default=dict, help_text="Running total per side name.")
    winner = models.CharField(max_length=20, blank=True, help_text="The winning side's name.")
    tallies = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per side name: {"hands_won": n, "dominoes": n, "penalties": points}, '
        "kept with the totals so that standings need not read the hands.",
    )
    hand_count = models.PositiveIntegerField(
        default=0, help_text="Hand numbers recorded so far; the next hand is hand_count + 1."
    )
    next_leader = models.CharField(
        max_length=1, blank=True, help_text="The seat that leads the next hand, where known."
    )
    forfeits = models.CharField(
        max_length=6,
        blank=True,
        help_text="Seats that forfeited the game, in order (RULES.md, Officiating): a "
        "forfeit ends the game and places the forfeiting side last.",
    )
    revision = models.PositiveIntegerField(
        default=0, help_text="Bumped by every change; pollers compare it."
    )
    time_limit_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When time is called on the game (a round clock), if it is timed: the "
        "hand in play is finished, then hands_after_time more, and the highest total wins.",
    )
    hands_after_time = models.PositiveSmallIntegerField(
        default=0, help_text="Hands played after the one in play when time is called."
    )
    time_called_hand = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Hands recorded before time was called: fixed by the first hand after it.",
    )
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="refereed_games"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_games",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_hand_at = models.DateTimeField(
        null=True, blank=True, help_text="When a hand of this game was last recorded or changed."
    )
    reopened_reason = models.CharField(
        max_length=500,
        blank=True,
        help_text="Why the organizers last reopened the game after it had finished.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="finished") | Q(winner=""),
                name="game_only_finished_has_winner",
            ),
            models.CheckConstraint(
                condition=Q(status="scheduled") | Q(ruleset__isnull=False),
                name="game_started_has_frozen_ruleset",
            ),
            models.CheckConstraint(
                condition=Q(ruleset__isnull=True)
                | Q(ruleset__target__gte=TARGET_RANGE[0], ruleset__target__lte=TARGET_RANGE[1]),
                name="game_target_in_range",
            ),
            models.CheckConstraint(
                condition=Q(held=False) | Q(status="scheduled"),
                name="game_held_is_not_started",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "-updated_at"]),
            # Ratings read finished games in finish order, from a point on.
            models.Index(fields=["status", "finished_at"], name="game_status_finished_at"),
        ]

    def __str__(self) -> str:
        return self.label or f"Game {self.pk}"

    @property
    def title(self) -> str:
        """The game's name in the active language: a tournament table's is told from its
        stage, round and table ("Round robin · ronda 4, mesa 1"); any other keeps its label."""
        match = getattr(self, "match", None)
        if match is None:
            return str(self)
        round_ = match.round
        stage = round_.stage
        table = gettext("{stage} · round {round}, table {table}").format(
            stage=stage.name, round=round_.number, table=match.table_number
        )
        return f"{stage.tournament.name} · {table}"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    def total_of(self, side_name: str) -> int:
        return self.totals.get(side_name, 0)

    @property
    def forfeited_sides(self) -> frozenset[str]:
        """The side names holding a seat that forfeited the game."""
        return frozenset(
            name for name in self.totals if any(seat in self.forfeits for seat in name.split("+"))
        )


class Side(models.Model):
    """A scoring unit: one player in Cutthroat, a team of two in Partners."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="sides")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=20, help_text='The engine\'s side name: "A" or "A+C".')

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="side_position_unique"),
            models.UniqueConstraint(fields=["game", "name"], name="side_name_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.name}"

    @property
    def total(self) -> int:
        """The side's running total (kept on the game row, written with every hand)."""
        return self.game.total_of(self.name)


class Seat(models.Model):
    """A place at the table in the order of play, held by a player, scoring for a side."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=1, help_text="A, B, C … in the order of play.")
    side = models.ForeignKey(Side, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(
        "players.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    display_name = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["game", "name"], name="seat_name_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.display_name or self.player}"


class Hand(models.Model):
    """One version of hand ``number`` of a game; exactly one version is current."""

    class Ended(models.TextChoices):
        DOMINO = "domino", _("Domino")
        BLOCK = "block", _("Block")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    ended = models.CharField(max_length=6, choices=Ended.choices)
    domino_by = models.CharField(max_length=1, blank=True, help_text="Seat name, for a domino.")
    leader = models.CharField(max_length=1, blank=True, help_text="Seat that led the hand.")
    pips = models.JSONField(help_text="Pips left per seat name.")
    tiles = models.JSONField(null=True, blank=True, help_text="Tiles left per seat, if given.")
    lowest_tiles = models.JSONField(null=True, blank=True)
    awards = models.JSONField(help_text="End-of-hand award per side name.")
    winners = models.JSONField(default=list, help_text="Side names that won the hand.")
    voided = models.BooleanField(default=False)
    reason = models.CharField(max_length=500, blank=True, help_text="Why this version exists.")
    idempotency_key = models.CharField(max_length=255, blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "number", "version"], name="hand_version_unique"
            ),
            models.UniqueConstraint(
                fields=["game", "number"],
                condition=Q(is_current=True),
                name="hand_one_current_version",
            ),
            models.UniqueConstraint(
                fields=["game", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="hand_idempotency_key_unique",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="hand_number_positive"),
            models.CheckConstraint(condition=Q(number__lte=LAST_HAND), name="hand_number_in_range"),
            models.CheckConstraint(condition=Q(version__gte=1), name="hand_version_positive"),
            models.CheckConstraint(
                condition=Q(ended="block", domino_by="") | (Q(ended="domino") & ~Q(domino_by="")),
                name="hand_domino_names_who_went_out",
            ),
            models.CheckConstraint(
                condition=Q(voided=False) | ~Q(reason=""), name="hand_void_has_reason"
            ),
            models.CheckConstraint(
                condition=Q(version=1) | ~Q(reason=""), name="hand_correction_has_reason"
            ),
        ]
        # Hand numbers are contiguous per game: a database trigger (migration 0002)
        # refuses hand n unless hand n - 1 of the same game exists.

    def __str__(self) -> str:
        return f"Game {self.game_id} hand {self.number} v{self.version}"


class ScoreEvent(models.Model):
    """Points scored or lost during a hand: in-play fives, steals, penalties."""

    class Kind(models.TextChoices):
        IN_PLAY = "in_play", _("In-play points")
        STEAL = "steal", _("Steal")
        STOLEN = "stolen", _("Stolen from")
        PENALTY = "penalty", _("Penalty")
        FORCED_PASS = "forced_pass", _("Forced pass")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    hand_number = models.PositiveIntegerField()
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="events")
    side = models.ForeignKey(Side, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    points = models.IntegerField()
    note = models.CharField(max_length=300, blank=True)
    pair = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="For a steal, the matching loss of the previous player.",
    )
    violation = models.BooleanField(
        default=False,
        help_text="A clock violation: the server decides whether it is the seat's forced "
        "pass or a penalty (RULES.md, Officiating).",
    )
    active = models.BooleanField(default=True, help_text="False once undone or replaced.")
    removed_reason = models.CharField(max_length=300, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "hand_number", "pk"]
        indexes = [models.Index(fields=["game", "hand_number"])]
        constraints = [
            # The bounds of scoring.bounds, so that a write around the services is
            # refused too.
            models.CheckConstraint(
                condition=~Q(kind="in_play")
                | Q(
                    Exact(Mod(F("points"), PLAY_POINTS_STEP), 0),
                    points__gt=0,
                    points__lte=MOST_PLAY_POINTS,
                ),
                name="event_in_play_positive",
            ),
            models.CheckConstraint(
                condition=~Q(kind="steal") | Q(points__gt=0, points__lte=MOST_STEAL_POINTS),
                name="event_steal_gains",
            ),
            models.CheckConstraint(
                condition=~Q(kind="stolen") | Q(points__lt=0, points__gte=-MOST_STEAL_POINTS),
                name="event_stolen_loses",
            ),
            models.CheckConstraint(
                condition=~Q(kind="penalty") | Q(points__lt=0, points__gte=-PENALTY_RANGE[1]),
                name="event_penalty_deducts",
            ),
            models.CheckConstraint(
                condition=~Q(kind="forced_pass") | Q(points=0), name="event_forced_pass_no_points"
            ),
            models.CheckConstraint(
                condition=Q(hand_number__gte=1), name="event_hand_number_positive"
            ),
            models.CheckConstraint(
                condition=Q(active=True) | ~Q(removed_reason=""), name="event_removal_has_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.points:+d} ({self.seat_id})"


def dispute_storage():
    """Where dispute photos are kept: the storage named by ``DISPUTE_PHOTO_STORAGE``
    (an alias of ``STORAGES``; the default one, files under MEDIA_ROOT, unless set)."""
    return storages[getattr(settings, "DISPUTE_PHOTO_STORAGE", "default")]


class Dispute(models.Model):
    """A question about a hand or a whole game, raised at the table, settled by an
    organizer; it changes nothing by itself (RULES.md, Officiating)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        UPHELD = "upheld", _("Upheld")
        DISMISSED = "dismissed", _("Dismissed")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="disputes")
    hand_number = models.PositiveIntegerField(
        null=True, blank=True, help_text="The hand in question; empty for the whole game."
    )
    note = models.CharField(max_length=1000)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    opened_at = models.DateTimeField(auto_now_add=True)
    resolution = models.CharField(max_length=500, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "pk"]
        indexes = [models.Index(fields=["game", "status"])]
        constraints = [
            models.CheckConstraint(condition=~Q(note=""), name="dispute_has_note"),
            models.CheckConstraint(
                condition=Q(status="open", resolved_at__isnull=True)
                | (~Q(status="open") & ~Q(resolution="") & Q(resolved_at__isnull=False)),
                name="dispute_resolution_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"Dispute {self.pk} on game {self.game_id}"


class DisputePhoto(models.Model):
    """A photo sent with a dispute, checked to be an image when it was uploaded."""

    dispute = models.ForeignKey(Dispute, on_delete=models.CASCADE, related_name="photos")
    image = models.FileField(upload_to="disputes/%Y/%m/", storage=dispute_storage)
    content_type = models.CharField(max_length=40)
    size = models.PositiveIntegerField()

    class Meta:
        ordering = ["dispute", "pk"]

    def __str__(self) -> str:
        return self.image.name

    def get_absolute_url(self) -> str:
        return reverse("dispute-photo", args=[self.dispute.game_id, self.pk])


class OfficialAct(models.Model):
    """One officiating act, for the event's audit list: who, when, what, why.

    A game's acts name the game; an act on an entrant (a disqualification) names the
    holder of the event in ``scope`` ("tournament:12") and the entrant in ``subject``,
    so that scoring need not know what a tournament is.
    """

    class Kind(models.TextChoices):
        CLOCK_VIOLATION = "clock_violation", _("Clock violation")
        FORCED_PASS = "forced_pass", _("Forced pass")
        PENALTY = "penalty", _("Penalty")
        DEDUCTION = "deduction", _("Point deduction")
        DISPUTE_OPENED = "dispute_opened", _("Dispute opened")
        DISPUTE_UPHELD = "dispute_upheld", _("Dispute upheld")
        DISPUTE_DISMISSED = "dispute_dismissed", _("Dispute dismissed")
        FORFEIT = "forfeit", _("Game forfeited")
        DISQUALIFIED = "disqualified", _("Disqualified")
        REOPENED = "reopened", _("Game reopened")
        UNDONE = "undone", _("Event undone")
        VOIDED = "voided", _("Hand voided")
        REDEAL = "redeal", _("Re-deal")
        TIME_CALLED = "time_called", _("Game ended on time")
        ROUND_CLOCK = "round_clock", _("Round clock")
        SUSPENDED = "suspended", _("Suspension")
        SUSPENSION_LIFTED = "suspension_lifted", _("Suspension lifted")

    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="official_acts"
    )
    scope = models.CharField(max_length=40, blank=True, db_index=True)
    subject = models.CharField(max_length=250, blank=True, help_text="Seat or entrant named.")
    hand_number = models.PositiveIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reason = models.CharField(max_length=500, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(game__isnull=False) | ~Q(scope=""), name="act_names_game_or_scope"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} ({self.game_id or self.scope})"

"""Play beyond one event: series of events, ratings per pool of games, ladder sessions.

A series is a template for its next event plus the events made from it; its standings
are one document, rewritten by a coalesced task whenever an event's standings change.
Ratings are OpenSkill (Plackett-Luce) per pool; every rated game leaves one history row
per player, which is both the rating chart and the point a rebuild restarts from.
A ladder session seats the players waiting into tables as tables free up.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments.models import DEFAULT_TIEBREAK_ORDER

# Points per event placing when the organizer sets none (first 25, second 18 ...).
DEFAULT_SERIES_POINTS = {"1": 25, "2": 18, "3": 15, "4": 12, "5": 10, "6": 8, "7": 6, "8": 4}


def default_series_points() -> dict:
    return dict(DEFAULT_SERIES_POINTS)


def default_tiebreaks() -> list[str]:
    return list(DEFAULT_TIEBREAK_ORDER)


class Series(models.Model):
    """Events played again and again under one template ("Friday Cut-Throat Challenge")."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    public = models.BooleanField(default=True)
    # The template every next event is made from.
    ruleset_key = models.CharField(max_length=40)
    overrides = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField()
    stage_format = models.CharField(max_length=24, default="swiss")
    stage_settings = models.JSONField(default=dict, blank=True)
    tiebreak_order = models.JSONField(default=default_tiebreaks)
    placement_points = models.JSONField(default=dict, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    # The series' own scoring: points per placing in each event, best N counted.
    series_points = models.JSONField(default=default_series_points)
    best_of = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Count only a player's best N events (empty: all)."
    )
    every_days = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Create the next event every N days (empty: by hand)."
    )
    next_event_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name_plural = "series"
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2) & Q(table_size__lte=6),
                name="series_table_size_range",
            ),
            models.CheckConstraint(
                condition=Q(best_of__isnull=True) | Q(best_of__gte=1, best_of__lte=1000),
                name="series_best_of_range",
            ),
            models.CheckConstraint(
                condition=Q(every_days__isnull=True) | Q(every_days__gte=1, every_days__lte=365),
                name="series_every_days_range",
            ),
            models.CheckConstraint(
                condition=Q(every_days__isnull=True) | Q(next_event_at__isnull=False),
                name="series_schedule_has_next",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class SeriesEvent(models.Model):
    """One event of a series, numbered in the order they were made."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="events")
    tournament = models.OneToOneField(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="series_event"
    )
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["series", "number"]
        constraints = [
            models.UniqueConstraint(fields=["series", "number"], name="series_event_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="series_event_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.series} #{self.number}"


class SeriesStandings(models.Model):
    """The series standings as last computed: one JSON document, read whole."""

    series = models.OneToOneField(Series, on_delete=models.CASCADE, related_name="standings")
    computed_at = models.DateTimeField()
    document = models.TextField()

    def __str__(self) -> str:
        return f"standings of {self.series}"


class Pool(models.TextChoices):
    INDIVIDUAL = "individual", _("Individual")
    PARTNERS = "partners", _("Partners")


class Rating(models.Model):
    """A player's current rating in one pool."""

    pool = models.CharField(max_length=12, choices=Pool.choices)
    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(help_text="mu - 3 sigma: the conservative value shown.")
    games = models.PositiveIntegerField()
    last_game_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pool", "-ordinal", "pk"]
        indexes = [models.Index(fields=["pool", "-ordinal"])]
        constraints = [
            models.UniqueConstraint(fields=["pool", "player"], name="rating_once_per_pool"),
            models.CheckConstraint(condition=Q(sigma__gt=0), name="rating_sigma_positive"),
            models.CheckConstraint(condition=Q(games__gte=1), name="rating_has_games"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.pool} {self.ordinal:.2f}"


class RatingChange(models.Model):
    """A player's rating after one rated game: the history, and where rebuilds restart."""

    pool = models.CharField(max_length=12, choices=Pool.choices)
    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("scoring.Game", on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField(help_text="The game's finish, the order games are rated in.")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    games = models.PositiveIntegerField()

    class Meta:
        ordering = ["pool", "finished_at", "game_id"]
        indexes = [
            models.Index(fields=["pool", "finished_at", "game"]),
            models.Index(fields=["player", "pool", "finished_at"]),
        ]
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="rating_change_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} after game {self.game_id}: {self.ordinal:.2f}"


class RatingsDirty(models.Model):
    """A game whose change the ratings have not taken in yet."""

    game = models.OneToOneField("scoring.Game", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"game {self.game_id}"


class Consent(models.TextChoices):
    """How a player came to sit in a ladder: the person's own act, or, for a player
    without an account, the organizer of the ladders they play in."""

    SELF = "self", pgettext_lazy("ladder consent", "Checked in themself")
    ACCEPTED = "accepted", pgettext_lazy("ladder consent", "Accepted the organizer's request")
    ORGANIZER = "organizer", pgettext_lazy("ladder consent", "Checked in by their organizer")


class LadderSession(models.Model):
    """An evening of ranked play: players check in, capicu seats whoever waits."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("ladder session", "Open")
        CLOSED = "closed", pgettext_lazy("ladder session", "Closed")

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    ruleset_key = models.CharField(max_length=40)
    overrides = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField()
    public = models.BooleanField(default=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    every_minutes = models.PositiveSmallIntegerField(
        default=0,
        help_text="0: seat a table as soon as enough players wait; N: form tables every N minutes.",
    )
    last_formed_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2) & Q(table_size__lte=6),
                name="ladder_table_size_range",
            ),
            models.CheckConstraint(
                condition=Q(every_minutes__lte=240), name="ladder_every_minutes_range"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class LadderTable(models.Model):
    """A table a session seated, with its game."""

    session = models.ForeignKey(LadderSession, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()
    game = models.OneToOneField("scoring.Game", on_delete=models.PROTECT, related_name="ladder")
    done = models.BooleanField(default=False, help_text="Its game finished; its players moved on.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "number"], name="ladder_table_number_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session} table {self.number}"


class LadderPlayer(models.Model):
    """A player in a session: present or gone, waiting or at a table."""

    session = models.ForeignKey(LadderSession, on_delete=models.CASCADE, related_name="players")
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="+")
    present = models.BooleanField(default=True)
    waiting_since = models.DateTimeField(
        null=True, blank=True, help_text="Set while present and not at a table."
    )
    table = models.ForeignKey(
        LadderTable, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_opponents = models.JSONField(default=list, blank=True)
    # How they were last checked in; empty on entries made before consent was recorded,
    # which are never seated again until the player (or their organizer) checks them in.
    consent = models.CharField(max_length=12, choices=Consent.choices, blank=True, default="")
    consented_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    consented_at = models.DateTimeField(null=True, blank=True)
    # When the player first came to the session (empty on entries older than the record).
    created_at = models.DateTimeField(auto_now_add=True, null=True)

    class Meta:
        ordering = ["session", "waiting_since", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["session", "player"], name="ladder_player_once"),
            models.CheckConstraint(
                condition=Q(waiting_since__isnull=True) | Q(present=True, table__isnull=True),
                name="ladder_waiting_is_present_and_free",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.session}"


class LadderSeat(models.Model):
    """One seat of a ladder table and how its player agreed to sit there: the record a
    ladder game's rating rests on (a game with a seat nobody consented to is not rated)."""

    table = models.ForeignKey(LadderTable, on_delete=models.CASCADE, related_name="consents")
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="+")
    consent = models.CharField(max_length=12, choices=Consent.choices)
    consented_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "player"], name="ladder_seat_once"),
            models.CheckConstraint(condition=~Q(consent=""), name="ladder_seat_consented"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} at {self.table} ({self.consent})"


class LadderRequest(models.Model):
    """A ladder's organizer asks a player with an account to check in; the player
    answers on their account page or through the API."""

    class Answer(models.TextChoices):
        PENDING = "pending", pgettext_lazy("ladder request", "Pending")
        ACCEPTED = "accepted", pgettext_lazy("ladder request", "Accepted")
        DECLINED = "declined", pgettext_lazy("ladder request", "Declined")

    session = models.ForeignKey(LadderSession, on_delete=models.CASCADE, related_name="requests")
    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    asked_at = models.DateTimeField()
    answer = models.CharField(max_length=8, choices=Answer.choices, default=Answer.PENDING)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-asked_at", "-pk"]
        constraints = [
            # One request per player and session: asked again only once accepted, never
            # after a refusal.
            models.UniqueConstraint(fields=["session", "player"], name="ladder_request_once"),
        ]

    def __str__(self) -> str:
        return f"{self.session} asks {self.player_id}: {self.answer}"


class LadderAct(models.Model):
    """The ladder's audit list: who did what to whom, when (forfeits are the games'
    officiating acts, read with these)."""

    class Kind(models.TextChoices):
        CHECKED_IN = "checked_in", pgettext_lazy("ladder act", "Checked in")
        CHECKED_OUT = "checked_out", pgettext_lazy("ladder act", "Checked out")
        ASKED = "asked", pgettext_lazy("ladder act", "Asked to check in")
        ACCEPTED = "accepted", pgettext_lazy("ladder act", "Accepted the request")
        DECLINED = "declined", pgettext_lazy("ladder act", "Declined the request")
        CLOSED = "closed", pgettext_lazy("ladder act", "Session closed")

    session = models.ForeignKey(LadderSession, on_delete=models.CASCADE, related_name="acts")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    player = models.ForeignKey(
        "players.Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["session", "-at"])]

    def __str__(self) -> str:
        return f"{self.session}: {self.kind}"

"""Tournaments: entrants, stages, rounds and the tables (matches) each round seats.

A match owns one ``scoring.Game``; scoring knows nothing of tournaments and tells them
about changes through its ``game_changed`` signal.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from scoring.rulesets import get_ruleset
from tournaments.bounds import SEED_CEILING

DEFAULT_TIEBREAK_ORDER = [
    "match_points",
    "point_differential",
    "points_for",
    "head_to_head",
    "seed",
]


def default_tiebreak_order() -> list[str]:
    return list(DEFAULT_TIEBREAK_ORDER)


class Tournament(models.Model):
    """An event run under one rule-set preset (with the organizer's overrides)."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        REGISTRATION = "registration", _("Registration")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    class ByePolicy(models.TextChoices):
        WIN_AVERAGE = "win_average", _("A win with the stage's average score")
        NOTHING = "nothing", _("Nothing")

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    ruleset_key = models.CharField(max_length=40)
    overrides = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField(
        help_text="Players (or teams' players) at a table; one the preset allows."
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    public = models.BooleanField(default=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    tiebreak_order = models.JSONField(default=default_tiebreak_order)
    placement_points = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per table size, points per placement: {"4": {"1": 3, "2": 1}}. '
        "Default: a win 1, else 0.",
    )
    bye_policy = models.CharField(
        max_length=12, choices=ByePolicy.choices, default=ByePolicy.WIN_AVERAGE
    )
    include_live = models.BooleanField(
        default=False, help_text="Count games in progress in the standings."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2) & Q(table_size__lte=6),
                name="tournament_table_size_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def sides_per_table(self) -> int:
        """Entrants at a table: two teams in Partners, else one per player."""
        return 2 if self.is_teams else self.table_size

    @property
    def is_teams(self) -> bool:
        return (
            get_ruleset(self.ruleset_key, players=self.table_size, overrides=self.overrides).teams
            == "partners"
        )


class Staff(models.Model):
    """A user's role in one tournament."""

    class Role(models.TextChoices):
        ORGANIZER = "organizer", _("Organizer")
        REFEREE = "referee", _("Referee")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="staff")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_roles"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user", "role"], name="staff_role_unique"
            ),
            models.CheckConstraint(
                condition=Q(role__in=["organizer", "referee"]), name="staff_role_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.tournament}"


class Invitation(models.Model):
    """An organizer's offer of a role to an existing user; it grants nothing until accepted.

    Accepting turns it into a ``Staff`` row; declining or withdrawing deletes it.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_invitations"
    )
    role = models.CharField(max_length=10, choices=Staff.Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user", "role"], name="invitation_role_unique"
            ),
            models.CheckConstraint(
                condition=Q(role__in=["organizer", "referee"]), name="invitation_role_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} invited as {self.role} in {self.tournament}"


class EventAccount(models.Model):
    """A login that an event's organizers created for a referee, and the mark that it is
    one (``tournaments.permissions.is_event_account``).

    It referees that event and nothing more: it enters no event, claims no player,
    creates no event, ladder or series, and cannot be invited elsewhere. An event creates
    a few more than the tables of its largest round (``EVENT_ACCOUNTS_SPARE``). Its
    organizers may set its API token while it holds no role in any other event, and may
    always revoke it; no other account's credentials are ever theirs to touch.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="event_account",
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="created_accounts"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user} (created by {self.tournament})"


class Entrant(models.Model):
    """A player, or a team of two players for Partners, entered in one tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    name = models.CharField(max_length=250)
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="entries")
    partner = models.ForeignKey(
        "players.Player",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="partner_entries",
    )
    seed = models.PositiveIntegerField()
    checked_in = models.BooleanField(default=False)
    withdrawn = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    disqualified_at = models.DateTimeField(
        null=True, blank=True, help_text="Set with the withdrawal when organizers disqualify."
    )
    disqualified_reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seed"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seed"], name="entrant_seed_unique"),
            models.UniqueConstraint(
                "tournament", Lower("name"), name="entrant_name_unique_in_tournament"
            ),
            models.CheckConstraint(
                condition=~Q(player=models.F("partner")), name="entrant_partner_is_another"
            ),
            models.CheckConstraint(condition=Q(seed__gte=1), name="entrant_seed_positive"),
            models.CheckConstraint(
                condition=Q(seed__lte=SEED_CEILING), name="entrant_seed_in_range"
            ),
            models.CheckConstraint(
                condition=Q(withdrawn=False) | Q(withdrawn_at__isnull=False),
                name="entrant_withdrawal_dated",
            ),
            models.CheckConstraint(
                condition=Q(disqualified_at__isnull=True)
                | (Q(withdrawn=True) & ~Q(disqualified_reason="")),
                name="entrant_disqualification_withdraws_with_reason",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Stage(models.Model):
    """A phase of a tournament with one format, e.g. a round robin, then a bracket."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("Round robin")
        SWISS = "swiss", _("Swiss")
        SINGLE_ELIMINATION = "single_elimination", _("Single elimination")
        DOUBLE_ELIMINATION = "double_elimination", _("Double elimination")
        POOLS = "pools", _("Pools")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    order = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=120)
    format = models.CharField(max_length=24, choices=Format.choices)
    settings = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    entrants = models.ManyToManyField(Entrant, blank=True, related_name="stages")
    check_in_required = models.BooleanField(
        default=False, help_text="Only checked-in entrants are seated when a round is paired."
    )
    check_in_opens = models.DateTimeField(null=True, blank=True)
    check_in_closes = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "order"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "order"], name="stage_order_unique"),
            models.CheckConstraint(
                condition=Q(check_in_opens__isnull=True)
                | Q(check_in_closes__isnull=True)
                | Q(check_in_opens__lt=models.F("check_in_closes")),
                name="stage_check_in_window_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.name}"


class Round(models.Model):
    """One round of a stage: its tables, generated together, published together."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")
        FINISHED = "finished", _("Finished")

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    flags = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    # The round clock (tournaments/round_clock.py): running until clock_deadline, or
    # paused with clock_left seconds to go; neither before it starts.
    clock_started_at = models.DateTimeField(null=True, blank=True)
    clock_deadline = models.DateTimeField(null=True, blank=True)
    clock_left = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.CheckConstraint(
                condition=Q(clock_deadline__isnull=True) | Q(clock_left__isnull=True),
                name="round_clock_running_or_paused",
            ),
            models.CheckConstraint(
                condition=(Q(clock_deadline__isnull=True) & Q(clock_left__isnull=True))
                | Q(clock_started_at__isnull=False),
                name="round_clock_started",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.stage} round {self.number}"


class Match(models.Model):
    """One table in one round: its entrants in seat order, its referee and its game."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    table_number = models.PositiveSmallIntegerField()
    game = models.OneToOneField(
        "scoring.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="match"
    )
    bye = models.BooleanField(default=False)
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="refereed_matches",
    )
    slot = models.CharField(max_length=20, blank=True, help_text="Bracket slot, e.g. W1-3.")
    needs_attention = models.BooleanField(default=False)
    attention_reason = models.CharField(max_length=300, blank=True)
    entrants = models.ManyToManyField(Entrant, through="MatchSeat", related_name="matches")

    class Meta:
        ordering = ["round", "table_number"]
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(fields=["round", "table_number"], name="match_table_unique"),
            models.CheckConstraint(
                condition=Q(bye=True, game__isnull=True) | Q(bye=False),
                name="match_bye_has_no_game",
            ),
            models.CheckConstraint(
                condition=Q(needs_attention=False) | ~Q(attention_reason=""),
                name="match_attention_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round} table {self.table_number}"


class MatchSeat(models.Model):
    """An entrant's seat at a match, in the order of play."""

    class DidNotPlay(models.TextChoices):
        NO_SHOW = "no_show", _("No-show")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        DISQUALIFIED = "disqualified", _("Disqualified")
        OTHER = "other", _("Other")

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="+", help_text="The match's round."
    )
    entrant = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="match_seats")
    position = models.PositiveSmallIntegerField()
    # The finished game's result for this seat, written in the scoring transaction that
    # finishes (or corrects, or reopens) the game; empty while the game is not finished.
    # The standings sum these columns instead of reading every game.
    total = models.IntegerField(null=True, blank=True, help_text="The side's final total.")
    placement = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="1 for the highest total; equal totals share."
    )
    won = models.BooleanField(null=True, blank=True)
    sides = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="How many sides played the game (two to four)."
    )
    opponents_total = models.IntegerField(
        null=True, blank=True, help_text="The other sides' final totals, summed."
    )
    hands_won = models.PositiveIntegerField(null=True, blank=True)
    dominoes = models.PositiveIntegerField(null=True, blank=True)
    penalties = models.PositiveIntegerField(null=True, blank=True, help_text="Penalty points.")
    last_hand_at = models.DateTimeField(
        null=True, blank=True, help_text="When the finished game's last hand was recorded."
    )
    forfeit = models.BooleanField(
        null=True, blank=True, help_text="This seat's side forfeited the finished game."
    )
    # Set when the seat did not play: its game ended as a forfeit, or (in a bracket) the
    # table was a walkover and has no game.
    did_not_play = models.CharField(
        max_length=12, choices=DidNotPlay.choices, blank=True, help_text="Why it did not play."
    )

    RESULT_FIELDS = (
        "total",
        "placement",
        "won",
        "sides",
        "opponents_total",
        "hands_won",
        "dominoes",
        "penalties",
        "last_hand_at",
        "forfeit",
    )

    class Meta:
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="match_seat_unique"),
            models.UniqueConstraint(fields=["match", "entrant"], name="match_entrant_unique"),
            # Nobody sits at two tables of one round.
            models.UniqueConstraint(fields=["round", "entrant"], name="entrant_once_per_round"),
            # A result is whole or absent.
            models.CheckConstraint(
                condition=Q(
                    total__isnull=True,
                    placement__isnull=True,
                    won__isnull=True,
                    sides__isnull=True,
                    opponents_total__isnull=True,
                    hands_won__isnull=True,
                    dominoes__isnull=True,
                    penalties__isnull=True,
                )
                | Q(
                    total__isnull=False,
                    placement__gte=1,
                    won__isnull=False,
                    sides__gte=2,
                    # Two-box Cutthroat seats up to six (RULES.md).
                    sides__lte=6,
                    placement__lte=models.F("sides"),
                    opponents_total__isnull=False,
                    hands_won__isnull=False,
                    dominoes__isnull=False,
                    penalties__isnull=False,
                ),
                name="match_seat_result_whole",
            ),
            models.CheckConstraint(
                condition=Q(did_not_play__in=["", "no_show", "withdrawn", "disqualified", "other"]),
                name="match_seat_did_not_play_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match}: {self.position} {self.entrant}"


class StandingsSnapshot(models.Model):
    """A stage's standings as last computed; pages and the API read it, never compute.

    ``document`` is JSON: ``{"order": [the tiebreak order it was ranked by], "metrics":
    [key, ...], "lines": [[entrant_id, rank, tied, withdrawn, games_played, [metric
    values in that order]], ...]}``, best first (``tournaments.read.standings_store`` writes
    and reads it; each line's reason is told from the lines and the order). It is text,
    not a JSON column: written whole after every change and read whole, it needs no
    indexing.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    stage = models.OneToOneField(Stage, on_delete=models.CASCADE, related_name="standings")
    computed_at = models.DateTimeField()
    document = models.TextField()

    def __str__(self) -> str:
        return f"standings of {self.stage}"


class StandingsState(models.Model):
    """Bookkeeping that coalesces standings recomputes and tells a stale snapshot."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="standings_state"
    )
    requested_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    queued = models.BooleanField(default=False, help_text="A recompute is queued or running.")
    queued_at = models.DateTimeField(null=True, blank=True)
    dirty = models.BooleanField(default=False, help_text="Changed since the running recompute.")
    last_revision = models.PositiveBigIntegerField(
        default=0, help_text="Sum of game revisions the snapshot includes."
    )
    last_hand_at = models.DateTimeField(null=True, blank=True)
    runs = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"standings of {self.tournament}"

    @property
    def stale(self) -> bool:
        if self.requested_at is None:
            return False
        return self.computed_at is None or self.computed_at < self.requested_at


class StageSchedule(models.Model):
    """Where the search of a stage's schedule stands, for the organizer's page.

    The schedule itself is kept round by round in ``ScheduleEntry``; this row says
    whether the one the next round needs is being computed, ready or failed. The task
    first stores a schedule from a quick search (usable at once) and, where that search
    was stopped by its small budget, says so (``improving``) while the full search runs;
    ``quick`` stays set when the quick schedule is kept (a round was generated from it
    and the full search found no better one for the rounds left). Where tasks run in the
    request (no broker), a change of the field stores the quick schedule only
    (``deferred``): generating the round runs the full search.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        COMPUTING = "computing", _("Computing")
        IMPROVING = "improving", _("Improving")
        DEFERRED = "deferred", _("Full search when the round is generated")
        READY = "ready", _("Ready")
        NOT_NEEDED = "not_needed", _("Not needed")
        FAILED = "failed", _("Failed")

    stage = models.OneToOneField(Stage, on_delete=models.CASCADE, related_name="schedule")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    entrants = models.PositiveIntegerField(default=0, help_text="The field it is for.")
    first_round = models.PositiveSmallIntegerField(default=1)
    rounds = models.PositiveSmallIntegerField(default=0, help_text="Rounds it plans.")
    repeats = models.PositiveIntegerField(default=0, help_text="Repeat meetings it has.")
    unavoidable = models.BooleanField(default=True, help_text="No schedule has fewer.")
    quick = models.BooleanField(
        default=False, help_text="It comes from the quick search, stopped by its small budget."
    )
    problem = models.JSONField(
        default=dict, blank=True, help_text="Why it failed: a message's template and values."
    )
    requested_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"schedule of {self.stage}"


class ScheduleEntry(models.Model):
    """One round's tables of a stage's schedule, searched ahead of time.

    ``key`` names the round by everything its tables depend on (the field, the round,
    the meetings already played ...), so a round finds its entry only while the field
    and the rounds before it are the ones it was planned for.
    """

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="schedule_entries")
    key = models.CharField(max_length=40)
    round_number = models.PositiveSmallIntegerField()
    tables = models.JSONField(help_text="Entrant ids per table, in seat order.")
    repeats = models.PositiveIntegerField(default=0)
    unavoidable = models.BooleanField(default=True)
    quick = models.BooleanField(
        default=False,
        help_text="Found by the quick search, stopped by its small budget: the full search "
        "may replace it while none of its rounds is generated.",
    )
    work = models.PositiveIntegerField(default=0, help_text="Swaps the search evaluated.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stage", "key"], name="schedule_entry_key_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.stage} round {self.round_number} ({self.key[:8]})"


class Suspension(models.Model):
    """A sanction under a code of conduct: the player may not enter or check in to the
    events of its scope from ``starts_on`` to ``ends_on`` (both included; see
    tournaments/suspensions.py). Kept when lifted, with who lifted it and when."""

    class Scope(models.TextChoices):
        ORGANIZER = "organizer", _("This organizer's events")
        SERIES = "series", _("One series")

    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="suspensions"
    )
    scope = models.CharField(max_length=10, choices=Scope.choices)
    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The organizer whose events the suspension covers (and who recorded it).",
    )
    series = models.ForeignKey(
        "circuit.Series", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    tournament = models.ForeignKey(
        Tournament,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The event it was recorded from.",
    )
    starts_on = models.DateField()
    ends_on = models.DateField()
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(starts_on__lte=models.F("ends_on")), name="suspension_dates_ordered"
            ),
            models.CheckConstraint(
                condition=Q(scope="organizer", series__isnull=True)
                | Q(scope="series", series__isnull=False),
                name="suspension_scope_names_series",
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="suspension_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.player} suspended {self.starts_on} to {self.ends_on}"

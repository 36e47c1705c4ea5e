"""Players across events: the player, claim codes, merges and the record of acts on who a
player is, self-registration and the emails they get.

The player (``Player``) is one person in every event they enter; an entrant
(``tournaments.Entrant``) is their entry in one event. The player and its name matching
(``players.names``, ``players.matching``) sit below scoring and tournaments, which point
at it; the rest of the app (claims, merges, registration) sits above them. This module
imports no other app's code: the references to events are by name.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from players.names import name_key


class Player(models.Model):
    """A person who plays; exists across tournaments, optionally linked to a login."""

    display_name = models.CharField(max_length=120)
    club = models.CharField(max_length=120, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166-1 alpha-2 code")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Who the player is, as ``players.matching`` compares names: accents, case and
    # spacing folded away. Empty only on rows written in bulk by older code.
    name_key = models.CharField(max_length=250, blank=True, default="", editable=False)
    club_key = models.CharField(max_length=250, blank=True, default="", editable=False)
    homonym = models.PositiveSmallIntegerField(
        default=0, help_text="Tells apart different people of the same name and club."
    )

    class Meta:
        ordering = ["display_name", "pk"]
        indexes = [models.Index(fields=["name_key"], name="player_name_key")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(display_name=""), name="player_display_name_not_empty"
            ),
            # One person per name and club: a namesake is another homonym number.
            models.UniqueConstraint(
                fields=["name_key", "club_key", "homonym"],
                condition=~Q(name_key=""),
                name="player_identity_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    def save(self, *args, **kwargs):
        self.name_key = name_key(self.display_name)
        self.club_key = name_key(self.club)
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "name_key", "club_key"}
        super().save(*args, **kwargs)


class ClaimCode(models.Model):
    """A code an organizer gives a player so they can link their own account to them.

    Only the code's SHA-256 is kept: the organizer sees the code once, when it is made,
    and nobody (organizer, database reader) can read it again."""

    player = models.ForeignKey(
        "players.Player", on_delete=models.CASCADE, related_name="claim_codes"
    )
    digest = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"claim code for {self.player}"


class PlayerMerge(models.Model):
    """A player merged into another: their old address leads to the player kept."""

    removed_id = models.BigIntegerField(unique=True)
    removed_name = models.CharField(max_length=120)
    kept = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="merged")
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    merged_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.removed_name} ({self.removed_id}) into {self.kept}"


class IdentityAct(models.Model):
    """One act on who a player is, kept for the person concerned to read: who acted,
    when, and on which player(s). Players are kept by number and name, as merges delete
    the player merged away."""

    class Kind(models.TextChoices):
        CLAIM_CODE = "claim_code", _("Claim code given")
        CLAIM = "claim", _("Account linked with a claim code")
        LINK = "link", _("Account linked to a new player")
        UNLINK = "unlink", _("Account unlinked")
        MERGE_REQUEST = "merge_request", _("Merge asked for")
        MERGE_CONFIRM = "merge_confirm", _("Merge confirmed")
        MERGE = "merge", _("Players merged")
        ENTRY_REQUEST = "entry_request", _("Asked to enter you in an event")
        ENTRY_ACCEPT = "entry_accept", _("Entry accepted")
        ENTRY_DECLINE = "entry_decline", _("Entry declined")

    kind = models.CharField(max_length=16, choices=Kind.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="identity_acts",
        help_text="The account linked to the player, if any: the person concerned.",
    )
    player_id = models.BigIntegerField(db_index=True)
    player_name = models.CharField(max_length=120)
    other_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    other_name = models.CharField(max_length=120, blank=True)
    event = models.CharField(
        max_length=200, blank=True, help_text="The event an entry act is about."
    )

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.kind} on {self.player_name} ({self.player_id})"


class MergeRequest(models.Model):
    """An account holder's ask that another player be merged into their own. It is done
    once a superuser, or an organizer of each event the other player entered, confirms
    (``confirmed_events``: the events whose organizers have)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for confirmation")
        DONE = "done", _("Merged")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    keep = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(
        "players.Player", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    other_name = models.CharField(max_length=120)
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="merge_requests"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    confirmed_events = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["keep", "other"],
                condition=Q(status="open"),
                name="merge_request_open_once",
            ),
            models.CheckConstraint(
                condition=~Q(status="open") | Q(other__isnull=False),
                name="merge_request_open_has_other",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.other_name} into {self.keep} ({self.status})"


class EntryRequest(models.Model):
    """An organizer entered a name that is a player linked to an account: the person is
    asked whether the entry is theirs. Meanwhile (and for good, once declined) the entry
    plays as ``stand_in``, a new player of that name, so nothing of the person moves
    without their word; accepted, the entry and its games become the person's.

    ``stand_in`` is empty on entries made before the request existed, which still hold
    the person's player: their games are not rated while the request is pending
    (``circuit.services.ratings``), and a decline moves the entry to a new player."""

    class Answer(models.TextChoices):
        PENDING = "pending", pgettext_lazy("entry request", "Pending")
        ACCEPTED = "accepted", pgettext_lazy("entry request", "Accepted")
        DECLINED = "declined", pgettext_lazy("entry request", "Declined")

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="entry_requests"
    )
    entrant = models.ForeignKey("tournaments.Entrant", on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="+")
    stand_in = models.ForeignKey(
        "players.Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    asked_at = models.DateTimeField()
    answer = models.CharField(max_length=8, choices=Answer.choices, default=Answer.PENDING)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-asked_at", "-pk"]
        constraints = [
            # One unanswered request per person and event.
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(answer="pending"),
                name="entry_request_pending_once",
            ),
            models.CheckConstraint(
                condition=Q(answer="pending", answered_at__isnull=True)
                | (~Q(answer="pending") & Q(answered_at__isnull=False)),
                name="entry_request_answered_at",
            ),
            models.CheckConstraint(
                condition=Q(stand_in__isnull=True) | ~Q(stand_in=models.F("player")),
                name="entry_request_stand_in_is_another",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament} ({self.answer})"


class Registration(models.Model):
    """An event open to players entering themselves, and when they check in themselves.

    Times are stored in UTC and shown in the tournament's time zone. An empty bound is
    open on that side; no capacity means up to the service's limit of entrants.
    """

    tournament = models.OneToOneField(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="self_registration"
    )
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    capacity = models.PositiveIntegerField(null=True, blank=True)
    requires_approval = models.BooleanField(default=False)
    check_in_opens_at = models.DateTimeField(null=True, blank=True)
    check_in_closes_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True)
                | Q(closes_at__isnull=True)
                | Q(opens_at__lt=models.F("closes_at")),
                name="registration_window_ordered",
            ),
            models.CheckConstraint(
                condition=Q(check_in_opens_at__isnull=True)
                | Q(check_in_closes_at__isnull=True)
                | Q(check_in_opens_at__lt=models.F("check_in_closes_at")),
                name="registration_check_in_window_ordered",
            ),
            models.CheckConstraint(
                condition=Q(capacity__isnull=True) | Q(capacity__gte=1),
                name="registration_capacity_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"registration for {self.tournament}"


ACTIVE = ("partner", "approval", "waiting", "entered")


class Application(models.Model):
    """A signed-in player's own entry into an event, from asking to playing."""

    class Status(models.TextChoices):
        PARTNER = "partner", _("Waiting for the partner")
        APPROVAL = "approval", _("Waiting for approval")
        WAITING = "waiting", _("On the waiting list")
        ENTERED = "entered", _("Entered")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        DECLINED = "declined", _("Declined")

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="applications"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="applications"
    )
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="+")
    partner_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="partner_applications",
    )
    partner = models.ForeignKey(
        "players.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices)
    approved = models.BooleanField(default=False)
    entrant = models.OneToOneField(
        "tournaments.Entrant",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="application",
    )
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When it joined the waiting list."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=Q(status__in=ACTIVE),
                name="application_once_per_user",
            ),
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(status__in=ACTIVE),
                name="application_once_per_player",
            ),
            models.CheckConstraint(
                condition=~Q(status="waiting") | Q(queued_at__isnull=False),
                name="application_waiting_queued",
            ),
            models.CheckConstraint(
                condition=~Q(status="entered") | Q(entrant__isnull=False),
                name="application_entered_has_entrant",
            ),
            models.CheckConstraint(
                condition=Q(partner_user__isnull=True) | ~Q(partner_user=models.F("user")),
                name="application_partner_is_another",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament} ({self.status})"


class Notice(models.Model):
    """An email to a player, written in the transaction of what it tells and sent after
    it commits by a Celery task (retried, and swept up again if the broker was away)."""

    class Kind(models.TextChoices):
        CONFIRMED = "confirmed", _("Entry confirmed")
        PROMOTED = "promoted", _("Moved off the waiting list")
        TABLE = "table", _("Table published")
        PARTNER = "partner", _("Partner invitation")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="notices"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    to = models.EmailField()
    subject = models.CharField(max_length=200)
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to}"

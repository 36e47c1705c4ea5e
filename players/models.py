"""Players across events: claim codes, merges, self-registration and the emails they get.

The player (``accounts.Player``) is one person in every event they enter; an entrant
(``tournaments.Entrant``) is their entry in one event. This app sits above both.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class ClaimCode(models.Model):
    """A code an organizer gives a player so they can link their own account to them."""

    player = models.ForeignKey(
        "accounts.Player", on_delete=models.CASCADE, related_name="claim_codes"
    )
    code = models.CharField(max_length=16, unique=True)
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
    kept = models.ForeignKey("accounts.Player", on_delete=models.CASCADE, related_name="merged")
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    merged_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.removed_name} ({self.removed_id}) into {self.kept}"


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
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    partner_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="partner_applications",
    )
    partner = models.ForeignKey(
        "accounts.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
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

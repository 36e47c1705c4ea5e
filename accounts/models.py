"""People and API bookkeeping: players who outlive tournaments, and idempotency keys."""

from django.conf import settings
from django.db import models
from django.db.models import Q


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

    class Meta:
        ordering = ["display_name", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(display_name=""), name="player_display_name_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name


class IdempotencyKey(models.Model):
    """The first answer to a write sent with an ``Idempotency-Key``, replayed on a repeat."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys"
    )
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of method, path and body")
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class Preference(models.Model):
    """A user's settings that follow them from device to device (the page language)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    language = models.CharField(max_length=10, blank=True)

    def __str__(self) -> str:
        return f"{self.user}: {self.language or 'browser language'}"

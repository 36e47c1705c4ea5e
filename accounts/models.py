"""Accounts' bookkeeping: idempotency keys of API writes, and a user's preferences."""

from django.conf import settings
from django.db import models


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
    """A user's settings that follow them from device to device (the page language, and
    whether capicu may email them at all)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    language = models.CharField(max_length=10, blank=True)
    emails = models.BooleanField(
        default=True, help_text="Off: no email at all, whatever the event (one-click unsubscribe)."
    )

    def __str__(self) -> str:
        return f"{self.user}: {self.language or 'browser language'}"

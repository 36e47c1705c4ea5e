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
    # Who the player is, as ``accounts.players`` compares names: accents, case and
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
        from accounts.players import name_key

        self.name_key = name_key(self.display_name)
        self.club_key = name_key(self.club)
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "name_key", "club_key"}
        super().save(*args, **kwargs)


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

"""The bookkeeping row of a coalesced job: one per kind of work and key."""

from django.db import models


class Job(models.Model):
    """One job's requests: "ratings", ("series", 7), ("notice", 12), ...

    The first request queues one task; while it is queued or running, further requests
    only mark the job dirty, and the task runs again when it finishes dirty. A job the
    broker never got stays dirty and unqueued for the beat sweep.
    """

    kind = models.CharField(max_length=40)
    key = models.BigIntegerField(default=0)
    dirty = models.BooleanField(default=False)
    queued = models.BooleanField(default=False, help_text="A run is queued or running.")
    queued_at = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    runs = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="one_job_per_key")]
        indexes = [models.Index(fields=["dirty", "queued"], name="jobs_left_behind")]

    def __str__(self) -> str:
        return f"{self.kind}:{self.key}" if self.key else self.kind

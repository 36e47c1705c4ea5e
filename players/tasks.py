"""Celery tasks that send the players' emails: retried, swept up after a broker outage."""

import logging
from datetime import timedelta

from celery import shared_task
from django.core.mail import EmailMessage
from django.db.models import F
from django.utils import timezone

from accounts.services import wants_emails
from players.models import Notice

log = logging.getLogger(__name__)

SEND_RETRIES = 5
# An unsent notice older than this was lost to a broker outage or failed every retry.
SWEEP_AFTER = timedelta(minutes=2)
GIVE_UP_AFTER = timedelta(days=2)
SWEEP_EVERY = 60.0


@shared_task(bind=True, acks_late=True, max_retries=SEND_RETRIES)
def send_notice(self, notice_id: int) -> bool:
    """Send one notice once: a notice already sent is not sent again."""
    notice = (
        Notice.objects.filter(pk=notice_id, sent_at__isnull=True).select_related("user").first()
    )
    if notice is None:
        return False
    if notice.user is None or not wants_emails(notice.user):
        notice.delete()  # the person unsubscribed (or left) since it was written
        return False
    try:
        _message(notice).send()
    except Exception as error:
        Notice.objects.filter(pk=notice_id).update(
            attempts=F("attempts") + 1, last_error=str(error)[:300]
        )
        raise self.retry(exc=error, countdown=30 * 2**self.request.retries) from error
    Notice.objects.filter(pk=notice_id, sent_at__isnull=True).update(
        sent_at=timezone.now(), attempts=F("attempts") + 1, last_error=""
    )
    return True


def _message(notice: Notice) -> EmailMessage:
    """The notice as an email with the RFC 8058 one-click unsubscribe headers: a mail
    client POSTs ``List-Unsubscribe=One-Click`` to the link, no sign-in needed."""
    from players.notices import unsubscribe_url

    return EmailMessage(
        notice.subject,
        notice.body,
        None,
        [notice.to],
        headers={
            "List-Unsubscribe": f"<{unsubscribe_url(notice.user)}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


@shared_task
def sweep_notices() -> int:
    """Queue again the notices a broker outage or a mail server left unsent."""
    from players.notices import queue

    now = timezone.now()
    pending = Notice.objects.filter(
        sent_at__isnull=True,
        created_at__lt=now - SWEEP_AFTER,
        created_at__gt=now - GIVE_UP_AFTER,
    ).values_list("pk", flat=True)
    return sum(queue(pk) for pk in pending[:500])

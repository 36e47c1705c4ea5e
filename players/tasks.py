"""The players' emails as the job runner's work: each notice sent once, retried, swept up.

A notice is written in the transaction of what it tells and asked for after it commits
(``runner.request_on_commit("notice", pk)``, or a round's table emails together with
``runner.request_all_on_commit``; see ``players.notices``). The runner sends
it and retries with growing waits; a notice still unsent after a broker outage, a lost
commit callback or every retry failing is sent by the beat sweep (``unsent_notices``),
for two days at most.
"""

from datetime import timedelta

from django.core.mail import EmailMessage
from django.db.models import F
from django.utils import timezone

from accounts.services import wants_emails
from jobs import runner
from players.models import Notice
from players.notices import unsubscribe_url

SEND_RETRIES = 5
# An unsent notice older than this was lost to a broker outage or failed every retry.
SWEEP_AFTER = timedelta(minutes=2)
GIVE_UP_AFTER = timedelta(days=2)


def send_notice(notice_id: int) -> bool:
    """Send one notice once: a notice already sent is not sent again. A failure is noted
    on the notice and raised, for the runner to retry."""
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
        raise
    Notice.objects.filter(pk=notice_id, sent_at__isnull=True).update(
        sent_at=timezone.now(), attempts=F("attempts") + 1, last_error=""
    )
    return True


def _message(notice: Notice) -> EmailMessage:
    """The notice as an email with the RFC 8058 one-click unsubscribe headers: a mail
    client POSTs ``List-Unsubscribe=One-Click`` to the link, no sign-in needed."""
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


def unsent_notices() -> list[int]:
    """The notices a broker outage or a mail server left unsent (at most 500 a sweep)."""
    now = timezone.now()
    pending = Notice.objects.filter(
        sent_at__isnull=True,
        created_at__lt=now - SWEEP_AFTER,
        created_at__gt=now - GIVE_UP_AFTER,
    ).values_list("pk", flat=True)
    return list(pending[:500])


def retry_after(retries: int) -> float:
    return 30.0 * 2**retries


def register_jobs() -> None:
    runner.register(
        "notice",
        send_notice,
        once=True,
        retries=SEND_RETRIES,
        retry_after=retry_after,
        left_behind=unsent_notices,
    )

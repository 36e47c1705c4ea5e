"""Emails to players: written in the transaction of what they tell, sent after it commits.

A notice is a row first (``players.Notice``), so nothing a player is told depends on the
broker or the mail server being up when it happens: the task sends it and retries; the
beat sweep queues again whatever is still unsent; a send that keeps failing leaves the
registration as it is and the notice unsent, with its error.
"""

import logging

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from accounts.models import Preference
from players.models import Notice

log = logging.getLogger(__name__)


def _language(user) -> str:
    chosen = Preference.objects.filter(user=user).values_list("language", flat=True).first()
    return chosen or settings.LANGUAGE_CODE


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def notify(user, kind: str, context: dict) -> Notice | None:
    """Write the email ``kind`` to ``user`` in their language, and send it after commit.

    Users without an email address are skipped: they see the same on their pages."""
    if user is None or not user.email:
        return None
    context = {"user": user, **context}
    with translation.override(_language(user)):
        subject = " ".join(render_to_string(f"players/email/{kind}_subject.txt", context).split())
        body = render_to_string(f"players/email/{kind}.txt", context)
    notice = Notice.objects.create(
        user=user, kind=kind, to=user.email, subject=subject[:200], body=body
    )
    transaction.on_commit(lambda: queue(notice.pk))
    return notice


def queue(notice_id: int) -> bool:
    """Hand the notice to a worker; if the broker (or, tasks running in-process, the mail
    server) fails, the notice stays unsent for the sweep. Never raises."""
    from players.tasks import send_notice

    try:
        send_notice.delay(notice_id)
    except Exception:
        log.warning("notice %s not sent now; the sweep will retry", notice_id, exc_info=True)
        return False
    return True


def tournament_url(tournament) -> str:
    return site_url(reverse("self-register", args=[tournament.slug]))

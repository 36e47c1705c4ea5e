"""Emails to players: written in the transaction of what they tell, sent after it commits.

A notice is a row first (``players.Notice``), so nothing a player is told depends on the
broker or the mail server being up when it happens: the task sends it and retries; the
beat sweep queues again whatever is still unsent; a send that keeps failing leaves the
registration as it is and the notice unsent, with its error.

Nobody can be emailed by someone else's act alone. A notice about an event is written
only to a person who tied themselves to it (``consented``) and has not turned emails off,
within an hourly number per recipient and per sender. Its subject is fixed product
wording; what an organizer or a player typed (an event's or a player's name) appears in
the body only, quoted and defanged (``typed``), and every message carries a one-click
unsubscribe link (and the RFC 8058 headers, added when it is sent).
"""

import logging
import re
import unicodedata
from datetime import timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import Preference
from accounts.services import spend_hourly, unsubscribe_token
from accounts.site import public_url
from jobs import runner
from players.models import Application, IdentityAct, Notice
from tournaments.models import Entrant, Staff, Tournament

log = logging.getLogger(__name__)

# How long a name typed by someone else may run in an email, once quoted.
TYPED_LENGTH = 120
_LINK = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*):/+|\bwww\.")


def _preference(user) -> tuple[str, bool]:
    """The language ``user`` reads in, and whether they take emails at all (one query)."""
    language, emails = Preference.objects.filter(user=user).values_list(
        "language", "emails"
    ).first() or ("", True)
    return language or settings.LANGUAGE_CODE, emails


def site_url(path: str) -> str:
    return public_url(path)


def unsubscribe_url(user) -> str:
    """The page that stops every email to ``user`` in one click, without signing in."""
    return site_url(reverse("unsubscribe", args=[unsubscribe_token(user)]))


def typed(text) -> str:
    """Text someone typed (an event's, a player's name), fit to quote in an email: one
    line, no control or direction-changing characters, no link a mail client would make
    clickable (``https://x`` reads ``https[:]//x``), and no longer than a name."""
    text = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in str(text)
    )
    text = " ".join(text.split())
    text = _LINK.sub(lambda m: f"{m.group(1)}[:]//" if m.group(1) else "www[.]", text)
    if len(text) > TYPED_LENGTH:
        text = text[: TYPED_LENGTH - 1] + "…"
    return text


def consented(user, tournament: Tournament) -> bool:
    """Whether ``user`` tied themselves to ``tournament`` by their own act: entered it
    themselves, accepted a partner's invitation or a role in it, or linked their account
    (with a claim code) to a player already entered in it. Only they get its emails."""
    here = OuterRef("pk")
    claims = IdentityAct.objects.filter(
        kind=IdentityAct.Kind.CLAIM, account=user, at__gte=OuterRef("created_at")
    )
    claimed = Entrant.objects.filter(tournament=here).filter(
        Exists(claims.filter(player_id=OuterRef("player_id")))
        | Exists(claims.filter(player_id=OuterRef("partner_id")))
    )
    own = Application.objects.filter(tournament=here).filter(
        Q(user=user) | Q(partner_user=user, partner__isnull=False)
    )
    role = Staff.objects.filter(tournament=here, user=user)
    return (
        Tournament.objects.filter(pk=tournament.pk)
        .filter(Exists(own) | Exists(role) | Exists(claimed))
        .exists()
    )


def _within_caps(user, tournament: Tournament, sender_id) -> bool:
    """Whether one more email to ``user``, caused by ``sender_id``, stays within the
    hourly numbers (the sender's is counted only for an email that will be written)."""
    hour_ago = timezone.now() - timedelta(hours=1)
    received = Notice.objects.filter(user=user, created_at__gte=hour_ago).count()
    if received >= settings.NOTICES_PER_RECIPIENT_PER_HOUR:
        return False
    sender = sender_id if sender_id is not None else f"event-{tournament.pk}"
    return spend_hourly("notices", sender, settings.NOTICES_PER_SENDER_PER_HOUR)


def notify(user, kind: str, context: dict, *, by=None) -> Notice | None:
    """Write the email ``kind`` about the event in ``context`` to ``user`` in their
    language, and send it after commit; None if it may not be sent (``write``)."""
    notice = write(user, kind, context, by=by)
    if notice is not None:
        # Sent by a worker after the commit; if the broker (or, run in-process, the mail
        # server) fails, the notice stays unsent for the sweep. Never raises.
        runner.request_on_commit("notice", notice.pk)
    return notice


def write(user, kind: str, context: dict, *, by=None) -> Notice | None:
    """Write the email ``kind`` about the event in ``context`` to ``user`` in their
    language, unsent: the caller asks for it to be sent (``runner.request_all_on_commit``
    for many at once); None if it may not be sent.

    ``by`` is the user whose act causes it (a player naming a partner); otherwise the
    event's creator counts as its sender. Users without an email address are skipped:
    they see the same on their pages."""
    if user is None or not user.email or not user.is_active:
        return None
    tournament = context.get("tournament") or context["application"].tournament
    language, emails = _preference(user)
    if not emails or not consented(user, tournament):
        return None
    sender_id = by.pk if by is not None else tournament.created_by_id
    if not _within_caps(user, tournament, sender_id):
        log.warning("notice %s to user %s not written: over the hourly cap", kind, user.pk)
        return None
    application = context.get("application")
    context = {
        **context,
        "user": user,
        "event": typed(tournament.name),
        "player": typed(application.player.display_name) if application else "",
        "table_names": [typed(name) for name in context.get("names", ())],
        "unsubscribe_url": unsubscribe_url(user),
    }
    with translation.override(language):
        subject = " ".join(render_to_string(f"players/email/{kind}_subject.txt", context).split())
        body = render_to_string(f"players/email/{kind}.txt", context)
    return Notice.objects.create(
        user=user, kind=kind, to=user.email, subject=subject[:200], body=body
    )


def tournament_url(tournament) -> str:
    return site_url(reverse("self-register", args=[tournament.slug]))

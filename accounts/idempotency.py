"""Idempotency-Key for writes a flaky phone connection may repeat.

The first answer to a write is stored with its key in the same transaction as the
write itself. A repeat with the same key and the same request gets that answer back and
changes nothing; the same key with a different request is a conflict. The key row is
inserted before the write, so a concurrent duplicate waits on the unique index and then
replays the first answer instead of racing it.
"""

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework import status
from rest_framework.response import Response

from accounts.models import IdempotencyKey

HEADER = "Idempotency-Key"
KEEP_FOR = timedelta(days=1)
MAX_KEY_LENGTH = 255


def fingerprint(method: str, path: str, body: bytes) -> str:
    """A digest of what was asked: the same request gives the same fingerprint."""
    try:
        canonical = json.dumps(json.loads(body or b"null"), sort_keys=True).encode()
    except (ValueError, UnicodeDecodeError, RecursionError):
        canonical = body or b""
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + canonical).hexdigest()


def _replay(stored: IdempotencyKey, digest: str) -> Response:
    if stored.fingerprint != digest:
        return Response(
            {
                "detail": "This Idempotency-Key was already used for a different request.",
                "errors": {HEADER: ["Use a new key for a new request."]},
            },
            status=status.HTTP_409_CONFLICT,
        )
    response = Response(stored.response, status=stored.status_code)
    response["Idempotent-Replayed"] = "true"
    return response


def run_once(request, produce: Callable[[], Response]) -> Response:
    """Answer ``produce()`` once per key: repeats of the same request replay the answer."""
    key = request.headers.get(HEADER, "").strip()
    user = request.user
    if not key or not getattr(user, "is_authenticated", False):
        return produce()
    if len(key) > MAX_KEY_LENGTH:
        return Response(
            {"detail": "Idempotency-Key is too long.", "errors": {HEADER: ["At most 255."]}},
            status=status.HTTP_400_BAD_REQUEST,
        )
    digest = fingerprint(request.method, request.path, request.body)
    stored = IdempotencyKey.objects.filter(user=user, key=key).first()
    if stored is not None:
        return _replay(stored, digest)
    try:
        with transaction.atomic():
            row = IdempotencyKey.objects.create(
                user=user, key=key, fingerprint=digest, status_code=0, response={}
            )
            response = produce()
            if response.status_code >= 300:
                # Nothing was written; a retry may legitimately succeed later.
                transaction.set_rollback(True)
                return response
            row.status_code = response.status_code
            row.response = json.loads(json.dumps(response.data, default=str))
            row.save(update_fields=["status_code", "response"])
            return response
    except IntegrityError:
        # A concurrent request with this key committed first: answer as it did.
        stored = IdempotencyKey.objects.filter(user=user, key=key).first()
        if stored is None:
            raise
        return _replay(stored, digest)


def purge(older_than: timedelta = KEEP_FOR) -> int:
    """Forget keys older than ``older_than``; returns how many."""
    deleted, _ = IdempotencyKey.objects.filter(created_at__lt=timezone.now() - older_than).delete()
    return deleted


def claim(user, key: str, what: str) -> bool:
    """Take ``key`` for a page form's write; False when that form was already sent.

    Call it inside the write's transaction: a rolled-back write releases the key, so a
    retry after a failure is carried out, and a retry after a success is not.
    """
    key = (key or "").strip()[:MAX_KEY_LENGTH]
    if not key or not getattr(user, "is_authenticated", False):
        return True
    digest = hashlib.sha256(what.encode()).hexdigest()
    try:
        with transaction.atomic():
            IdempotencyKey.objects.create(
                user=user,
                key=f"page:{key}"[:MAX_KEY_LENGTH],
                fingerprint=digest,
                status_code=200,
                response={"page": what},
            )
    except IntegrityError:
        return False
    return True

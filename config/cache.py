"""The Redis cache, where an unreachable Redis is a miss and never a failed request.

Throttling counters and the live pages' tags sit in this cache. If Redis stops or hangs,
a request must still be answered (without the cache's help): every Redis error is logged
and read as "nothing cached", the settings' short socket timeouts bound the first
failure, and for a couple of seconds after it this process does not ask Redis again, so
a request that reads the cache several times pays for at most one timeout.
"""

import logging
import threading
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient, RedisSerializer
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

# Seconds a process leaves Redis alone after an error before trying it again.
REST_AFTER_ERROR = 2.0


# What a value reads as when it cannot be loaded: a miss.
UNREADABLE = object()


class ForgivingSerializer(RedisSerializer):
    """Django's Redis serializer, for which a value it cannot load is a miss.

    The live answers keep objects of capicu's own classes in the cache. After an upgrade
    that moved or changed one of those classes, the values the old code wrote stay in
    Redis until they expire; loading one would fail every request that reads it.
    """

    def loads(self, data):
        try:
            return super().loads(data)
        except Exception:  # a class gone or changed since it was written, or damaged bytes
            log.warning("cache value unreadable: read as a miss", exc_info=True)
            return UNREADABLE


class ReusedClients(RedisCacheClient):
    """Django's Redis cache client, making one ``redis.Redis`` per connection pool once.

    Django makes a new ``redis.Redis`` for every cache call, and each one builds its
    table of some 170 reply callbacks: about 0.1 ms of CPU, more than the call's own
    work for a small key. A ``redis.Redis`` over a pool is safe to share between
    threads (each command takes a connection from the pool), so one is kept per pool.
    The first calls may come from several threads at once: the pool and its client are
    made under a lock, so that none of them builds a second pool of its own.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}
        self._making = threading.Lock()
        self._serializer = ForgivingSerializer()

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            with self._making:
                client = self._clients.get(index)
                if client is None:
                    pool = self._get_connection_pool(write)
                    client = self._clients[index] = self._client(connection_pool=pool)
        return client


class ForgivingRedisCache(RedisCache):
    """Django's Redis cache whose operations fall back to a miss when Redis is away."""

    _away_until = 0.0

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClients

    def _try(self, operation: str, call, fallback):
        if time.monotonic() < ForgivingRedisCache._away_until:
            return fallback
        try:
            return call()
        except RedisError:
            ForgivingRedisCache._away_until = time.monotonic() + REST_AFTER_ERROR
            log.warning("cache %s skipped: Redis unreachable", operation, exc_info=True)
            return fallback

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(
            "add", lambda: super(__class__, self).add(key, value, timeout, version), False
        )

    def get(self, key, default=None, version=None):
        value = self._try("get", lambda: super(__class__, self).get(key, default, version), default)
        return default if value is UNREADABLE else value

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._try("set", lambda: super(__class__, self).set(key, value, timeout, version), None)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(
            "touch", lambda: super(__class__, self).touch(key, timeout, version), False
        )

    def delete(self, key, version=None):
        return self._try("delete", lambda: super(__class__, self).delete(key, version), False)

    def get_many(self, keys, version=None):
        found = self._try("get_many", lambda: super(__class__, self).get_many(keys, version), {})
        return {key: value for key, value in found.items() if value is not UNREADABLE}

    def has_key(self, key, version=None):
        return self._try("has_key", lambda: super(__class__, self).has_key(key, version), False)

    def incr(self, key, delta=1, version=None):
        missing = object()
        value = self._try("incr", lambda: super(__class__, self).incr(key, delta, version), missing)
        if value is missing:
            # What Django's caches say of a key they do not hold.
            raise ValueError(f"Key '{key}' not found")
        return value

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(
            "set_many", lambda: super(__class__, self).set_many(data, timeout, version), list(data)
        )

    def delete_many(self, keys, version=None):
        self._try("delete_many", lambda: super(__class__, self).delete_many(keys, version), None)

    def clear(self):
        return self._try("clear", lambda: super(__class__, self).clear(), False)

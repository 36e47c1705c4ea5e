"""The Redis cache reads an unreachable or silent Redis as a miss, quickly."""

import socket
import time

import pytest

from config import cache as forgiving
from config.cache import ForgivingRedisCache


@pytest.fixture(autouse=True)
def rested():
    ForgivingRedisCache._away_until = 0.0
    yield
    ForgivingRedisCache._away_until = 0.0


def cache_at(port: int) -> ForgivingRedisCache:
    return ForgivingRedisCache(
        f"redis://127.0.0.1:{port}/0",
        {"OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5}},
    )


@pytest.fixture
def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return port


@pytest.fixture
def silent_port():
    """A server that accepts connections and never answers (a hung Redis)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield server.getsockname()[1]


def test_a_stopped_redis_is_a_miss_for_every_operation(closed_port):
    cache = cache_at(closed_port)
    assert cache.get("tag", "fallback") == "fallback"
    ForgivingRedisCache._away_until = 0.0
    assert cache.add("tag", 1) is False
    ForgivingRedisCache._away_until = 0.0
    cache.set("tag", 1)
    ForgivingRedisCache._away_until = 0.0
    assert cache.get_many(["a", "b"]) == {}
    ForgivingRedisCache._away_until = 0.0
    assert cache.set_many({"a": 1}) == ["a"]
    ForgivingRedisCache._away_until = 0.0
    assert cache.has_key("tag") is False
    ForgivingRedisCache._away_until = 0.0
    with pytest.raises(ValueError):
        cache.incr("hits")


def test_a_silent_redis_costs_one_timeout_then_nothing_for_a_while(silent_port):
    cache = cache_at(silent_port)
    started = time.monotonic()
    assert cache.get("tag") is None
    first = time.monotonic() - started
    started = time.monotonic()
    assert cache.get("tag") is None
    cache.set("tag", 1)
    after = time.monotonic() - started
    assert first < 1
    assert after < 0.05  # resting: Redis is not asked again at once


def test_redis_is_asked_again_after_the_rest(closed_port, monkeypatch):
    cache = cache_at(closed_port)
    asked = []
    cache.get("tag")
    monkeypatch.setattr(forgiving, "REST_AFTER_ERROR", 0.0)
    monkeypatch.setattr(
        ForgivingRedisCache,
        "_away_until",
        time.monotonic() - 1,
    )
    monkeypatch.setattr(
        "django.core.cache.backends.redis.RedisCache.get",
        lambda self, key, default=None, version=None: asked.append(key) or "cached",
    )
    assert cache.get("tag") == "cached"
    assert asked == ["tag"]


def test_one_redis_client_is_made_per_connection_pool(closed_port):
    cache = cache_at(closed_port)
    client = cache._cache.get_client()
    assert cache._cache.get_client(write=True) is client
    assert cache._cache.get_client("any key") is client
    assert client.connection_pool is cache._cache._get_connection_pool(False)


def test_threads_asking_first_at_once_share_one_pool_and_one_client(closed_port, monkeypatch):
    """The first calls of several threads at once: a pool slow to make (as under load)
    is still made once, and every thread gets the one client over it."""
    import threading

    cache = cache_at(closed_port)
    pools = cache._cache._pool_class
    made = []

    def slowly(*args, **kwargs):
        time.sleep(0.05)  # every thread is inside by now
        made.append(pools.from_url(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(cache._cache, "_pool_class", type("Slow", (), {"from_url": slowly}))
    start = threading.Barrier(8)
    clients = []

    def first_call():
        start.wait()
        clients.append(cache._cache.get_client())

    threads = [threading.Thread(target=first_call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and len({id(client) for client in clients}) == 1
    assert clients[0].connection_pool is made[0]


def test_the_shared_client_serves_several_threads_at_once(settings):
    """Against the real Redis of REDIS_URL: calls from several threads at once through the
    one client each get their own answers."""
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    from concurrent.futures import ThreadPoolExecutor

    cache = ForgivingRedisCache(settings.REDIS_URL, {})
    # Not under "live:": other tests' cleanup may delete those keys at any moment.
    keys = [f"test:shared-client:{n}" for n in range(40)]
    try:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda key: cache.set(key, key.upper(), 30), keys))
            found = list(pool.map(cache.get, keys))
        # (A Redis error would read as a miss and leave the cache resting: say so.)
        assert found == [key.upper() for key in keys], ForgivingRedisCache._away_until
        assert len(cache._cache._clients) == 1
    finally:
        cache.delete_many(keys)


# A value written by code that had a class this code no longer has (moved in an upgrade).
GONE = b"cno_such_module_anywhere\nThing\n)\x81."


def test_a_value_this_code_cannot_load_reads_as_a_miss():
    from config.cache import UNREADABLE, ForgivingSerializer

    with pytest.raises(ModuleNotFoundError):
        __import__("pickle").loads(GONE)
    serializer = ForgivingSerializer()
    assert serializer.loads(GONE) is UNREADABLE
    assert serializer.loads(serializer.dumps({"tags": "a"})) == {"tags": "a"}


def test_values_left_by_an_older_release_are_misses_and_the_rest_still_read(settings):
    """Against the real Redis of REDIS_URL: a get of such a value is the default, and
    get_many leaves it out and returns the others."""
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    cache = ForgivingRedisCache(settings.REDIS_URL, {})
    keys = ["test:older-release:gone", "test:older-release:kept"]
    try:
        cache.set(keys[1], "kept", 30)
        cache._cache.get_client(write=True).set(cache.make_and_validate_key(keys[0]), GONE)
        assert cache.get(keys[0], "default") == "default"
        assert cache.get_many(keys) == {keys[1]: "kept"}
    finally:
        cache.delete_many(keys)

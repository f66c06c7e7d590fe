"""get(key, ttl, loader) on a real Redis: single flight, XFetch, the write rule, Redis down."""

import threading
import time
from datetime import timedelta

import pytest
import redis as redis_module

from conftest import counted_reads, redis_millis
from refresher import RefresherClient
from refresher.protocol import cache_keys


class FixedDraw:
    """A "random" source that always draws the same number in [0, 1): uniform = 1 - it."""

    def __init__(self, value):
        self.value = value

    def random(self):
        return self.value


def test_plain_get_counts_hits_and_misses(redis, redis_url):
    redis.set("banner:home", "Hello")
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60) as client:
        assert client.get("banner:home") == "Hello"
        assert client.get("absent") is None
        client.flush()
    assert counted_reads(redis, "banner:home") == 1 and counted_reads(redis, "absent") == 1


def test_misses_are_the_reads_that_found_no_value(redis, redis_url):
    redis.set("present", "here")
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60) as client:
        assert client.get("present") == "here"
        assert client.get("present", 60, lambda: "never") == "here"
        assert client.stats().misses == 0, "hits are not misses"
        assert client.get("absent") is None
        assert client.get("cold", 60, lambda: "loaded") == "loaded"
        assert client.get("cold", 60, lambda: "again") == "loaded"
        stats = client.stats()
    assert (stats.misses, stats.loader_runs) == (2, 1)


def test_eight_threads_on_a_cold_key_run_the_loader_once(redis, redis_url):
    loads = []
    start = threading.Barrier(8)
    values = [None] * 8

    def loader():
        loads.append(1)
        time.sleep(0.2)  # the database's time: the others must wait for it
        return '{"id":7}'

    # A generous wait for the other loader: the test is about "once", not about a loaded machine.
    options = dict(flush_interval=60, wait_for_other_loader=5)
    with RefresherClient(redis_module.Redis.from_url(redis_url), **options) as first, RefresherClient(
        redis_module.Redis.from_url(redis_url), **options
    ) as second:
        # Two clients stand for two processes: the Redis lock, not only the in-process flight, counts.
        def caller(index):
            client = first if index % 2 == 0 else second
            start.wait()
            values[index] = client.get("product:7", timedelta(minutes=1), loader)

        threads = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert first.flush() and second.flush()
        runs = first.stats().loader_runs + second.stats().loader_runs
    assert values == ['{"id":7}'] * 8
    assert len(loads) == 1 and runs == 1
    assert counted_reads(redis, "product:7") == 8
    meta = redis.hgetall(cache_keys.meta_key("product:7"))
    assert meta["epoch"] == "0" and int(meta["expiresAt"]) - int(meta["computedAt"]) == 60_000
    assert int(meta["delta"]) >= 150
    assert redis.get(cache_keys.flight_lock_name("product:7")) is None, "lock released"


def test_a_lock_held_elsewhere_is_waited_for_then_loaded_anyway(redis, redis_url):
    # Another process (a Java client, say) holds the flight lock and never writes.
    redis.set(cache_keys.flight_lock_name("slow"), "someone-else", px=10_000)
    with RefresherClient(
        redis_module.Redis.from_url(redis_url), flush_interval=60, wait_for_other_loader=0.3, poll_interval=0.02
    ) as client:
        started = time.monotonic()
        assert client.get("slow", 30, lambda: "mine") == "mine"
        assert time.monotonic() - started >= 0.3
        assert client.stats().fallbacks == 1
    assert redis.get("slow") == "mine"


def test_the_other_loaders_value_is_taken_when_it_comes(redis, redis_url):
    redis.set(cache_keys.flight_lock_name("shared"), "someone-else", px=10_000)
    threading.Timer(0.1, lambda: redis.set("shared", "theirs")).start()
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60) as client:
        assert client.get("shared", 30, lambda: "mine") == "theirs"
        assert client.stats().loader_runs == 0


def test_xfetch_recomputes_a_clients_value_early(redis, redis_url):
    app = redis_module.Redis.from_url(redis_url)
    # Draw 0 means uniform 1, ln 1 = 0: never early. Draw 0.999999: -ln(1e-6) = 13.8 deltas early.
    with RefresherClient(app, flush_interval=60, random=FixedDraw(0.0)) as never_early:
        assert never_early.get("report", 60, lambda: "v1") == "v1"
        assert never_early.get("report", 60, lambda: "v2") == "v1", "fresh and not drawn: served"
    # delta 1 s, beta 100: up to 100 s * 13.8 early, so a value with 60 s left is recomputed.
    redis.hset(cache_keys.meta_key("report"), "delta", 1000)
    with RefresherClient(app, flush_interval=60, beta=100, random=FixedDraw(0.999999)) as eager:
        assert eager.get("report", 60, lambda: "v2") == "v2"
        stats = eager.stats()
    assert (stats.loader_runs, stats.early_recomputations) == (1, 1)
    assert redis.get("report") == "v2"


def test_a_fresh_value_of_the_service_is_never_overwritten(redis, redis_url):
    now = redis_millis(redis)
    redis.set("product:42", "from the service")
    redis.hset(
        cache_keys.meta_key("product:42"),
        mapping={"epoch": 3, "token": 9, "delta": 50, "computedAt": now, "expiresAt": now + 60_000},
    )
    # Even when XFetch would pick it: the service refreshes its own keys.
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60, beta=1e9, random=FixedDraw(0.999)) as client:
        assert client.get("product:42", 60, lambda: "from the client") == "from the service"
        assert client.stats().loader_runs == 0
    assert redis.get("product:42") == "from the service"
    assert redis.hget(cache_keys.meta_key("product:42"), "token") == "9"


def test_a_service_value_past_its_expiry_is_recomputed_and_its_fence_kept(redis, redis_url):
    now = redis_millis(redis)
    redis.set("product:43", "stale")
    redis.hset(cache_keys.meta_key("product:43"), mapping={"epoch": 3, "token": 9, "delta": 50, "expiresAt": now - 1})
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60) as client:
        assert client.get("product:43", 60, lambda: "fresh") == "fresh"
    meta = redis.hgetall(cache_keys.meta_key("product:43"))
    assert redis.get("product:43") == "fresh"
    assert (meta["epoch"], meta["token"]) == ("3", "9")


def test_a_loader_failure_reaches_the_caller_and_a_none_is_not_cached(redis, redis_url):
    def broken():
        raise KeyError("db down")

    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60) as client:
        with pytest.raises(KeyError):
            client.get("broken", 60, broken)
        assert client.get("nothing", 60, lambda: None) is None
    assert redis.get("nothing") is None and redis.get(cache_keys.flight_lock_name("broken")) is None


def test_with_redis_down_the_loader_is_called_directly():
    app = redis_module.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    with RefresherClient(app, flush_interval=60) as client:
        assert client.get("k", 60, lambda: "loaded") == "loaded"
        assert client.stats().degraded_loads == 1

"""Read counting on a real Redis: the buckets, bounded memory, and never counting a read twice."""

import logging
import threading
import time

import redis as redis_module

from answer_dropping_proxy import AnswerDroppingProxy
from conftest import counted_reads
from refresher import RefresherClient, scripts

MOMENT = 1_764_806_400.25  # a unix time in seconds, as time.time() gives it


def fixed_clock():
    return MOMENT


def settled(client):
    stats = client.stats().access
    return stats.recorded == stats.flushed + stats.dropped + stats.unconfirmed


def test_counts_land_in_the_shards_bucket_of_the_second_with_a_60s_ttl(redis, redis_url):
    app = redis_module.Redis.from_url(redis_url)
    with RefresherClient(app, flush_interval=60, clock=fixed_clock) as client:
        for _ in range(118):
            client.record("product:42")
        for _ in range(3):
            client.get("user:{7}:cart")
        assert client.flush()
        stats = client.stats().access
    assert (stats.recorded, stats.flushed, stats.dropped, stats.unconfirmed, stats.pending_keys) == (121, 121, 0, 0, 0)
    # crc32("product:42") % 16 == 9, crc32("user:{7}:cart") % 16 == 11 (docs/protocol.md)
    assert redis.hgetall("refresher:access:{9}:1764806400") == {"product:42": "118"}
    assert redis.hgetall("refresher:access:{11}:1764806400") == {"user:{7}:cart": "3"}
    assert 0 < redis.ttl("refresher:access:{9}:1764806400") <= 60
    assert 0 < redis.ttl("refresher:access:{11}:1764806400") <= 60
    assert sorted(redis.keys("refresher:access:*")) == ["refresher:access:{11}:1764806400", "refresher:access:{9}:1764806400"]


def test_the_background_thread_flushes_on_its_own(redis, redis_url):
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=0.05) as client:
        client.record("banner:home")
        deadline = time.monotonic() + 5
        while counted_reads(redis, "banner:home") == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert counted_reads(redis, "banner:home") == 1
        assert client.stats().access.pending_keys == 0


def test_memory_is_bounded_and_drops_are_counted(redis, redis_url):
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60, max_pending_keys=3) as client:
        for i in range(10):
            client.record(f"key:{i}")
            assert client.stats().access.pending_keys <= 3
        client.record("key:0")
        client.flush()
        stats = client.stats().access
    # The fourth key found the three slots taken: dropped (and an early flush was asked for).
    assert stats.dropped >= 1
    assert stats.recorded == 11 == stats.flushed + stats.dropped
    assert sum(counted_reads(redis, f"key:{i}") for i in range(10)) == stats.flushed


def test_many_threads_every_read_counted_once(redis, redis_url):
    client = RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=0.01)

    def reader(offset):
        for i in range(3000):
            client.record(f"hot:{(i + offset) % 40}")

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert client.close() == 0
    stats = client.stats().access
    assert stats.recorded == 12_000 == stats.flushed
    assert sum(counted_reads(redis, f"hot:{i}") for i in range(40)) == 12_000


def test_scripts_redis_does_not_have_are_sent_as_text(redis, redis_url):
    with RefresherClient(redis_module.Redis.from_url(redis_url), flush_interval=60) as client:
        client.record("a")
        assert client.flush()
        redis.script_flush()
        client.record("a")
        assert client.flush(), "NOSCRIPT: not run, sent again by EVAL"
        assert client.stats().access.flush_failures == 0
    assert counted_reads(redis, "a") == 2


def test_a_call_whose_answer_is_lost_is_counted_once_and_reported_unconfirmed(redis, redis_url):
    redis.script_load(scripts.ADD_COUNTS.text)  # the dropped answer is the script's, not a NOSCRIPT
    kwargs = redis.connection_pool.connection_kwargs
    proxy = AnswerDroppingProxy(kwargs.get("host", "127.0.0.1"), kwargs.get("port", 6379))
    try:
        app = redis_module.Redis(host="127.0.0.1", port=proxy.port, db=kwargs.get("db", 0), retry_on_timeout=True)
        with RefresherClient(app, flush_interval=60) as client:
            for _ in range(5):
                client.record("once")
            proxy.drop_next_answer()
            assert not client.flush()
            assert proxy.dropped == 1
            stats = client.stats().access
            assert (stats.flushed, stats.unconfirmed, stats.pending_keys, stats.flush_failures) == (0, 5, 0, 1)
            assert stats.failing
            assert client.flush(), "nothing left to send: not sent again"
            assert client.stats().access.failing, "an empty flush changes nothing"
            client.record("once")
            assert client.flush(), "the next flush, on a new connection"
            assert not client.stats().access.failing
    finally:
        proxy.close()
    # Redis ran the call whose answer was lost, once; the later read is added to it.
    assert counted_reads(redis, "once") == 6


def test_a_flush_timing_out_on_a_paused_redis_is_never_sent_again(redis, redis_url):
    app = redis_module.Redis.from_url(redis_url, socket_timeout=0.3, retry_on_timeout=True)
    with RefresherClient(app, flush_interval=60) as client:
        for _ in range(5):
            client.record("paused")
        assert client.flush()
        assert not client.stats().access.failing
        for _ in range(3):
            client.record("paused")
        redis.execute_command("CLIENT", "PAUSE", 1500)
        started = time.monotonic()
        assert not client.flush(), "the answer came after the socket timeout"
        assert time.monotonic() - started < 1.4
        stats = client.stats().access
        assert (stats.flushed, stats.unconfirmed, stats.pending_keys, stats.failing) == (5, 3, 0, True)
        time.sleep(1.7)  # the pause is over: whatever Redis received has run
        assert client.flush()
        assert settled(client)
        assert client.stats().access.failing, "nothing was pending: an empty flush changes nothing"
        client.record("after the pause")
        assert client.flush()
        assert not client.stats().access.failing
    # The 3 unconfirmed reads are in Redis once or not at all (redis-py closed the connection on
    # the timeout), never twice: the flush was not sent again.
    assert counted_reads(redis, "paused") in (5, 8)


def test_with_redis_unreachable_counts_wait_and_close_reports_them(caplog):
    # A port nothing listens on: every call surely did not run.
    with socket_closed_port() as port:
        app = redis_module.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5)
        client = RefresherClient(app, flush_interval=60)
        for _ in range(4):
            client.record("k")
        assert not client.flush()
        stats = client.stats().access
        assert (stats.flushed, stats.unconfirmed, stats.pending_keys, stats.flush_failures) == (0, 0, 1, 1)
        assert stats.failing
        with caplog.at_level(logging.WARNING, logger="refresher"):
            assert client.close() == 4
        assert "4 reads were not reported" in caplog.text
        stats = client.stats().access
        assert (stats.recorded, stats.dropped, stats.pending_keys) == (4, 4, 0)


class socket_closed_port:
    """A local port bound and closed again: connections to it are refused."""

    def __enter__(self):
        import socket

        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        return port

    def __exit__(self, *exc_info):
        return False

"""AsyncRefresherClient on redis.asyncio.Redis: the same behaviour, awaited."""

import asyncio
import time

import redis.asyncio as redis_asyncio

from conftest import counted_reads, redis_millis
from refresher import AsyncRefresherClient
from refresher.protocol import cache_keys


def run(coroutine):
    return asyncio.run(coroutine)


def test_counts_and_plain_reads(redis, redis_url):
    redis.set("banner:home", "Hello")

    async def scenario():
        app = redis_asyncio.Redis.from_url(redis_url)
        async with AsyncRefresherClient(app, flush_interval=60) as client:
            assert await client.get("banner:home") == "Hello"
            assert await client.get("absent") is None
            client.record("banner:home")
            assert await client.flush()
            stats = client.stats().access
        await app.close()
        return stats

    stats = run(scenario())
    assert (stats.recorded, stats.flushed) == (3, 3)
    assert counted_reads(redis, "banner:home") == 2 and counted_reads(redis, "absent") == 1


def test_misses_are_the_reads_that_found_no_value(redis, redis_url):
    redis.set("present", "here")

    async def scenario():
        app = redis_asyncio.Redis.from_url(redis_url, decode_responses=True)
        async with AsyncRefresherClient(app, flush_interval=60) as client:
            hits = [await client.get("present"), await client.get("present", 60, lambda: "never")]
            misses_after_hits = client.stats().misses
            absent = await client.get("absent")
            loaded = [await client.get("cold", 60, lambda: "loaded"), await client.get("cold", 60, lambda: "again")]
            stats = client.stats()
        await app.close()
        return hits, misses_after_hits, absent, loaded, stats

    hits, misses_after_hits, absent, loaded, stats = run(scenario())
    assert (hits, misses_after_hits, absent, loaded) == (["here", "here"], 0, None, ["loaded", "loaded"])
    assert (stats.misses, stats.loader_runs) == (2, 1)


def test_the_flusher_task_flushes_on_its_own(redis, redis_url):
    async def scenario():
        app = redis_asyncio.Redis.from_url(redis_url)
        client = AsyncRefresherClient(app, flush_interval=0.05)
        await client.get("ticker")
        deadline = time.monotonic() + 5
        while counted_reads(redis, "ticker") == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        lost = await client.aclose()
        await app.close()
        return lost

    assert run(scenario()) == 0
    assert counted_reads(redis, "ticker") == 1


def test_eight_tasks_on_a_cold_key_run_the_loader_once(redis, redis_url):
    loads = []

    async def loader():
        loads.append(1)
        await asyncio.sleep(0.2)
        return '{"id":8}'

    def sync_loader():  # a plain function works too
        loads.append(1)
        return "never"

    async def scenario():
        app = redis_asyncio.Redis.from_url(redis_url)
        options = dict(flush_interval=60, wait_for_other_loader=5)
        async with AsyncRefresherClient(app, **options) as first, AsyncRefresherClient(app, **options) as second:
            callers = [
                (first if i % 2 == 0 else second).get("product:8", 60, loader) for i in range(8)
            ]
            values = await asyncio.gather(*callers)
            again = await first.get("product:8", 60, sync_loader)
            await first.flush()
            await second.flush()
        await app.close()
        return values, again

    values, again = run(scenario())
    assert values == ['{"id":8}'] * 8 and again == '{"id":8}'
    assert len(loads) == 1
    assert counted_reads(redis, "product:8") == 9
    assert redis.hget(cache_keys.meta_key("product:8"), "epoch") == "0"


def test_a_sync_loader_and_a_fresh_value_of_the_service(redis, redis_url):
    now = redis_millis(redis)
    redis.set("product:42", "from the service")
    redis.hset(cache_keys.meta_key("product:42"), mapping={"epoch": 3, "token": 9, "delta": 50, "expiresAt": now + 60_000})

    async def scenario():
        app = redis_asyncio.Redis.from_url(redis_url, decode_responses=True)
        async with AsyncRefresherClient(app, flush_interval=60) as client:
            served = await client.get("product:42", 60, lambda: "from the client")
            loaded = await client.get("product:44", 60, lambda: "loaded")
            stats = client.stats()
        await app.close()
        return served, loaded, stats

    served, loaded, stats = run(scenario())
    assert (served, loaded, stats.loader_runs) == ("from the service", "loaded", 1)
    assert redis.get("product:42") == "from the service" and redis.get("product:44") == "loaded"


def test_xfetch_recomputes_early(redis, redis_url):
    class AlmostOne:
        def random(self):
            return 0.999999

    async def scenario():
        app = redis_asyncio.Redis.from_url(redis_url)
        async with AsyncRefresherClient(app, flush_interval=60, beta=100, random=AlmostOne()) as client:
            first = await client.get("report", 60, lambda: "v1")
            redis.hset(cache_keys.meta_key("report"), "delta", 1000)
            second = await client.get("report", 60, lambda: "v2")
            stats = client.stats()
        await app.close()
        return first, second, stats

    first, second, stats = run(scenario())
    assert (first, second, stats.loader_runs, stats.early_recomputations) == ("v1", "v2", 2, 1)


def test_with_redis_down_the_loader_is_called_directly():
    async def scenario():
        app = redis_asyncio.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
        client = AsyncRefresherClient(app, flush_interval=60)
        value = await client.get("k", 60, lambda: "loaded")
        stats = client.stats()
        lost = await client.close()
        return value, stats, lost, client.stats().access.failing

    value, stats, lost, failing = run(scenario())
    assert (value, stats.degraded_loads, lost) == ("loaded", 1, 1)
    assert not stats.access.failing and failing, "the flush at close failed"

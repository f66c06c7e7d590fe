"""RefresherClient on redis.cluster.RedisCluster.

Needs REFRESHER_TEST_REDIS_CLUSTER_URL, a node of a Redis Cluster (the Java test that runs this
suite starts three masters), and fails without it, never skips: a suite that silently skips proves
nothing.
"""

import os
import threading
import time

import pytest

from refresher import AsyncRefresherClient, RefresherClient
from refresher.protocol import cache_keys

CLUSTER_URL = os.environ.get("REFRESHER_TEST_REDIS_CLUSTER_URL")


def test_the_asyncio_cluster_client_is_refused_with_a_clear_message():
    from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster

    with pytest.raises(TypeError, match="RedisCluster"):
        AsyncRefresherClient(AsyncRedisCluster(host="127.0.0.1", port=1))


@pytest.fixture
def cluster():
    if not CLUSTER_URL:
        pytest.fail("REFRESHER_TEST_REDIS_CLUSTER_URL is not set: these tests need a Redis Cluster node, e.g. redis://127.0.0.1:7000")
    from redis.cluster import RedisCluster

    client = RedisCluster.from_url(CLUSTER_URL, decode_responses=True)
    client.flushall()
    client.script_flush()
    yield client
    client.close()


def test_single_flight_counting_and_scripts_on_a_cluster(cluster):
    loads = []

    def loader():
        loads.append(1)
        time.sleep(0.1)
        return "cart"

    values = [None] * 8
    with RefresherClient(cluster, flush_interval=60) as client:

        def caller(index):
            values[index] = client.get("user:{42}:cart", 60, loader)

        threads = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        for i in range(3000):  # several shards, several calls a shard
            client.record(f"k{i}")
        assert client.flush()
        cluster.script_flush()
        client.record("after-script-flush")
        assert client.flush(), "NOSCRIPT on the node: sent again by EVAL"
        stats = client.stats()
    assert values == ["cart"] * 8 and len(loads) == 1
    assert cluster.hget(cache_keys.meta_key("user:{42}:cart"), "epoch") == "0"
    assert (stats.access.flushed, stats.access.unconfirmed, stats.access.flush_failures) == (3009, 0, 0)
    total = 0
    for bucket in cluster.keys("refresher:access:*", target_nodes=cluster.ALL_NODES):
        total += sum(int(count) for count in cluster.hvals(bucket))
    assert total == 3009

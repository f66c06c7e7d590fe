"""The client against the conformance corpus (protocol/vectors): every case's inputs give the
case's outputs, as in the Java client's ProtocolVectorsTest and DriverContract."""

import pytest

from conftest import read_vectors, redis_millis
from refresher import early_recompute, scripts
from refresher.driver.sync_driver import SyncDriver
from refresher.protocol import access_protocol, cache_keys
from refresher.read_decision import ReadDecision, StoredValue
from refresher.value_store import ValueStore


def test_keys_slots_shards_and_companion_keys():
    cases = read_vectors("keys.json")["cases"]
    assert len(cases) >= 10
    for case in cases:
        key = case["key"]
        assert cache_keys.slot(key) == case["slot"], f"slot of {key!r}"
        assert access_protocol.shard_of(key) == case["shard"], f"shard of {key!r}"
        assert cache_keys.meta_key(key) == case["metaKey"], f"metaKey of {key!r}"
        assert cache_keys.lock_name(key) == case["lockName"], f"lockName of {key!r}"
        assert cache_keys.flight_lock_name(key) == case["flightLockName"], f"flightLockName of {key!r}"
        assert cache_keys.slot(cache_keys.meta_key(key)) == cache_keys.slot(key), f"metaKey of {key!r} in its slot"


def test_buckets_seconds_and_names():
    document = read_vectors("buckets.json")
    assert document["prefix"] == access_protocol.PREFIX
    assert document["shards"] == access_protocol.SHARDS
    assert document["bucketTtlSeconds"] == access_protocol.BUCKET_TTL_SECONDS
    assert document["cases"]
    for case in document["cases"]:
        second = access_protocol.second_of(case["epochMillis"])
        assert second == case["second"], f"second of {case}"
        assert access_protocol.bucket_key(case["shard"], second) == case["bucketKey"], f"bucket of {case}"


def test_xfetch_decisions():
    cases = read_vectors("xfetch.json")["cases"]
    assert len(cases) > 100
    for case in cases:
        decided = early_recompute.decide(
            case["nowMillis"], case["deltaMillis"], case["expiresAtMillis"], case["beta"], case["uniform"]
        )
        assert decided == case["recompute"], f"XFetch on {case}"


def test_read_decisions():
    cases = read_vectors("read-decisions.json")["cases"]
    assert cases
    for case in cases:
        stored = StoredValue(
            case["value"],
            case["deltaMillis"],
            case["expiresAtMillis"],
            case["epoch"],
            case["redisNowMillis"],
        )

        def draw(now, delta, expires_at, case=case):
            return early_recompute.decide(now, delta, expires_at, case["beta"], case["uniform"])

        assert ReadDecision.of(stored, draw).value == case["decision"], f"decision on {case}"


def test_scripts_are_these_texts():
    ours = {script.name: script for script in scripts.ALL}
    theirs = read_vectors("scripts.json")["scripts"]
    assert sorted(script["name"] for script in theirs) == sorted(ours)
    for script in theirs:
        mine = ours[script["name"]]
        assert mine.text == script["text"], f"text of {mine.name}"
        assert mine.sha1 == script["sha1"], f"SHA-1 of {mine.name}"
        assert scripts.sha1_of(script["text"]) == script["sha1"], f"the corpus's own SHA-1 of {mine.name}"


def test_write_rule_as_the_corpus_says(redis):
    document = read_vectors("write-rule.json")
    key = document["key"]
    meta = cache_keys.meta_key(key)
    write = document["write"]
    ttl = write["ttlMillis"]
    store = ValueStore(SyncDriver(redis))
    assert len(document["cases"]) >= 8
    for case in document["cases"]:
        name = case["name"]
        redis.flushdb()
        now = redis_millis(redis)
        before = case["before"]
        if before["value"] is not None:
            redis.set(key, before["value"])
        for field, value in before["meta"].items():
            redis.hset(meta, field, str(now + value["fromNowMillis"]) if isinstance(value, dict) else value)
        if before["metaPttlMillis"] is not None:
            redis.pexpire(meta, before["metaPttlMillis"])

        written = store.write(key, write["value"], ttl, write["deltaMillis"])

        assert written == case["written"], f"written: {name}"
        after = case["after"]
        if written:
            assert redis.get(key) == write["value"], f"value: {name}"
            assert ttl - 10_000 <= redis.pttl(key) <= ttl, f"value's TTL: {name}"
            computed_at = int(redis.hget(meta, "computedAt"))
            assert now <= computed_at <= now + 10_000, f"computedAt, Redis's time: {name}"
            assert redis.hget(meta, "expiresAt") == str(computed_at + ttl), f"expiresAt: {name}"
        else:
            assert redis.get(key) == before["value"], f"value left: {name}"
        for field, value in after["meta"].items():
            assert redis.hget(meta, field) == value, f"{field} after: {name}"
        for field in after["metaAbsent"]:
            assert redis.hget(meta, field) is None, f"{field} gone: {name}"
        if after["metaPttlAtLeastMillis"] is not None:
            assert redis.pttl(meta) >= after["metaPttlAtLeastMillis"], f"metadata's TTL: {name}"


@pytest.mark.parametrize("script", scripts.ALL, ids=lambda script: script.name)
def test_redis_names_each_script_by_the_corpus_sha1(redis, script):
    # What EVALSHA finds: the SHA-1 Redis computes of the text sent.
    assert redis.script_load(script.text) == script.sha1

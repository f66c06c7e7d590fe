"""The acceptance driver, run as the Java integration test runs it: a separate process."""

import json
import os
import subprocess
import sys
import time

from conftest import HERE, SOURCES, counted_reads
from refresher.protocol import cache_keys

DRIVER = HERE / "acceptance_driver.py"


def run_driver(*arguments, timeout=60):
    environment = dict(os.environ, PYTHONPATH=str(SOURCES))
    finished = subprocess.run(
        [sys.executable, str(DRIVER), *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.strip().splitlines()
    assert len(lines) == 1, f"one JSON line expected, got {finished.stdout!r}"
    return json.loads(lines[0])


def test_reads_paced_and_counted(redis, redis_url):
    redis.set("banner:home", "Hello")
    assert run_driver("reads", "--redis", redis_url, "--key", "banner:home", "--rate", "40", "--seconds", "1") == {
        "reads": 40,
        "misses": 0,
    }
    assert run_driver("reads", "--redis", redis_url, "--key", "nothing", "--rate", "20", "--seconds", "0.5") == {
        "reads": 10,
        "misses": 10,
    }
    assert counted_reads(redis, "banner:home") == 40
    assert counted_reads(redis, "nothing") == 10


def test_flight_loads_once_for_all_callers(redis, redis_url):
    started = time.monotonic()
    result = run_driver(
        "flight", "--redis", redis_url, "--key", "product:9", "--callers", "6",
        "--ttl-ms", "60000", "--value", "{\"id\":9}", "--loader-ms", "200",
    )
    assert result == {"loads": 1, "values": ['{"id":9}'] * 6}
    assert redis.get("product:9") == '{"id":9}'
    # The value was written at some point of the driver's run; a busy machine may take seconds to
    # start a process, so the lower bound is the TTL less the time since the run began.
    elapsed_ms = (time.monotonic() - started) * 1000
    assert 60_000 - elapsed_ms <= redis.pttl("product:9") <= 60_000
    assert redis.hget(cache_keys.meta_key("product:9"), "epoch") == "0"
    # A second process finds the value: no load.
    again = run_driver(
        "flight", "--redis", redis_url, "--key", "product:9", "--callers", "2",
        "--ttl-ms", "60000", "--value", "other", "--loader-ms", "0",
    )
    assert again == {"loads": 0, "values": ['{"id":9}'] * 2}


def test_read_prints_the_value_or_null(redis, redis_url):
    redis.set("greeting", "grüß dich")
    assert run_driver("read", "--redis", redis_url, "--key", "greeting") == {"value": "grüß dich"}
    assert run_driver("read", "--redis", redis_url, "--key", "absent") == {"value": None}
    assert counted_reads(redis, "greeting") == 1

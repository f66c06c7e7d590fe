"""Shared fixtures: the conformance corpus, and the Redis the integration tests run on.

The integration tests need ``REFRESHER_TEST_REDIS_URL`` (e.g. redis://127.0.0.1:16391/0) and fail,
never skip, without it: CI sets it, and a suite that silently skips them proves nothing. They
empty that database (FLUSHDB): give them a Redis of their own.
"""

import json
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
SOURCES = HERE.parent / "src"
# Run from the repository's root or from clients/python, installed or not.
if str(SOURCES) not in sys.path:
    sys.path.insert(0, str(SOURCES))

REDIS_URL_VARIABLE = "REFRESHER_TEST_REDIS_URL"


def vectors_directory() -> pathlib.Path:
    configured = os.environ.get("REFRESHER_VECTORS")
    return pathlib.Path(configured) if configured else HERE.parent.parent.parent / "protocol" / "vectors"


def read_vectors(name: str):
    path = vectors_directory() / name
    if not path.is_file():
        pytest.fail(f"conformance file {path} not found (set REFRESHER_VECTORS to protocol/vectors)")
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def required_redis_url() -> str:
    url = os.environ.get(REDIS_URL_VARIABLE)
    if not url:
        pytest.fail(
            f"{REDIS_URL_VARIABLE} is not set: the integration tests need a Redis of their own"
            f" (they empty its database), e.g. {REDIS_URL_VARIABLE}=redis://127.0.0.1:16391/0",
            pytrace=False,
        )
    return url


@pytest.fixture
def redis_url() -> str:
    return required_redis_url()


@pytest.fixture
def redis(redis_url):
    """A plain client on an emptied database, for setting up and checking."""
    import redis as redis_module

    client = redis_module.Redis.from_url(redis_url, decode_responses=True)
    client.flushdb()
    yield client
    client.close()


def redis_millis(client) -> int:
    """Redis's clock, epoch ms: the protocol's times are on it."""
    seconds, micros = client.time()
    return seconds * 1000 + micros // 1000


def counted_reads(client, key: str) -> int:
    """The reads of key in every access bucket."""
    total = 0
    for bucket in client.keys("refresher:access:*"):
        total += int(client.hget(bucket, key) or 0)
    return total

"""The client's Lua scripts, byte for byte those of the Java client (protocol/vectors/scripts.json).

Java and Python callers of one key run the very same scripts: Redis names a script by its SHA-1,
so ``EVALSHA`` of one client finds the script the other loaded.
"""

import hashlib
from dataclasses import dataclass, field

from refresher.protocol import meta_fields as fields


@dataclass(frozen=True)
class RedisScript:
    """A Lua script and the SHA-1 that ``EVALSHA`` names it by."""

    name: str
    text: str
    read_only: bool
    sha1: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "sha1", sha1_of(self.text))


def sha1_of(text: str) -> str:
    """Redis's name for a script: the lower-case hex SHA-1 of its UTF-8 text."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


# Redis's clock in epoch ms, as a script reads it: the protocol's times are on it, and a reader or
# writer judging them by its own clock would act early or late by that clock's error.
_REDIS_NOW = (
    "local time = redis.call('TIME')\n"
    "local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)\n"
)

#: KEYS value, meta. Returns {value, delta, expiresAt, epoch, Redis's time in ms}, nil for the absent.
READ = RedisScript(
    "read",
    _REDIS_NOW
    + f"local meta = redis.call('HMGET', KEYS[2], '{fields.DELTA}', '{fields.EXPIRES_AT}', '{fields.EPOCH}')\n"
    + "return {redis.call('GET', KEYS[1]), meta[1], meta[2], meta[3], now}\n",
    read_only=True,
)

#: KEYS value, meta. ARGV value, ttl ms, delta ms. 1 written, 0 refused (a fresh value of the
#: service's is there). The fence and tombstone are kept; the metadata's TTL only grows.
WRITE = RedisScript(
    "write",
    _REDIS_NOW
    + f"local stored = redis.call('HMGET', KEYS[2], '{fields.EPOCH}', '{fields.EXPIRES_AT}')\n"
    "local epoch = tonumber(stored[1] or '0') or 0\n"
    "if epoch > 0 and (tonumber(stored[2] or '0') or 0) > now and redis.call('EXISTS', KEYS[1]) == 1 then\n"
    "  return 0\n"
    "end\n"
    "local ttl = tonumber(ARGV[2])\n"
    "redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)\n"
    f"redis.call('HSET', KEYS[2], '{fields.COMPUTED_AT}', now, '{fields.DELTA}', ARGV[3], "
    f"'{fields.EXPIRES_AT}', now + ttl,\n"
    f"  '{fields.SIZE}', string.len(ARGV[1]))\n"
    f"redis.call('HDEL', KEYS[2], '{fields.VALIDATOR}', '{fields.REVALIDATED_AT}')\n"
    "if not stored[1] then\n"
    f"  redis.call('HSET', KEYS[2], '{fields.EPOCH}', '0', '{fields.TOKEN}', '0')\n"
    "end\n"
    "if redis.call('PTTL', KEYS[2]) < ttl then\n"
    "  redis.call('PEXPIRE', KEYS[2], ttl)\n"
    "end\n"
    "return 1\n",
    read_only=False,
)

#: KEYS lock. ARGV token. Deletes the lock only while it is still ours (the lease may have run out).
RELEASE = RedisScript(
    "release",
    "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
    "  return redis.call('DEL', KEYS[1])\n"
    "end\n"
    "return 0\n",
    read_only=False,
)

#: KEYS bucket. ARGV TTL seconds, then field, count, field, count, ... One shard's HINCRBYs and
#: its EXPIRE in one call: one bucket key, so one cluster slot.
ADD_COUNTS = RedisScript(
    "add-counts",
    "for i = 2, #ARGV, 2 do\n"
    "  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])\n"
    "end\n"
    "redis.call('EXPIRE', KEYS[1], ARGV[1])\n"
    "return 1\n",
    read_only=False,
)

ALL = (READ, WRITE, RELEASE, ADD_COUNTS)

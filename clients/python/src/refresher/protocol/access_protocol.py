"""Where applications report reads (docs/protocol.md, "Access counting").

Reads are added with ``HINCRBY`` to a hash named after the unix second of the report and one of
16 shards, ``refresher:access:{<shard>}:<second>``, which expires after 60 s. The shard is
``CRC-32(key) mod 16`` (any shard is correct: the service sums a key over all of them; the CRC only
spreads the load), and the hash tag puts each shard in its own cluster slot.
"""

import zlib

PREFIX = "refresher:access:"
SHARDS = 16
#: How long a bucket lives when the service does not consume it (it deletes consumed ones).
BUCKET_TTL_SECONDS = 60


def bucket_key(shard: int, unix_second: int) -> str:
    if not 0 <= shard < SHARDS:
        raise ValueError(f"shard must be in 0..{SHARDS - 1}, was {shard}")
    return f"{PREFIX}{{{shard}}}:{unix_second}"


def shard_of(key: str) -> int:
    """CRC-32 (zlib's, as java.util.zip.CRC32) of the key's UTF-8 bytes, mod 16."""
    return zlib.crc32(key.encode("utf-8")) % SHARDS


def second_of(epoch_millis: int) -> int:
    """The bucket second of a moment in epoch ms: floor(ms / 1000), also before 1970."""
    return epoch_millis // 1000

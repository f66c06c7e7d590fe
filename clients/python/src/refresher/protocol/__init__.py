"""The Refresher protocol's names and numbers (docs/protocol.md): no I/O, no Redis library."""

from refresher.protocol import access_protocol, cache_keys, meta_fields, not_found
from refresher.protocol.access_protocol import bucket_key, second_of, shard_of
from refresher.protocol.cache_keys import flight_lock_name, hash_tag, lock_name, meta_key, slot
from refresher.protocol.not_found import NOT_FOUND_MARKER, is_not_found

__all__ = [
    "access_protocol",
    "cache_keys",
    "meta_fields",
    "not_found",
    "NOT_FOUND_MARKER",
    "is_not_found",
    "bucket_key",
    "second_of",
    "shard_of",
    "flight_lock_name",
    "hash_tag",
    "lock_name",
    "meta_key",
    "slot",
]

"""Names of Refresher's own keys that sit beside an application key, in the same cluster slot.

Redis Cluster hashes only the part inside the first ``{...}`` of a key (when that part is not
empty), else the whole key. So a key with a hash tag (``user:{42}:cart``) lends its tag to the
companion (``refresher:meta:{42}:user:{42}:cart``); a key without one and without ``}`` is wrapped
whole (``refresher:meta:{product:42}``); and a key with no valid tag that contains ``}`` (wrapping
it would cut the tag short) gets a short tag chosen to hash to the key's own slot.
"""

import threading
from typing import List, Optional

from refresher.protocol.crc16 import crc16

META_PREFIX = "refresher:meta:"
LOCK_PREFIX = "refresher:lock:"
#: Prefix of the short lock a client takes so that one process runs a key's loader at a time.
FLIGHT_PREFIX = "refresher:flight:"
SLOTS = 16384


def meta_key(key: str) -> str:
    return _companion(META_PREFIX, key)


def lock_name(key: str) -> str:
    """The service's refresh lock of a key (clients only need its name to agree on slots)."""
    return _companion(LOCK_PREFIX, key)


def flight_lock_name(key: str) -> str:
    """The single-flight lock clients take while they load a key themselves."""
    return _companion(FLIGHT_PREFIX, key)


def hash_tag(key: str) -> Optional[str]:
    """The hash tag Redis uses for the key, or None when it hashes the whole key."""
    opening = key.find("{")
    if opening < 0:
        return None
    closing = key.find("}", opening + 1)
    if closing < 0 or closing == opening + 1:
        return None
    return key[opening + 1 : closing]


def slot(key: str) -> int:
    """The cluster slot of a key, as Redis computes it."""
    tag = hash_tag(key)
    hashed = tag if tag is not None else key
    return crc16(hashed.encode("utf-8")) % SLOTS


def _companion(prefix: str, key: str) -> str:
    tag = hash_tag(key)
    if tag is not None:
        return prefix + "{" + tag + "}:" + key
    if "}" not in key:
        return prefix + "{" + key + "}"
    return prefix + "{" + _tag_for_slot(slot(key)) + "}:" + key


_tag_table: Optional[List[str]] = None
_tag_table_lock = threading.Lock()


def _tag_for_slot(wanted: int) -> str:
    global _tag_table
    table = _tag_table
    if table is None:
        with _tag_table_lock:
            if _tag_table is None:
                _tag_table = _build_tag_table()
            table = _tag_table
    return table[wanted]


def _build_tag_table() -> List[str]:
    """For each slot, the smallest decimal number that hashes to it (the Java client's choice)."""
    table: List[Optional[str]] = [None] * SLOTS
    found = 0
    candidate = 0
    while found < SLOTS:
        text = str(candidate)
        index = crc16(text.encode("ascii")) % SLOTS
        if table[index] is None:
            table[index] = text
            found += 1
        candidate += 1
    return table  # type: ignore[return-value]

"""Read counts per key that have not reached Redis yet: exact, and never more than max_keys keys."""

import threading
from typing import Dict


class PendingCounts:
    """A dict under a lock. Java needs lock-free counters to stay cheap under contention; in
    CPython one short critical section per read is cheaper than anything cleverer, and exact."""

    def __init__(self, max_keys: int):
        if max_keys < 1:
            raise ValueError(f"max_keys must be at least 1, was {max_keys}")
        self._max_keys = max_keys
        self._counts: Dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, key: str, count: int) -> bool:
        """Adds count reads of key; False, changing nothing, when key is new and all slots are taken."""
        with self._lock:
            current = self._counts.get(key)
            if current is None:
                if len(self._counts) >= self._max_keys:
                    return False
                self._counts[key] = count
            else:
                self._counts[key] = current + count
            return True

    def drain(self) -> Dict[str, int]:
        """Takes every pending count out, freeing every slot."""
        with self._lock:
            drained, self._counts = self._counts, {}
            return drained

    @property
    def pending_keys(self) -> int:
        return len(self._counts)

    @property
    def max_keys(self) -> int:
        return self._max_keys

"""The figures ``stats()`` returns (the Java client's ``Stats``, in snake_case)."""

import threading
from dataclasses import dataclass

from refresher.access_counter import AccessStats


@dataclass(frozen=True)
class Stats:
    """The access counter's figures, and how often values were computed here and why."""

    #: recorded, flushed, dropped, unconfirmed, flush_failures, pending_keys, failing
    access: AccessStats
    #: reads that found no value: get(key) returning None, get(key, ttl, loader) having to load
    misses: int
    #: loader calls by this client
    loader_runs: int
    #: loader runs started by XFetch
    early_recomputations: int
    #: loader runs after waiting in vain for another process's loader
    fallbacks: int
    #: loader runs because Redis failed
    degraded_loads: int


class LoadFigures:
    """The misses and loader counts, bumped from any thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self.misses = 0
        self.loader_runs = 0
        self.early_recomputations = 0
        self.fallbacks = 0
        self.degraded_loads = 0

    def add(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    def stats(self, access: AccessStats) -> Stats:
        with self._lock:
            return Stats(
                access, self.misses, self.loader_runs, self.early_recomputations, self.fallbacks, self.degraded_loads
            )

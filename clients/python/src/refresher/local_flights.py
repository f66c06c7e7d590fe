"""The in-process half of single flight: concurrent callers for one key share one result, so
that one thread (or task) per process works on a key and the others wait for it."""

import asyncio
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Dict, Optional


@dataclass(frozen=True)
class Flight:
    """One caller's place in a key's flight: the leader does the work, followers await it."""

    key: str
    result: Any  # a concurrent.futures.Future or an asyncio.Future
    leader: bool


class LocalFlights:
    def __init__(self):
        self._in_flight: Dict[str, Future] = {}
        self._lock = threading.Lock()

    def join(self, key: str) -> Flight:
        with self._lock:
            existing = self._in_flight.get(key)
            if existing is not None:
                return Flight(key, existing, False)
            mine: Future = Future()
            self._in_flight[key] = mine
            return Flight(key, mine, True)

    def land(self, flight: Flight, value: Optional[str]) -> None:
        """Ends the leader's flight; it leaves the map first, so later callers start afresh."""
        self._leave(flight)
        flight.result.set_result(value)

    def crash(self, flight: Flight, failure: BaseException) -> None:
        self._leave(flight)
        flight.result.set_exception(failure)

    @staticmethod
    def wait(flight: Flight) -> Optional[str]:
        """The leader's value, or its exception raised in the follower's thread."""
        return flight.result.result()

    def _leave(self, flight: Flight) -> None:
        with self._lock:
            if self._in_flight.get(flight.key) is flight.result:
                del self._in_flight[flight.key]


class AsyncLocalFlights:
    """The same on one event loop: no lock, nothing runs between two awaits."""

    def __init__(self):
        self._in_flight: Dict[str, asyncio.Future] = {}

    def join(self, key: str) -> Flight:
        existing = self._in_flight.get(key)
        if existing is not None:
            return Flight(key, existing, False)
        mine = asyncio.get_running_loop().create_future()
        self._in_flight[key] = mine
        return Flight(key, mine, True)

    def land(self, flight: Flight, value: Optional[str]) -> None:
        self._leave(flight)
        if not flight.result.done():
            flight.result.set_result(value)

    def crash(self, flight: Flight, failure: BaseException) -> None:
        self._leave(flight)
        if not flight.result.done():
            flight.result.set_exception(failure)
            # Followers may be gone (cancelled): the leader's caller sees the failure anyway.
            flight.result.exception()

    @staticmethod
    async def wait(flight: Flight) -> Optional[str]:
        # Shielded: a follower cancelled must not cancel the leader's result for the others.
        return await asyncio.shield(flight.result)

    def _leave(self, flight: Flight) -> None:
        if self._in_flight.get(flight.key) is flight.result:
            del self._in_flight[flight.key]

"""``AsyncRefresherClient``: the asyncio twin of :class:`refresher.RefresherClient`, on the
application's ``redis.asyncio.Redis``. Same behaviour, same options, same stats; the coroutines are
awaited, the loader may be a plain function or a coroutine function, and the counts are flushed by
an asyncio task instead of a thread. One client per event loop."""

import asyncio
import inspect
import logging
import time
from typing import Awaitable, Callable, Optional, Union

from refresher.access_counter import DEFAULT_FLUSH_INTERVAL, DEFAULT_MAX_PENDING_KEYS, AsyncAccessCounter
from refresher.driver.async_driver import AsyncDriver
from refresher.early_recompute import DEFAULT_BETA, EarlyRecompute
from refresher.flight_lock import AsyncFlightLock
from refresher.local_flights import AsyncLocalFlights
from refresher.options import (
    DEFAULT_POLL_INTERVAL,
    DEFAULT_SINGLE_FLIGHT_LEASE,
    DEFAULT_WAIT_FOR_OTHER_LOADER,
    WARNING_INTERVAL,
    FlightOptions,
    checked_value,
    ttl_millis,
)
from refresher.protocol.not_found import visible
from refresher.rate_limited_warning import RateLimitedWarning
from refresher.read_decision import ReadDecision
from refresher.stats import LoadFigures, Stats
from refresher.value_store import AsyncValueStore

LOG = logging.getLogger(__name__)

AsyncLoader = Callable[[], Union[Optional[str], Awaitable[Optional[str]]]]


class AsyncRefresherClient:
    """The asyncio client: ``await client.get(key)``, ``await client.get(key, ttl, loader)``.

    Every read is counted for the Refresher service, and ``get(key, ttl, loader)`` protects the
    keys the service does not keep hot from stampedes: XFetch for values about to expire, and a
    single-flight loader across tasks and processes for missing ones. The application's Redis
    client is used as it is and left open by :meth:`aclose`. ``record`` and ``stats`` do no I/O
    and are plain methods.
    """

    def __init__(
        self,
        redis_client,
        *,
        flush_interval=DEFAULT_FLUSH_INTERVAL,
        max_pending_keys: int = DEFAULT_MAX_PENDING_KEYS,
        beta: float = DEFAULT_BETA,
        single_flight_lease=DEFAULT_SINGLE_FLIGHT_LEASE,
        wait_for_other_loader=DEFAULT_WAIT_FOR_OTHER_LOADER,
        poll_interval=DEFAULT_POLL_INTERVAL,
        random=None,
        clock: Optional[Callable[[], float]] = None,
    ):
        self._driver = AsyncDriver(redis_client)
        self._early = EarlyRecompute(beta, random)
        self._flight = FlightOptions.of(single_flight_lease, wait_for_other_loader, poll_interval)
        self._store = AsyncValueStore(self._driver)
        self._flight_lock = AsyncFlightLock(self._driver, self._flight.lease_millis)
        self._flights = AsyncLocalFlights()
        self._figures = LoadFigures()
        self._redis_warning = RateLimitedWarning(LOG, WARNING_INTERVAL)
        self._closed = False
        # Its flusher task starts with the first call made inside the event loop.
        self._counter = AsyncAccessCounter(
            self._driver, flush_interval=flush_interval, max_pending_keys=max_pending_keys, clock=clock
        )

    async def get(self, key: str, ttl=None, loader: Optional[AsyncLoader] = None) -> Optional[str]:
        """``get(key)``: ``GET key``, counted as a read; None when absent. Redis errors propagate,
        as they would from the application's own client.

        ``get(key, ttl, loader)``: the value of key, computed by ``loader`` and cached for ``ttl``
        (a ``timedelta`` or seconds) when absent; early recomputation and single flight as the
        docs say. When Redis fails, the loader is called directly: the cache being down never
        fails a read. The loader's exceptions reach every caller that has no value to return.
        """
        if ttl is None and loader is None:
            self._counter.record(key)
            value = await self._store.get(key)
            if value is None:
                self._figures.add("misses")
            return visible(value)
        if ttl is None or loader is None:
            raise TypeError("get(key, ttl, loader) needs both ttl and loader (or neither, for a plain read)")
        if not callable(loader):
            raise TypeError("loader must be callable")
        ttl_ms = ttl_millis(ttl)
        self._counter.record(key)
        try:
            stored = await self._store.read(key)
        except Exception as failure:
            if not self._driver.is_redis_failure(failure):
                raise
            return await self._load_without_cache(key, loader, failure)
        decision = ReadDecision.of(stored, self._early.should_recompute)
        if decision is ReadDecision.SERVE:
            return stored.value
        if decision is ReadDecision.ABSENT:
            return None
        if decision is ReadDecision.LOAD:
            self._figures.add("misses")
            return await self._load_once(key, ttl_ms, loader)
        return visible(
            await self._recompute_if_first(
                key, ttl_ms, loader, stored.value, early=decision is ReadDecision.RECOMPUTE_EARLY
            )
        )

    def record(self, key: str) -> None:
        """Counts one read of key made with the application's own client. Never blocks."""
        self._counter.record(key)

    async def flush(self) -> bool:
        """Writes the pending read counts now; returns whether they all reached Redis."""
        return await self._counter.flush()

    def stats(self) -> Stats:
        return self._figures.stats(self._counter.stats())

    async def aclose(self) -> int:
        """Reports the pending read counts and stops the flusher task; the application's Redis
        client keeps running. Returns how many reads could not be reported (logged as a WARNING)."""
        if self._closed:
            return 0
        self._closed = True
        return await self._counter.aclose()

    async def close(self) -> int:
        """The same as :meth:`aclose`."""
        return await self.aclose()

    async def __aenter__(self) -> "AsyncRefresherClient":
        self._counter.start()
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    async def _recompute_if_first(self, key, ttl_ms, loader, current, early: bool):
        """A present value is due: the first caller (here, then across processes through the lock)
        recomputes it; everyone else, and everyone when anything fails, gets ``current`` at once."""
        flight = self._flights.join(key)
        if not flight.leader:
            return current
        result = current
        try:
            try:
                token = await self._flight_lock.try_acquire(key)
            except Exception as failure:
                if not self._driver.is_redis_failure(failure):
                    raise
                self._redis_warning.warn(f"Redis failed while recomputing key '{key}'; current value served", failure)
                return result
            if token is None:
                return current
            try:
                if early:
                    self._figures.add("early_recomputations")
                loaded = await self._load_and_write(key, ttl_ms, loader)
                if loaded is not None:
                    result = loaded
            except Exception:
                LOG.warning("recomputation of key '%s' failed; the current value is served meanwhile", key, exc_info=True)
            finally:
                await self._release_quietly(key, token)
            return result
        finally:
            self._flights.land(flight, result)

    async def _load_once(self, key, ttl_ms, loader):
        """No value: load it once per process, and once across processes when the others are quick."""
        flight = self._flights.join(key)
        if not flight.leader:
            return await AsyncLocalFlights.wait(flight)
        try:
            value = await self._lead_load(key, ttl_ms, loader)
        except BaseException as failure:
            self._flights.crash(flight, failure)
            raise
        self._flights.land(flight, value)
        return value

    async def _lead_load(self, key, ttl_ms, loader):
        try:
            token = await self._flight_lock.try_acquire(key)
        except Exception as failure:
            if not self._driver.is_redis_failure(failure):
                raise
            return await self._load_without_cache(key, loader, failure)
        if token is not None:
            try:
                written = await self._written_meanwhile(key)
                return written if written is not None else await self._load_and_write(key, ttl_ms, loader)
            finally:
                await self._release_quietly(key, token)
        try:
            written = await self._await_other_loader(key)
        except Exception as failure:
            if not self._driver.is_redis_failure(failure):
                raise
            return await self._load_without_cache(key, loader, failure)
        if written is not None:
            return written
        # The other loader is slow or died: nobody is left without a value on its account.
        self._figures.add("fallbacks")
        return await self._load_and_write(key, ttl_ms, loader)

    async def _written_meanwhile(self, key):
        """The value another process wrote (and released the lock) between our read and our lock.
        Without this look the loader would run twice in that window."""
        try:
            return await self._store.get(key)
        except Exception as failure:
            if not self._driver.is_redis_failure(failure):
                raise
            # Redis is failing: loading is what remains, and its write will tell us more.
            return None

    async def _await_other_loader(self, key):
        deadline = time.monotonic() + self._flight.wait_for_other_loader
        while True:
            value = await self._store.get(key)
            if value is not None:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            await asyncio.sleep(min(left, self._flight.poll_interval))

    async def _load_and_write(self, key, ttl_ms, loader):
        started = time.monotonic()
        value = await self._run_loader(key, loader)
        delta_ms = int((time.monotonic() - started) * 1000)
        if value is None:
            return None
        try:
            if not await self._store.write(key, value, ttl_ms, delta_ms):
                LOG.debug("value of key '%s' not cached: the service wrote a fresh one meanwhile", key)
        except Exception as failure:
            if not self._driver.is_redis_failure(failure):
                raise
            self._redis_warning.warn(
                f"Redis failed while caching key '{key}'; the loaded value is returned uncached", failure
            )
        return value

    async def _load_without_cache(self, key, loader, failure):
        self._figures.add("degraded_loads")
        self._redis_warning.warn(f"Redis failed on key '{key}'; value loaded without the cache", failure)
        return await self._run_loader(key, loader)

    async def _run_loader(self, key, loader):
        self._figures.add("loader_runs")
        value = loader()
        if inspect.isawaitable(value):
            value = await value
        return checked_value(key, value)

    async def _release_quietly(self, key, token):
        try:
            await self._flight_lock.release(key, token)
        except Exception as failure:
            if not self._driver.is_redis_failure(failure):
                raise
            # The lease frees it anyway.
            self._redis_warning.warn(f"could not release the single-flight lock of key '{key}'", failure)

"""Counts reads in-process and reports them to Redis in batches (docs/protocol.md, "Access counting").

* ``record`` never blocks and does no I/O: it bumps an in-memory counter.
* Memory is bounded: at most ``max_pending_keys`` distinct keys wait for the next flush. A read of a
  new key while all are taken is dropped (counted in ``dropped``) and an early flush is requested.
* Counts are never doubled: after ``flush()`` or ``close()`` every recorded read has been added to
  Redis exactly once, except the dropped ones and the unconfirmed ones (sent, answer lost: Redis
  may or may not have added them, and they are not sent again).
* A background flusher (a daemon thread, or an asyncio task) flushes every ``flush_interval``, all
  shards in one round trip. A flush that Redis surely did not run keeps its counts for the next one.

``recorded = flushed + dropped + unconfirmed + still pending`` at all times.
"""

import asyncio
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional

from refresher import durations
from refresher.access_bucket_writer import AccessBucketWriter, AsyncAccessBucketWriter, WriteResult
from refresher.driver.async_driver import AsyncDriver
from refresher.driver.sync_driver import SyncDriver
from refresher.pending_counts import PendingCounts

LOG = logging.getLogger(__name__)

DEFAULT_FLUSH_INTERVAL = 1.0
MIN_FLUSH_INTERVAL = 0.01
MAX_FLUSH_INTERVAL = 60.0
DEFAULT_MAX_PENDING_KEYS = 100_000
SHUTDOWN_WAIT = 10.0


@dataclass(frozen=True)
class AccessStats:
    """Counts since the counter was built. ``unconfirmed``: reads whose write was sent but not
    answered (a timeout, a closed connection), which Redis may or may not have added. ``failing``:
    whether the latest flush that had something to write failed (reads are not reaching the
    service)."""

    recorded: int
    flushed: int
    dropped: int
    unconfirmed: int
    flush_failures: int
    pending_keys: int
    failing: bool


def checked_flush_interval(value) -> float:
    interval = durations.seconds(value, "flush_interval")
    if not MIN_FLUSH_INTERVAL <= interval <= MAX_FLUSH_INTERVAL:
        raise ValueError(f"flush_interval must be between 10 ms and 60 s, was {value!r}")
    return interval


def checked_max_pending_keys(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"max_pending_keys must be an int of at least 1, was {value!r}")
    return value


class _CounterBooks:
    """What the sync and asyncio counters share: the pending counts and the figures."""

    def __init__(self, flush_interval, max_pending_keys, clock: Optional[Callable[[], float]]):
        self._interval = checked_flush_interval(flush_interval)
        self._pending = PendingCounts(checked_max_pending_keys(max_pending_keys))
        self._clock = clock or time.time
        self._figures_lock = threading.Lock()
        self._recorded = 0
        self._flushed = 0
        self._dropped = 0
        self._unconfirmed = 0
        self._flush_failures = 0
        self._failing = False
        self._closed = False

    def record(self, key: str) -> None:
        """Counts one read of key. Never blocks, never raises for want of room or of Redis."""
        if not isinstance(key, str):
            raise TypeError(f"key must be a str, was {type(key).__name__}")
        with self._figures_lock:
            self._recorded += 1
        if self._closed or not self._pending.add(key, 1):
            with self._figures_lock:
                self._dropped += 1
            self._request_early_flush()

    def stats(self) -> AccessStats:
        with self._figures_lock:
            return AccessStats(
                self._recorded,
                self._flushed,
                self._dropped,
                self._unconfirmed,
                self._flush_failures,
                self._pending.pending_keys,
                self._failing,
            )

    def _request_early_flush(self) -> None:
        raise NotImplementedError

    def _now_millis(self) -> int:
        # The clock names the bucket second; keep it within the service's access.settle of Redis's.
        return math.floor(self._clock() * 1000)

    def _settle(self, result: WriteResult) -> bool:
        """Books one write's result; puts back what Redis surely did not get."""
        with self._figures_lock:
            self._flushed += result.written
            self._unconfirmed += result.unconfirmed
            if not result.complete:
                self._flush_failures += 1
        if result.complete:
            if self._failing:
                self._failing = False
                LOG.info("access-count flushes work again; %d reads reported", result.written)
            return True
        for key, count in result.unwritten.items():
            if not self._pending.add(key, count):
                with self._figures_lock:
                    self._dropped += count
        if not self._failing:
            self._failing = True
            LOG.warning(
                "access-count flush failed, %d keys' reads kept for the next flush, %d reads unconfirmed"
                " (sent, answer lost; not sent again) (logged once until it works again): %s",
                len(result.unwritten),
                result.unconfirmed,
                result.error,
            )
        return False

    def _books_broken_write(self, counts: Dict[str, int], failure: BaseException) -> None:
        """The driver broke its promise not to raise, maybe after sending: kept as unconfirmed."""
        with self._figures_lock:
            self._flush_failures += 1
            self._unconfirmed += sum(counts.values())
        LOG.error("access-count flush failed unexpectedly", exc_info=failure)

    def _drop_pending(self) -> int:
        lost = sum(self._pending.drain().values())
        with self._figures_lock:
            self._dropped += lost
        return lost


class AccessCounter(_CounterBooks):
    """The counter of :class:`~refresher.RefresherClient`, flushed by one daemon thread."""

    def __init__(
        self,
        driver,
        *,
        flush_interval=DEFAULT_FLUSH_INTERVAL,
        max_pending_keys: int = DEFAULT_MAX_PENDING_KEYS,
        clock: Optional[Callable[[], float]] = None,
    ):
        super().__init__(flush_interval, max_pending_keys, clock)
        # The application's redis.Redis (or RedisCluster), or the client's own driver on it.
        self._writer = AccessBucketWriter(driver if isinstance(driver, SyncDriver) else SyncDriver(driver))
        # Drains must not overlap: two flushes could otherwise put counts back in either order.
        self._flush_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        self._flusher = threading.Thread(target=self._run, name="refresher-access-flusher", daemon=True)
        self._flusher.start()

    def flush(self) -> bool:
        """Writes the pending counts now, on the calling thread. Returns whether everything pending
        reached Redis; never raises for Redis's failures."""
        with self._flush_lock:
            counts = self._pending.drain()
            if not counts:
                return True
            try:
                result = self._writer.write(counts, self._now_millis())
            except Exception as unexpected:  # keeps the flusher thread alive
                self._books_broken_write(counts, unexpected)
                return False
            return self._settle(result)

    def close(self) -> int:
        """Stops the flusher and writes what is pending; reads recorded afterwards are dropped.
        Returns how many reads could not be reported (0 when all reached Redis or were sent)."""
        if self._closed:
            return 0
        self._closed = True
        self._stopping = True
        self._wake.set()
        self._flusher.join(SHUTDOWN_WAIT)
        if self.flush():
            return 0
        with self._flush_lock:
            lost = self._drop_pending()
        if lost:
            LOG.warning("access counter closed with Redis unreachable: %d reads were not reported", lost)
        return lost

    def _request_early_flush(self) -> None:
        # None while Redis is failing: the scheduled flushes retry at their own pace.
        if not self._closed and not self._failing:
            self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait(self._interval)
            if self._stopping:
                return
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # pragma: no cover - flush does not raise; the thread must not die
                LOG.exception("access-count flusher failed")


class AsyncAccessCounter(_CounterBooks):
    """The counter of :class:`~refresher.AsyncRefresherClient`, flushed by an asyncio task.

    The task starts on the first coroutine call (or record) made inside a running event loop; the
    counter belongs to that loop."""

    def __init__(
        self,
        driver,
        *,
        flush_interval=DEFAULT_FLUSH_INTERVAL,
        max_pending_keys: int = DEFAULT_MAX_PENDING_KEYS,
        clock: Optional[Callable[[], float]] = None,
    ):
        super().__init__(flush_interval, max_pending_keys, clock)
        self._writer = AsyncAccessBucketWriter(driver if isinstance(driver, AsyncDriver) else AsyncDriver(driver))
        self._flush_lock: Optional[asyncio.Lock] = None
        self._wake: Optional[asyncio.Event] = None
        self._flusher: Optional[asyncio.Task] = None
        self._stopping = False

    def record(self, key: str) -> None:
        super().record(key)
        self.start()

    def start(self) -> None:
        """Starts the flusher task in the running loop, once; outside a loop, waits for one."""
        if self._flusher is not None or self._closed:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        # Made inside the loop: on Python 3.9 they bind to the loop current when made.
        self._flush_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._flusher = asyncio.ensure_future(self._run())

    async def flush(self) -> bool:
        self.start()
        lock = self._flush_lock or asyncio.Lock()
        async with lock:
            counts = self._pending.drain()
            if not counts:
                return True
            try:
                result = await self._writer.write(counts, self._now_millis())
            except Exception as unexpected:
                self._books_broken_write(counts, unexpected)
                return False
            return self._settle(result)

    async def aclose(self) -> int:
        """Stops the flusher task and writes what is pending; returns the reads not reported."""
        if self._closed:
            return 0
        self._closed = True
        self._stopping = True
        if self._flusher is not None:
            self._wake.set()
            try:
                await asyncio.wait_for(asyncio.shield(self._flusher), SHUTDOWN_WAIT)
            except asyncio.TimeoutError:
                self._flusher.cancel()
        if await self.flush():
            return 0
        lost = self._drop_pending()
        if lost:
            LOG.warning("access counter closed with Redis unreachable: %d reads were not reported", lost)
        return lost

    def _request_early_flush(self) -> None:
        if not self._closed and not self._failing and self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), self._interval)
            except asyncio.TimeoutError:
                pass
            if self._stopping:
                return
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # pragma: no cover - flush does not raise; the task must not die
                LOG.exception("access-count flusher failed")

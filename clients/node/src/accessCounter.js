/**
 * Counts reads of keys in-process and reports them to Redis in batches, so that the Refresher
 * service can tell hot keys from cold ones (protocol/accessProtocol.js). The twin of Java's
 * AccessCounter:
 *  - record() is synchronous and cheap: it bumps a number in a Map, no I/O.
 *  - Memory is bounded: at most maxPendingKeys distinct keys wait for a flush. A read of a new key
 *    while all are taken is dropped (counted in stats().dropped) and an early flush is requested.
 *  - Counts are never doubled: a flush is sent once, and reads whose write was sent but not
 *    answered are counted as unconfirmed and not sent again. Reads of a write Redis surely did not
 *    run are kept for the next flush (as far as there is room).
 *  - An unref'd timer flushes every flushIntervalMs (the next one is set once a flush ends, as
 *    Java's fixed delay), all shards in one round trip; it never keeps the process alive.
 *  recorded = flushed + dropped + unconfirmed + pending at all times.
 */
import { PendingCounts } from './pendingCounts.js';
import { AccessBucketWriter } from './accessBucketWriter.js';
import { NodeRedisDriver } from './driver/nodeRedisDriver.js';
import { loggerOf } from './logger.js';

export const DEFAULT_FLUSH_INTERVAL_MS = 1000;
export const MIN_FLUSH_INTERVAL_MS = 10;
export const MAX_FLUSH_INTERVAL_MS = 60_000;
export const DEFAULT_MAX_PENDING_KEYS = 100_000;

export class AccessCounter {
  #pending;
  #writer;
  #clock;
  #logger;
  #intervalMs;
  #timer = null;
  /** The flush running or last run: flushes are chained, never overlapping. */
  #flushing = Promise.resolve(true);
  /** Whether the latest flush that had something to write failed: one warning per streak, an info line on recovery. */
  #failing = false;
  #earlyFlushQueued = false;
  #closed = false;
  #counts = { recorded: 0, flushed: 0, dropped: 0, unconfirmed: 0, flushFailures: 0 };

  /**
   * @param {object} redis the application's connected node-redis client or cluster (or a driver)
   * @param {{flushIntervalMs?: number, maxPendingKeys?: number, clock?: () => number,
   *          logger?: object, commandTimeoutMs?: number}} [options]
   */
  constructor(redis, options = {}) {
    const driver = redis instanceof NodeRedisDriver ? redis : new NodeRedisDriver(redis, { commandTimeoutMs: options.commandTimeoutMs });
    this.#intervalMs = checkedFlushInterval(options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    this.#pending = new PendingCounts(checkedMaxPendingKeys(options.maxPendingKeys ?? DEFAULT_MAX_PENDING_KEYS));
    this.#clock = checkedClock(options.clock);
    this.#logger = loggerOf(options.logger);
    this.#writer = new AccessBucketWriter(driver);
    this.#schedule();
  }

  /** Counts one read of key. Synchronous; never throws for want of room or of Redis. */
  record(key) {
    if (typeof key !== 'string') {
      throw new TypeError(`key must be a string, was ${typeof key}`);
    }
    this.#counts.recorded++;
    if (this.#closed || !this.#pending.add(key, 1)) {
      this.#counts.dropped++;
      this.#requestEarlyFlush();
    }
  }

  /**
   * Writes the pending counts now. Resolves with whether everything pending reached Redis; on
   * failure the counts Redis surely did not get are kept for the next flush, and those whose
   * answer was lost are counted as unconfirmed. Never rejects. A flush called while another runs
   * starts after it.
   * @returns {Promise<boolean>}
   */
  flush() {
    const next = this.#flushing.then(() => this.#flushOnce());
    this.#flushing = next;
    return next;
  }

  /**
   * Stops the timer and writes what is pending; reads recorded afterwards are dropped. Resolves
   * with the number of reads that could not be reported (Redis refused or was unreachable: they
   * are counted as dropped and logged), 0 when all went.
   * @returns {Promise<number>}
   */
  async close() {
    if (this.#closed) {
      await this.#flushing;
      return 0;
    }
    this.#closed = true;
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (await this.flush()) {
      return 0;
    }
    let lost = 0;
    for (const count of this.#pending.drain().values()) lost += count;
    this.#counts.dropped += lost;
    if (lost > 0) {
      this.#logger.warn(`access counter closed with Redis unreachable: ${lost} reads were not reported`);
    }
    return lost;
  }

  /** recorded, flushed, dropped, unconfirmed, flushFailures, pendingKeys, failing: Java's AccessCounter.Stats. */
  stats() {
    return { ...this.#counts, pendingKeys: this.#pending.pendingKeys(), failing: this.#failing };
  }

  async #flushOnce() {
    const counts = this.#pending.drain();
    if (counts.size === 0) {
      return true;
    }
    let result;
    try {
      result = await this.#writer.write(counts, this.#clock());
    } catch (unexpected) {
      // The writer promises not to reject; should it, maybe after sending, the reads are not
      // sent again, and stay in the books as unconfirmed rather than vanish from them.
      this.#counts.flushFailures++;
      for (const count of counts.values()) this.#counts.unconfirmed += count;
      this.#logger.error('access-count flush failed unexpectedly', unexpected);
      return false;
    }
    this.#counts.flushed += result.written;
    this.#counts.unconfirmed += result.unconfirmed;
    if (result.unwritten.size === 0 && result.unconfirmed === 0) {
      if (this.#failing) {
        this.#failing = false;
        this.#logger.info(`access-count flushes work again; ${result.written} reads reported`);
      }
      return true;
    }
    this.#counts.flushFailures++;
    for (const [key, count] of result.unwritten) {
      if (!this.#pending.add(key, count)) {
        this.#counts.dropped += count;
      }
    }
    if (!this.#failing) {
      this.#failing = true;
      this.#logger.warn(
        `access-count flush failed, ${result.unwritten.size} keys' reads kept for the next flush, ` +
          `${result.unconfirmed} reads unconfirmed (sent, answer lost; not sent again) ` +
          `(logged once until it works again): ${String(result.error)}`,
      );
    }
    return false;
  }

  /** The next timed flush, flushIntervalMs after the last one ended. */
  #schedule() {
    if (this.#closed) {
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.flush().finally(() => this.#schedule());
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  /**
   * A flush soon, without waiting for it: at most one such request queued, and none while Redis
   * is failing (the timed flushes retry at their own pace).
   */
  #requestEarlyFlush() {
    if (this.#closed || this.#failing || this.#earlyFlushQueued) {
      return;
    }
    this.#earlyFlushQueued = true;
    setImmediate(() => {
      this.#earlyFlushQueued = false;
      this.flush();
    }).unref?.();
  }
}

export function checkedFlushInterval(ms) {
  if (typeof ms !== 'number' || !(ms >= MIN_FLUSH_INTERVAL_MS && ms <= MAX_FLUSH_INTERVAL_MS)) {
    throw new RangeError(`flushIntervalMs must be between ${MIN_FLUSH_INTERVAL_MS} and ${MAX_FLUSH_INTERVAL_MS}, was ${ms}`);
  }
  return ms;
}

export function checkedMaxPendingKeys(n) {
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`maxPendingKeys must be an integer of at least 1, was ${n}`);
  }
  return n;
}

export function checkedClock(clock) {
  if (clock === undefined) {
    return Date.now;
  }
  if (typeof clock !== 'function') {
    throw new TypeError('clock must be a function returning epoch milliseconds, like Date.now');
  }
  return clock;
}

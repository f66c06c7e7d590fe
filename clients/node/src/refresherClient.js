/**
 * What applications call to read cached values (Java's RefresherClient, docs/client/node.md):
 * every read is counted for the Refresher service (AccessCounter), and get(key, {ttlMs, loader})
 * protects keys the service does not keep hot from stampedes, with early recomputation (XFetch)
 * and a single-flight loader across callers and processes.
 */
import { visible } from './protocol/notFound.js';
import { AccessCounter } from './accessCounter.js';
import { NodeRedisDriver } from './driver/nodeRedisDriver.js';
import { EarlyRecompute, DEFAULT_BETA } from './earlyRecompute.js';
import { FlightLock } from './flightLock.js';
import { LocalFlights } from './localFlights.js';
import { RateLimitedWarning } from './rateLimitedWarning.js';
import { ReadDecision, decide } from './readDecision.js';
import { ValueStore } from './valueStore.js';
import { loggerOf } from './logger.js';

export const DEFAULT_SINGLE_FLIGHT_LEASE_MS = 10_000;
export const DEFAULT_WAIT_FOR_OTHER_LOADER_MS = 1000;
export const DEFAULT_POLL_INTERVAL_MS = 20;
const WARNING_INTERVAL_MS = 30_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class RefresherClient {
  #driver;
  #counter;
  #store;
  #flightLock;
  #flights = new LocalFlights();
  #earlyRecompute;
  #waitForOtherLoaderMs;
  #pollIntervalMs;
  #logger;
  #redisWarning;
  #closed = null;
  #counts = { misses: 0, loaderRuns: 0, earlyRecomputations: 0, fallbacks: 0, degradedLoads: 0 };

  /**
   * A client on the application's own connected node-redis client (createClient() or
   * createCluster()), which close() leaves open.
   * @param {object} redis
   * @param {import('../index.js').RefresherClientOptions} [options]
   */
  constructor(redis, options = {}) {
    // Every option is checked before anything starts (the counter's timer).
    const leaseMs = positive(options.singleFlightLeaseMs ?? DEFAULT_SINGLE_FLIGHT_LEASE_MS, 'singleFlightLeaseMs');
    const wait = options.waitForOtherLoaderMs ?? DEFAULT_WAIT_FOR_OTHER_LOADER_MS;
    if (typeof wait !== 'number' || !(wait >= 0)) {
      throw new RangeError(`waitForOtherLoaderMs must not be negative, was ${wait}`);
    }
    this.#waitForOtherLoaderMs = wait;
    this.#pollIntervalMs = positive(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 'pollIntervalMs');
    this.#earlyRecompute = new EarlyRecompute(options.beta ?? DEFAULT_BETA, options.random ?? Math.random);
    this.#driver = new NodeRedisDriver(redis, { commandTimeoutMs: options.commandTimeoutMs, cluster: options.cluster });
    this.#logger = loggerOf(options.logger);
    this.#store = new ValueStore(this.#driver);
    this.#flightLock = new FlightLock(this.#driver, leaseMs);
    this.#counter = new AccessCounter(this.#driver, {
      flushIntervalMs: options.flushIntervalMs,
      maxPendingKeys: options.maxPendingKeys,
      clock: options.clock,
      logger: this.#logger,
    });
    this.#redisWarning = new RateLimitedWarning(this.#logger, WARNING_INTERVAL_MS);
  }

  /**
   * GET key, counted as a read; null when absent. Without options Redis errors reject, as they
   * would from the application's own client. With {ttlMs, loader}: the value, computed by loader
   * and cached for ttlMs when absent, recomputed early (XFetch) by one caller, loaded once across
   * callers and processes; when Redis fails, loader's value, uncached.
   * @param {string} key
   * @param {{ttlMs: number, loader: () => (string|null|Promise<string|null>)}} [options]
   * @returns {Promise<string|null>}
   */
  async get(key, options) {
    if (typeof key !== 'string') {
      throw new TypeError(`key must be a string, was ${typeof key}`);
    }
    if (options === undefined) {
      this.#counter.record(key);
      const value = await this.#store.get(key);
      if (value === null) {
        this.#counts.misses++;
      }
      return visible(value);
    }
    const { ttlMs, loader } = options;
    if (typeof loader !== 'function') {
      throw new TypeError('loader must be a function returning a string (or a promise of one), or null');
    }
    if (!Number.isFinite(ttlMs) || ttlMs < 1) {
      throw new RangeError(`ttlMs must be at least 1 ms, was ${ttlMs}`);
    }
    const ttlMillis = Math.floor(ttlMs);
    this.#counter.record(key);
    let stored;
    try {
      stored = await this.#store.read(key);
    } catch (err) {
      return this.#loadWithoutCache(key, loader, this.#redisFailure(err));
    }
    switch (decide(stored, (now, delta, expiresAt) => this.#earlyRecompute.shouldRecompute(now, delta, expiresAt))) {
      case ReadDecision.SERVE:
        return stored.value;
      case ReadDecision.ABSENT:
        return null;
      case ReadDecision.LOAD:
        this.#counts.misses++;
        return this.#loadOnce(key, ttlMillis, loader);
      case ReadDecision.RECOMPUTE_EXPIRED:
        return visible(await this.#recomputeIfFirst(key, ttlMillis, loader, stored.value, false));
      default:
        return visible(await this.#recomputeIfFirst(key, ttlMillis, loader, stored.value, true));
    }
  }

  /** Counts one read of key that the application made with its own client. Synchronous. */
  record(key) {
    this.#counter.record(key);
  }

  /** Writes the pending read counts now; resolves with whether they all reached Redis. */
  flush() {
    return this.#counter.flush();
  }

  /**
   * The counter's figures (access), the reads that found no value (misses: get(key) returning
   * null, get(key, {ttlMs, loader}) having to load), and how often values were computed here, and why.
   */
  stats() {
    return { access: this.#counter.stats(), ...this.#counts };
  }

  /**
   * Reports the pending read counts and stops the timer; the application's Redis client stays
   * open. Resolves with the number of reads that could not be reported (0 when all went; they
   * are logged as a warning and counted as dropped). Calling it again resolves the same way.
   * @returns {Promise<number>}
   */
  close() {
    if (this.#closed === null) {
      this.#closed = this.#counter.close();
    }
    return this.#closed;
  }

  /**
   * A present value is due for recomputation: the first caller (in this process, then across
   * processes through the lock) recomputes it; everyone else, and everyone when anything fails,
   * gets current at once.
   */
  async #recomputeIfFirst(key, ttlMillis, loader, current, early) {
    const flight = this.#flights.join(key, async () => {
      let token;
      try {
        token = await this.#flightLock.tryAcquire(key);
      } catch (err) {
        this.#redisWarning.warn(`Redis failed while recomputing key '${key}'; current value served`, this.#redisFailure(err));
        return current;
      }
      if (token === null) {
        return current;
      }
      try {
        if (early) {
          this.#counts.earlyRecomputations++;
        }
        const loaded = await this.#loadAndWrite(key, ttlMillis, loader);
        return loaded ?? current;
      } catch (err) {
        this.#logger.warn(`recomputation of key '${key}' failed; the current value is served meanwhile: ${String(err)}`);
        return current;
      } finally {
        await this.#releaseQuietly(key, token);
      }
    });
    return flight.leader ? flight.promise : current;
  }

  /** No value: load it once per process, and once across processes when the others are quick. */
  #loadOnce(key, ttlMillis, loader) {
    return this.#flights.join(key, () => this.#leadLoad(key, ttlMillis, loader)).promise;
  }

  async #leadLoad(key, ttlMillis, loader) {
    let token;
    try {
      token = await this.#flightLock.tryAcquire(key);
    } catch (err) {
      return this.#loadWithoutCache(key, loader, this.#redisFailure(err));
    }
    if (token !== null) {
      try {
        const written = await this.#writtenMeanwhile(key);
        return written !== null ? written : await this.#loadAndWrite(key, ttlMillis, loader);
      } finally {
        await this.#releaseQuietly(key, token);
      }
    }
    let written;
    try {
      written = await this.#awaitOtherLoader(key);
    } catch (err) {
      return this.#loadWithoutCache(key, loader, this.#redisFailure(err));
    }
    if (written !== null) {
      return written;
    }
    // The other loader is slow or died: nobody is left without a value on its account.
    this.#counts.fallbacks++;
    return this.#loadAndWrite(key, ttlMillis, loader);
  }

  /**
   * The value another process wrote (and released the lock) between our read and our taking the
   * lock, or null. Without this look the loader would run twice in that window.
   */
  async #writtenMeanwhile(key) {
    try {
      return await this.#store.get(key);
    } catch (err) {
      this.#redisFailure(err);
      // Redis is failing: loading is what remains, and its write will tell us more.
      return null;
    }
  }

  /** The value another process writes within waitForOtherLoaderMs, or null. */
  async #awaitOtherLoader(key) {
    const deadline = performance.now() + this.#waitForOtherLoaderMs;
    for (;;) {
      const value = await this.#store.get(key);
      if (value !== null) {
        return value;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        return null;
      }
      await sleep(Math.min(left, this.#pollIntervalMs));
    }
  }

  async #loadAndWrite(key, ttlMillis, loader) {
    const started = performance.now();
    const value = await this.#runLoader(key, loader);
    const deltaMillis = Math.floor(performance.now() - started);
    if (value === null) {
      return null;
    }
    try {
      const written = await this.#store.write(key, { value, ttlMillis, deltaMillis });
      if (!written) {
        this.#logger.debug(`value of key '${key}' not cached: the service wrote a fresh one meanwhile`);
      }
    } catch (err) {
      this.#redisWarning.warn(`Redis failed while caching key '${key}'; the loaded value is returned uncached`, this.#redisFailure(err));
    }
    return value;
  }

  /**
   * err when it is Redis's (the caller then carries on without the cache); thrown again when it
   * is anything else, such as a bug, which falling back would hide.
   */
  #redisFailure(err) {
    if (!this.#driver.isRedisFailure(err)) {
      throw err;
    }
    return err;
  }

  #loadWithoutCache(key, loader, cause) {
    this.#counts.degradedLoads++;
    this.#redisWarning.warn(`Redis failed on key '${key}'; value loaded without the cache`, cause);
    return this.#runLoader(key, loader);
  }

  /** The loader's value: a string, or null (returned, nothing cached). Its errors reach the caller as they are. */
  async #runLoader(key, loader) {
    this.#counts.loaderRuns++;
    const value = await loader();
    if (value === null || value === undefined) {
      return null;
    }
    if (typeof value !== 'string') {
      throw new TypeError(`loader of key '${key}' returned ${typeof value}; it must return a string (or null)`);
    }
    return value;
  }

  async #releaseQuietly(key, token) {
    try {
      await this.#flightLock.release(key, token);
    } catch (err) {
      // The lease frees it anyway.
      this.#redisWarning.warn(`could not release the single-flight lock of key '${key}'`, this.#redisFailure(err));
    }
  }
}

function positive(ms, name) {
  if (typeof ms !== 'number' || !(ms > 0) || !Number.isFinite(ms)) {
    throw new RangeError(`${name} must be a positive number of ms, was ${ms}`);
  }
  return ms;
}

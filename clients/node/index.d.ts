// Types of refresher-client (hand-written; `npm test` checks them with tsc over test/types/usage.ts).

/** Any console-compatible logger; missing levels are silent. */
export interface Logger {
  debug?(...args: unknown[]): void;
  info?(...args: unknown[]): void;
  warn?(...args: unknown[]): void;
  error?(...args: unknown[]): void;
}

/**
 * The application's connected node-redis client: `createClient()` or `createCluster()` of
 * `redis` 4 or 5. Only its `sendCommand` is used; it is never closed by this library.
 */
export interface NodeRedisLike {
  sendCommand(...args: any[]): Promise<unknown>;
}

export interface AccessCounterOptions {
  /** How often read counts are written to Redis, 10 to 60,000 ms; default 1000. */
  flushIntervalMs?: number;
  /** How many distinct keys' counts may wait for a flush; beyond, reads of new keys are dropped. Default 100,000. */
  maxPendingKeys?: number;
  /** The clock of access buckets, epoch ms; default Date.now. */
  clock?: () => number;
  /** Console-compatible logger; default: warnings and errors to the console, nothing else. */
  logger?: Logger;
  /** Deadline of each Redis call this library makes, ms; default 5000. */
  commandTimeoutMs?: number;
}

export interface RefresherClientOptions extends AccessCounterOptions {
  /** XFetch's beta (> 0): larger recomputes earlier, smaller later; default 1. */
  beta?: number;
  /** Lifetime (PX) of the single-flight lock, should its holder never release it; default 10,000 ms. */
  singleFlightLeaseMs?: number;
  /** How long a caller waits for another process's loader before running its own; default 1000 ms. */
  waitForOtherLoaderMs?: number;
  /** How often a waiting caller looks for the other process's value; default 20 ms. */
  pollIntervalMs?: number;
  /** Randomness of early recomputation, uniform in [0, 1) like Math.random (seed one for repeatable tests). */
  random?: () => number;
  /** Force treating the client as a cluster (true) or a single node (false); default: detected. */
  cluster?: boolean;
}

/** A loader: the value to cache (a string), or null to return null and cache nothing. */
export type Loader = () => string | null | Promise<string | null>;

export interface GetOptions {
  /** How long the loaded value is cached, ms (>= 1). */
  ttlMs: number;
  /** Computes the value when it is missing or due for recomputation. */
  loader: Loader;
}

/** recorded = flushed + dropped + unconfirmed + reads still pending. */
export interface AccessStats {
  /** Reads counted since the start. */
  recorded: number;
  /** Reads that reached Redis. */
  flushed: number;
  /** Reads left out for want of room, or not reported at close. */
  dropped: number;
  /** Reads sent whose answer was lost (timeout, connection closed): maybe in Redis, never sent again. */
  unconfirmed: number;
  /** Flushes that did not complete. */
  flushFailures: number;
  /** Distinct keys waiting for the next flush. */
  pendingKeys: number;
  /** Whether the latest flush that had something to write failed (reads are not reaching the service). */
  failing: boolean;
}

export interface Stats {
  access: AccessStats;
  /** Reads that found no value: get(key) returning null, get(key, {ttlMs, loader}) having to load. */
  misses: number;
  /** Loader calls by this client. */
  loaderRuns: number;
  /** Loader runs started by XFetch. */
  earlyRecomputations: number;
  /** Loader runs after waiting in vain for another process. */
  fallbacks: number;
  /** Loader runs because Redis failed. */
  degradedLoads: number;
}

export declare class RefresherClient {
  constructor(redis: NodeRedisLike, options?: RefresherClientOptions);
  /** GET key, counted as a read; null when absent. */
  get(key: string): Promise<string | null>;
  /** Cached for ttlMs, early recomputation, single flight across callers and processes. */
  get(key: string, options: GetOptions): Promise<string | null>;
  /** Counts one read made with the application's own client. Synchronous. */
  record(key: string): void;
  /** Writes pending read counts now; whether they all reached Redis. Never rejects. */
  flush(): Promise<boolean>;
  stats(): Stats;
  /** Reports pending reads, stops the timer; the number of reads that could not be reported. */
  close(): Promise<number>;
}

export declare class AccessCounter {
  constructor(redis: NodeRedisLike, options?: AccessCounterOptions);
  record(key: string): void;
  flush(): Promise<boolean>;
  stats(): AccessStats;
  close(): Promise<number>;
}

export declare class EarlyRecompute {
  constructor(beta?: number, random?: () => number);
  readonly beta: number;
  shouldRecompute(nowMillis: number, deltaMillis: number, expiresAtMillis: number): boolean;
  /** now - delta * beta * ln(uniform) >= expiresAt, uniform in (0, 1]. */
  static decide(nowMillis: number, deltaMillis: number, expiresAtMillis: number, beta: number, uniform: number): boolean;
}

/** A call this library made that Redis did not answer in time after it was sent. */
export declare class CommandTimeoutError extends Error {
  constructor(timeoutMs: number, command: string);
}

/** The service's not-found marker: a key known to have no value (docs/protocol.md, "Known absent"). get() returns null for it. */
export declare const NOT_FOUND_MARKER: string;

/** Whether a value read from Redis is the service's not-found marker. */
export declare function isNotFound(value: string | null): boolean;

export declare const MetaFields: {
  readonly COMPUTED_AT: 'computedAt';
  readonly DELTA: 'delta';
  readonly EXPIRES_AT: 'expiresAt';
  readonly SIZE: 'size';
  readonly EPOCH: 'epoch';
  readonly TOKEN: 'token';
  readonly RECENT: 'recent';
  readonly REVALIDATED_AT: 'revalidatedAt';
  readonly VALIDATOR: 'validator';
};

export declare namespace AccessProtocol {
  const PREFIX: 'refresher:access:';
  const SHARDS: 16;
  const BUCKET_TTL_SECONDS: 60;
  function bucketKey(shard: number, unixSecond: number): string;
  function shardOf(key: string): number;
  function secondOf(epochMillis: number): number;
}

export declare namespace CacheKeys {
  const META_PREFIX: 'refresher:meta:';
  const LOCK_PREFIX: 'refresher:lock:';
  const FLIGHT_PREFIX: 'refresher:flight:';
  const SLOTS: 16384;
  function metaKey(key: string): string;
  function lockName(key: string): string;
  function flightLockName(key: string): string;
  function hashTag(key: string): string | null;
  function slot(key: string): number;
}

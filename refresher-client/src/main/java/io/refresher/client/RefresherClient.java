package io.refresher.client;

import io.refresher.client.protocol.NotFoundMarker;

import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.UrlDriverProvider;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What applications call to read cached values: every read is counted for the Refresher service
 * ({@link AccessCounter}), and {@link #get(String, Duration, Loader)} protects keys the service
 * does not keep hot from stampedes, with early recomputation ({@link EarlyRecompute}) and a
 * single-flight loader across threads and processes. See {@code docs/client.md}.
 *
 * <p>It talks to Redis through a {@link RedisDriver} built on the application's own client:
 * {@code RedissonDriver}, {@code LettuceDriver} or {@code JedisDriver}, each in its own module.
 */
public final class RefresherClient implements AutoCloseable {

  public static final Duration DEFAULT_SINGLE_FLIGHT_LEASE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_WAIT_FOR_OTHER_LOADER = Duration.ofSeconds(1);
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(20);

  private static final Logger LOG = LoggerFactory.getLogger(RefresherClient.class);
  private static final Duration WARNING_INTERVAL = Duration.ofSeconds(30);

  /**
   * The access counter's figures, and how often values were computed here and why. {@code
   * misses}: reads that found no value in Redis ({@code get(key)} returning null, {@code get(key,
   * ttl, loader)} having to load).
   */
  public record Stats(
      AccessCounter.Stats access,
      long misses,
      long loaderRuns,
      long earlyRecomputations,
      long fallbacks,
      long degradedLoads) {}

  private final RedisDriver driver;
  private final AccessCounter counter;
  private final ValueStore store;
  private final FlightLock flightLock;
  private final LocalFlights flights = new LocalFlights();
  private final EarlyRecompute earlyRecompute;
  private final Duration waitForOtherLoader;
  private final Duration pollInterval;
  private final RateLimitedWarning redisWarning = new RateLimitedWarning(LOG, WARNING_INTERVAL);
  private final AtomicBoolean closed = new AtomicBoolean();

  private final LongAdder misses = new LongAdder();
  private final LongAdder loaderRuns = new LongAdder();
  private final LongAdder earlyRecomputations = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private final LongAdder degradedLoads = new LongAdder();

  private RefresherClient(Builder builder, RedisDriver driver) {
    this.driver = driver;
    this.counter =
        AccessCounter.builder(driver)
            .flushInterval(builder.flushInterval)
            .maxPendingKeys(builder.maxPendingKeys)
            .clock(builder.clock)
            .build();
    this.store = new ValueStore(driver);
    this.flightLock = new FlightLock(driver, builder.singleFlightLease);
    this.earlyRecompute =
        builder.random == null
            ? new EarlyRecompute(builder.beta)
            : new EarlyRecompute(builder.beta, builder.random);
    this.waitForOtherLoader = builder.waitForOtherLoader;
    this.pollInterval = builder.pollInterval;
  }

  /**
   * A client on a driver built on the application's own Redis client ({@code
   * RedissonDriver.of(redisson)}, {@code LettuceDriver.of(connection)}, {@code
   * JedisDriver.of(jedis)}); {@link #close()} closes the driver, which leaves that client running.
   */
  public static Builder builder(RedisDriver driver) {
    return new Builder(Objects.requireNonNull(driver, "driver"), null);
  }

  /**
   * A client that connects itself, and disconnects on {@link #close()}, through the driver module
   * on the class path that connects from URLs ({@code refresher-client-redisson}): to {@code
   * redis://host:port} (or {@code rediss://}); to a Redis Cluster, from one configuration endpoint
   * or several seed nodes ({@code redis-cluster://10.0.0.1:6379[,10.0.0.2:6379]}, {@code
   * rediss-cluster://} for TLS; several {@code redis://} seeds separated by commas are a cluster
   * too); or to a primary with replicas behind Sentinel ({@code
   * redis-sentinel://[user:password@]10.0.0.1:26379,10.0.0.2:26379/masterName[/db]}, {@code
   * rediss-sentinel://} for TLS), following its failovers.
   */
  public static Builder builder(String redisUrl) {
    return new Builder(null, Objects.requireNonNull(redisUrl, "redisUrl"));
  }

  /**
   * {@code GET key}, counted as a read. Null when the key is absent. Redis errors propagate, as
   * they would from the application's own client.
   */
  public String get(String key) {
    return read(key).value();
  }

  /**
   * What a plain read found: a value, or none; and, when none, whether the key is known to have
   * none (the service's not-found marker: its source found no row) rather than not cached.
   */
  public record Read(String value, boolean knownAbsent) {}

  /** {@code GET key}, counted as a read, telling "known absent" from "not cached". */
  public Read read(String key) {
    counter.record(key);
    String value = store.get(key);
    if (value == null) {
      misses.increment();
    }
    return NotFoundMarker.is(value) ? new Read(null, true) : new Read(value, false);
  }

  /**
   * What a caller gets for a value read from Redis: none for the service's not-found marker (the
   * key is known to have no value; docs/protocol.md, "Known absent").
   */
  private static String visible(String value) {
    return NotFoundMarker.is(value) ? null : value;
  }

  /**
   * The value of {@code key}, computed by {@code loader} and cached for {@code ttl} when absent.
   *
   * <ul>
   *   <li>A value the Refresher service keeps (metadata epoch > 0) is returned until its logical
   *       expiry, by Redis's clock; after it (the service stopped refreshing it) one caller
   *       recomputes, the others get the stale value at once.
   *   <li>A value a client wrote is recomputed early, with XFetch's probability, by one caller
   *       across all processes; the others get the current value at once.
   *   <li>An absent value is loaded once: one thread per process, one process across all (a
   *       Redis lock). The others wait for its value, up to {@code waitForOtherLoader}, then load
   *       it themselves.
   *   <li>When Redis fails, the loader is called directly: the cache being down never fails a read.
   * </ul>
   *
   * @throws LoaderException when the loader threw a checked exception and no value was there to
   *     return instead (unchecked ones are rethrown as they are)
   */
  public String get(String key, Duration ttl, Loader loader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(loader, "loader");
    if (ttl == null || ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
    }
    counter.record(key);
    StoredValue stored;
    try {
      stored = store.read(key);
    } catch (RuntimeException e) {
      return loadWithoutCache(key, loader, redisFailure(e));
    }
    return visible(
        switch (ReadDecision.of(stored, earlyRecompute::shouldRecompute)) {
          case SERVE -> stored.value();
          case ABSENT -> null;
          case LOAD -> {
            misses.increment();
            yield loadOnce(key, ttl, loader);
          }
          case RECOMPUTE_EXPIRED -> recomputeIfFirst(key, ttl, loader, stored.value(), false);
          case RECOMPUTE_EARLY -> recomputeIfFirst(key, ttl, loader, stored.value(), true);
        });
  }

  /**
   * Caches {@code value} under {@code key} for {@code ttl}, as a loader's value would be: under
   * the write rule, so a fresh value the service keeps is not overwritten (then false). For
   * caches that compute a value outside {@link #get(String, Duration, Loader)} (Spring's {@code
   * Cache.put}). {@code computeTime}, how long the value took to compute, drives XFetch's early
   * recomputation; zero turns it off for this value. Redis errors propagate.
   */
  public boolean put(String key, String value, Duration ttl, Duration computeTime) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (ttl == null || ttl.toMillis() < 1) {
      throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
    }
    long deltaMillis = computeTime == null ? 0 : Math.max(0, computeTime.toMillis());
    return store.write(key, new ValueStore.Written(value, ttl.toMillis(), deltaMillis));
  }

  /**
   * Deletes the value of {@code key} (an application's eviction, Spring's {@code Cache.evict}):
   * whether there was one. Its metadata stays, so a key the service keeps is refreshed again on
   * its schedule; until then reads miss and load. Redis errors propagate.
   */
  public boolean evict(String key) {
    return driver.delete(Objects.requireNonNull(key, "key"));
  }

  /**
   * Counts one read of {@code key} that the application made with its own client, so that the
   * service sees it. Never blocks.
   */
  public void record(String key) {
    counter.record(key);
  }

  /** Writes the pending read counts now; returns whether they all reached Redis. */
  public boolean flush() {
    return counter.flush();
  }

  public Stats stats() {
    return new Stats(
        counter.stats(),
        misses.sum(),
        loaderRuns.sum(),
        earlyRecomputations.sum(),
        fallbacks.sum(),
        degradedLoads.sum());
  }

  /**
   * Reports the pending read counts, stops the counter's thread and closes the driver: the
   * application's own Redis client keeps running; a connection this client made itself is closed.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      counter.close();
    } finally {
      driver.close();
    }
  }

  /**
   * A present value is due for recomputation: the first caller (in this process, then across
   * processes through the lock) recomputes it; everyone else, and everyone when anything fails,
   * gets {@code current} at once.
   */
  private String recomputeIfFirst(String key, Duration ttl, Loader loader, String current, boolean early) {
    LocalFlights.Flight flight = flights.join(key);
    if (!flight.leader()) {
      return current;
    }
    String result = current;
    try {
      Optional<String> token = flightLock.tryAcquire(key);
      if (token.isEmpty()) {
        return current;
      }
      try {
        if (early) {
          earlyRecomputations.increment();
        }
        String loaded = loadAndWrite(key, ttl, loader);
        if (loaded != null) {
          result = loaded;
        }
      } catch (RuntimeException e) {
        LOG.warn("recomputation of key '{}' failed; the current value is served meanwhile", key, e);
      } finally {
        releaseQuietly(key, token.get());
      }
      return result;
    } catch (RuntimeException e) {
      redisWarning.warn("Redis failed while recomputing key '" + key + "'; current value served", redisFailure(e));
      return result;
    } finally {
      flights.land(flight, result);
    }
  }

  /** No value: load it once per process, and once across processes when the others are quick. */
  private String loadOnce(String key, Duration ttl, Loader loader) {
    LocalFlights.Flight flight = flights.join(key);
    if (!flight.leader()) {
      return flights.await(flight);
    }
    try {
      String value = leadLoad(key, ttl, loader);
      flights.land(flight, value);
      return value;
    } catch (RuntimeException | Error e) {
      flights.crash(flight, e);
      throw e;
    }
  }

  private String leadLoad(String key, Duration ttl, Loader loader) {
    Optional<String> token;
    try {
      token = flightLock.tryAcquire(key);
    } catch (RuntimeException e) {
      return loadWithoutCache(key, loader, redisFailure(e));
    }
    if (token.isPresent()) {
      try {
        String written = writtenMeanwhile(key);
        return written != null ? written : loadAndWrite(key, ttl, loader);
      } finally {
        releaseQuietly(key, token.get());
      }
    }
    String written;
    try {
      written = awaitOtherLoader(key);
    } catch (RuntimeException e) {
      return loadWithoutCache(key, loader, redisFailure(e));
    }
    if (written != null) {
      return written;
    }
    // The other loader is slow or died: nobody is left without a value on its account.
    fallbacks.increment();
    return loadAndWrite(key, ttl, loader);
  }

  /**
   * The value another process wrote (and released the lock) between our read and our taking the
   * lock, or null. Without this look the loader would run twice in that window.
   */
  private String writtenMeanwhile(String key) {
    try {
      return store.get(key);
    } catch (RuntimeException e) {
      redisFailure(e);
      // Redis is failing: loading is what remains, and its write will tell us more.
      return null;
    }
  }

  /** The value another process writes within waitForOtherLoader, or null. */
  private String awaitOtherLoader(String key) {
    long deadline = System.nanoTime() + waitForOtherLoader.toNanos();
    while (true) {
      String value = store.get(key);
      if (value != null) {
        return value;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, pollInterval.toNanos()));
      } catch (InterruptedException e) {
        // Stop waiting, keep the interrupt for the caller; loading ourselves still gives a value.
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  private String loadAndWrite(String key, Duration ttl, Loader loader) {
    long started = System.nanoTime();
    String value = runLoader(key, loader);
    long deltaMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    if (value == null) {
      return null;
    }
    try {
      boolean written = store.write(key, new ValueStore.Written(value, ttl.toMillis(), deltaMillis));
      if (!written) {
        LOG.debug("value of key '{}' not cached: the service wrote a fresh one meanwhile", key);
      }
    } catch (RuntimeException e) {
      redisWarning.warn(
          "Redis failed while caching key '" + key + "'; the loaded value is returned uncached", redisFailure(e));
    }
    return value;
  }

  /**
   * {@code failure} when it is Redis's (the caller then carries on without the cache); rethrown
   * when it is anything else, such as a bug, which falling back would hide.
   */
  private RuntimeException redisFailure(RuntimeException failure) {
    if (!driver.isRedisFailure(failure)) {
      throw failure;
    }
    return failure;
  }

  private String loadWithoutCache(String key, Loader loader, RuntimeException cause) {
    degradedLoads.increment();
    redisWarning.warn("Redis failed on key '" + key + "'; value loaded without the cache", cause);
    return runLoader(key, loader);
  }

  private String runLoader(String key, Loader loader) {
    loaderRuns.increment();
    try {
      return loader.load();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new LoaderException("loader of key '" + key + "' failed: " + e, e);
    }
  }

  private void releaseQuietly(String key, String token) {
    try {
      flightLock.release(key, token);
    } catch (RuntimeException e) {
      // The lease frees it anyway.
      redisWarning.warn("could not release the single-flight lock of key '" + key + "'", redisFailure(e));
    }
  }

  /** Options of a {@link RefresherClient}; each has a default. */
  public static final class Builder {
    private final RedisDriver driver;
    private final String redisUrl;
    private Duration flushInterval = AccessCounter.DEFAULT_FLUSH_INTERVAL;
    private int maxPendingKeys = AccessCounter.DEFAULT_MAX_PENDING_KEYS;
    private double beta = EarlyRecompute.DEFAULT_BETA;
    private RandomGenerator random;
    private InstantSource clock = InstantSource.system();
    private Duration singleFlightLease = DEFAULT_SINGLE_FLIGHT_LEASE;
    private Duration waitForOtherLoader = DEFAULT_WAIT_FOR_OTHER_LOADER;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;

    private Builder(RedisDriver driver, String redisUrl) {
      this.driver = driver;
      this.redisUrl = redisUrl;
    }

    /** How often read counts are written to Redis; 10 ms to 60 s, default 1 s. */
    public Builder flushInterval(Duration flushInterval) {
      this.flushInterval = AccessCounter.checkedFlushInterval(flushInterval);
      return this;
    }

    /** How many distinct keys' read counts may wait for a flush; default 100,000. */
    public Builder maxPendingKeys(int maxPendingKeys) {
      this.maxPendingKeys = AccessCounter.checkedMaxPendingKeys(maxPendingKeys);
      return this;
    }

    /** XFetch's beta (> 0): above 1 recomputes earlier, below 1 later; default 1. */
    public Builder beta(double beta) {
      this.beta = EarlyRecompute.checkedBeta(beta);
      return this;
    }

    /** Randomness of early recomputation; default thread-local. A seeded one makes tests repeatable. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The clock of access buckets; default the system clock. Metadata times and expiry decisions
     * use Redis's clock, as the service does.
     */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How long the single-flight lock lives if its holder never releases it; default 10 s. */
    public Builder singleFlightLease(Duration singleFlightLease) {
      this.singleFlightLease = positive(singleFlightLease, "singleFlightLease");
      return this;
    }

    /** How long a caller waits for another process's loader before loading itself; default 1 s. */
    public Builder waitForOtherLoader(Duration waitForOtherLoader) {
      Objects.requireNonNull(waitForOtherLoader, "waitForOtherLoader");
      if (waitForOtherLoader.isNegative()) {
        throw new IllegalArgumentException("waitForOtherLoader must not be negative, was " + waitForOtherLoader);
      }
      this.waitForOtherLoader = waitForOtherLoader;
      return this;
    }

    /** How often a waiting caller looks for the other loader's value; default 20 ms. */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = positive(pollInterval, "pollInterval");
      return this;
    }

    public RefresherClient build() {
      RedisDriver chosen = driver != null ? driver : connect(redisUrl);
      try {
        return new RefresherClient(this, chosen);
      } catch (RuntimeException | Error e) {
        if (driver == null) {
          chosen.close();
        }
        throw e;
      }
    }

    /** The one driver module on the class path that connects from URLs, connected to redisUrl. */
    private static RedisDriver connect(String redisUrl) {
      var providers = ServiceLoader.load(UrlDriverProvider.class, RefresherClient.class.getClassLoader()).stream()
          .map(ServiceLoader.Provider::get)
          .toList();
      if (providers.isEmpty()) {
        throw new IllegalStateException(
            "RefresherClient.builder(String) needs a driver that connects from URLs on the class path"
                + " (io.refresher:refresher-client-redisson); or build on your own client:"
                + " RefresherClient.builder(LettuceDriver.of(connection)), JedisDriver.of(jedis), RedissonDriver.of(redisson)");
      }
      if (providers.size() > 1) {
        throw new IllegalStateException(
            "RefresherClient.builder(String) found several drivers that connect from URLs ("
                + providers.stream().map(UrlDriverProvider::name).toList()
                + "): build on your own client instead, RefresherClient.builder(<Driver>.of(client))");
      }
      return providers.get(0).connect(redisUrl.trim());
    }

    private static Duration positive(Duration duration, String name) {
      Objects.requireNonNull(duration, name);
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + duration);
      }
      return duration;
    }
  }
}

package io.refresher.redis;

import io.refresher.refresh.LoadBound;
import io.refresher.refresh.SourceLoad;
import io.refresher.refresh.SourceLoadListener;
import io.refresher.registry.Registration;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateLimiterConfig;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The datasources' load bound, shared by every replica through Redis.
 *
 * <ul>
 *   <li><b>Rate</b>: Redisson's {@link RRateLimiter} with {@link RateType#OVERALL}, a sliding
 *       window shared by all clients of this Redis: at most {@code maxQueriesPerSecond} source
 *       queries start in any second, however many replicas run, in small bursts ({@link Pace}). One
 *       permit is taken per query, just before it runs, so the window the limiter counts is the
 *       window the database sees (a batch of permits taken ahead would let queries that held
 *       permits for a while land in the next second). The waiting is Redisson's: its script
 *       answers how long until a permit frees, and the client retries then; no pub/sub.
 *   <li><b>Concurrency</b>: Redisson's {@link RPermitExpirableSemaphore}, also shared: at most
 *       {@code maxConcurrent} queries of the datasource run at once across replicas. Each slot is
 *       leased for the lock lease, so a replica that dies holding slots gives them back by itself.
 *       Waiting polls ({@code tryAcquire} without waiting, then a short pause): the semaphore's own
 *       waiting subscribes to a pub/sub channel per waiter, which is what this service avoids.
 * </ul>
 *
 * <p>Both live in Redis and are lost with its data; they are set up again on first use after a
 * loss ({@code trySetRate} / {@code trySetPermits} only set what is missing). The limiter uses the
 * replicas' clocks: keep them within a second of each other (Quartz needs that too).
 *
 * <p>A datasource without a bound costs nothing here: no Redis call.
 */
public final class RedisSourceLoad implements SourceLoad {

  private static final Logger LOG = LoggerFactory.getLogger(RedisSourceLoad.class);
  private static final String PREFIX = "refresher:load:";
  private static final long FIRST_PAUSE_MILLIS = 2;
  private static final long LONGEST_PAUSE_MILLIS = 25;
  /**
   * The limiter's window, before the guard: short, so that permits come in small bursts. A
   * sliding window hands out all its permits as soon as they are free: with a one-second window, a
   * backlog drew the whole second's 200 permits within 16 ms, then nothing for a second (200
   * queries landing on the database at once). With 100 ms windows the same bound comes as 20
   * permits every 100 ms. (Shorter windows lose more of the bound to the waiters' wake-up lag:
   * Redisson's timer ticks every 10 ms.) A bound below 10 per second uses one permit per {@code 1
   * / rate}.
   */
  static final long SHORTEST_WINDOW_MILLIS = 100;
  /**
   * Each window is widened by this fraction. A permit is taken right before its query, but on a
   * loaded machine a GC pause or a busy core can delay the query itself: without the guard, the
   * database saw up to 216 queries in one second under a bound of 200 (StormRefillIT, two replicas
   * on two cores, one-second windows). With it, any second of the database's clock holds at most
   * {@code ceil((1000 + delay) / 105)} windows of 20: the bound holds for queries delayed up to
   * 50 ms after their permit. The cost is a sustained rate 5% under the bound, and a little more
   * for the waiters' wake-up lag.
   */
  static final double WINDOW_GUARD = 0.05;

  /** The limiter's rate: permits per window. */
  record Pace(long permits, Duration window) {
    static Pace of(int queriesPerSecond) {
      long permits = Math.max(1, Math.round(queriesPerSecond * SHORTEST_WINDOW_MILLIS / 1000.0));
      long windowMillis = (long) Math.ceil(permits * 1000.0 / queriesPerSecond);
      return new Pace(permits, Duration.ofMillis((long) Math.ceil(windowMillis * (1 + WINDOW_GUARD))));
    }
  }

  private final RedisReachability reachability;
  private final Map<String, Limits> byDatasource = new LinkedHashMap<>();
  private final Function<String, String> datasourceOfSource;
  private final SourceLoadListener listener;
  private final Duration slotLease;

  /**
   * @param datasourceOfSource the datasource a source reads from (null for an unknown source)
   * @param slotLease how long a concurrency slot is held at most (the lock lease)
   */
  public RedisSourceLoad(
      RedissonClient redisson,
      Iterable<LoadBound> bounds,
      Function<String, String> datasourceOfSource,
      SourceLoadListener listener,
      Duration slotLease) {
    this(redisson, bounds, datasourceOfSource, listener, slotLease, RedisReachability.assumed());
  }

  /** @param reachability while Redis is known to be unreachable, admissions fail at once */
  public RedisSourceLoad(
      RedissonClient redisson,
      Iterable<LoadBound> bounds,
      Function<String, String> datasourceOfSource,
      SourceLoadListener listener,
      Duration slotLease,
      RedisReachability reachability) {
    this.reachability = reachability;
    this.datasourceOfSource = datasourceOfSource;
    this.listener = listener;
    this.slotLease = slotLease;
    for (LoadBound bound : bounds) {
      if (bound.bounded()) {
        byDatasource.put(bound.datasource(), new Limits(redisson, bound));
      }
    }
  }

  /** The bound of each datasource that has one. */
  public Map<String, LoadBound> bounds() {
    Map<String, LoadBound> bounds = new LinkedHashMap<>();
    byDatasource.forEach((name, limits) -> bounds.put(name, limits.bound));
    return bounds;
  }

  /** Refreshes of the datasource waiting for their turn on this replica now. */
  public int waiting(String datasource) {
    Limits limits = byDatasource.get(datasource);
    return limits == null ? 0 : limits.waiting.get();
  }

  /**
   * Refreshes of the datasource in line for a rate permit on this replica now: queued for their
   * turn, and the one whose turn it is. Unlike {@link #waiting}, counted only once a waiter has its
   * place in the line (the order it will be let through in).
   */
  public int inLine(String datasource) {
    Limits limits = byDatasource.get(datasource);
    return limits == null ? 0 : limits.turn.getQueueLength() + (limits.turn.isLocked() ? 1 : 0);
  }

  /** Sets up the shared limiters (or updates them when the configuration changed); best effort. */
  public void initialise() {
    for (Limits limits : byDatasource.values()) {
      try {
        limits.initialise(true);
      } catch (RedisException e) {
        LOG.warn("load bound of datasource '{}' not set up yet ({}); it is on first use", limits.bound.datasource(), e.getMessage());
      }
    }
  }

  @Override
  public Optional<Admission> admit(Registration registration) {
    String datasource = datasourceOfSource.apply(registration.source());
    Limits limits = datasource == null ? null : byDatasource.get(datasource);
    if (limits == null) {
      return Optional.of(Admission.FREE);
    }
    reachability.require("load bound of datasource '" + datasource + "'");
    long started = System.nanoTime();
    limits.waiting.incrementAndGet();
    try {
      Optional<Admission> admission = limits.admit(started + limits.bound.maxWait().toNanos());
      if (limits.slots != null) {
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        if (admission.isPresent()) {
          listener.onAdmitted(datasource, waited);
        } else {
          listener.onThrottled(datasource, waited);
        }
      }
      return admission;
    } catch (RedisException e) {
      throw RedisCacheStore.unavailable("load bound of datasource '" + datasource + "'", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } finally {
      limits.waiting.decrementAndGet();
    }
  }

  private final class Limits {
    private final LoadBound bound;
    private final RRateLimiter rate;
    private final Pace pace;
    private final RPermitExpirableSemaphore slots;
    private final AtomicInteger waiting = new AtomicInteger();
    /**
     * This replica's waiters for a rate permit take turns, first come first served: only the one
     * whose turn it is waits on the shared limiter. Redisson's limiter lets each waiter retry on
     * its own clock, and whichever retry lands first takes the permit, so a refill's hottest keys,
     * claimed first, were now and then passed by cooler ones for a second. Across replicas the
     * limiter still decides; each replica's share stays in its own order.
     */
    private final ReentrantLock turn = new ReentrantLock(true);

    Limits(RedissonClient redisson, LoadBound bound) {
      this.bound = bound;
      this.rate = bound.maxQueriesPerSecond() > 0 ? redisson.getRateLimiter(PREFIX + "rate:" + bound.datasource()) : null;
      this.pace = bound.maxQueriesPerSecond() > 0 ? Pace.of(bound.maxQueriesPerSecond()) : null;
      this.slots = bound.maxConcurrent() > 0 ? redisson.getPermitExpirableSemaphore(PREFIX + "slots:" + bound.datasource()) : null;
    }

    void initialise(boolean updateChanged) {
      if (rate != null && !rate.trySetRate(RateType.OVERALL, pace.permits(), pace.window()) && updateChanged) {
        RateLimiterConfig stored = rate.getConfig();
        if (stored.getRate() != pace.permits() || stored.getRateInterval() != pace.window().toMillis()) {
          rate.setRate(RateType.OVERALL, pace.permits(), pace.window());
          LOG.info("load bound of datasource '{}' changed to {} queries/s", bound.datasource(), bound.maxQueriesPerSecond());
        }
      }
      if (slots != null && !slots.trySetPermits(bound.maxConcurrent()) && updateChanged) {
        if (slots.getPermits() != bound.maxConcurrent()) {
          slots.setPermits(bound.maxConcurrent());
          LOG.info("load bound of datasource '{}' changed to {} concurrent queries", bound.datasource(), bound.maxConcurrent());
        }
      }
    }

    Optional<Admission> admit(long deadlineNanos) throws InterruptedException {
      String slot = null;
      if (slots != null) {
        slot = takeSlot(deadlineNanos);
        if (slot == null) {
          return Optional.empty();
        }
      }
      String held = slot;
      return Optional.of(
          new Admission() {
            @Override
            public boolean awaitRate() {
              if (rate == null) {
                return true;
              }
              long started = System.nanoTime();
              waiting.incrementAndGet();
              try {
                boolean permitted = takePermit(deadlineNanos);
                Duration waited = Duration.ofNanos(System.nanoTime() - started);
                if (permitted) {
                  listener.onAdmitted(bound.datasource(), waited);
                } else {
                  listener.onThrottled(bound.datasource(), waited);
                }
                return permitted;
              } catch (RedisException e) {
                throw RedisCacheStore.unavailable("load bound of datasource '" + bound.datasource() + "'", e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              } finally {
                waiting.decrementAndGet();
              }
            }

            @Override
            public void close() {
              giveBack(held);
            }
          });
    }

    private String takeSlot(long deadlineNanos) throws InterruptedException {
      long pause = FIRST_PAUSE_MILLIS;
      boolean checkedSetUp = false;
      while (true) {
        String id = slots.tryAcquire(0, slotLease.toMillis(), TimeUnit.MILLISECONDS);
        if (id != null) {
          return id;
        }
        if (!checkedSetUp) {
          // A semaphore lost with Redis's data has no permits at all: set it up again if so.
          checkedSetUp = true;
          slots.trySetPermits(bound.maxConcurrent());
          continue;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        Thread.sleep(Math.min(pause, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
        pause = Math.min(LONGEST_PAUSE_MILLIS, pause * 2);
      }
    }

    private boolean takePermit(long deadlineNanos) throws InterruptedException {
      if (!turn.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        return false;
      }
      try {
        return takePermitInTurn(deadlineNanos);
      } finally {
        turn.unlock();
      }
    }

    private boolean takePermitInTurn(long deadlineNanos) {
      Duration left = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
      try {
        return rate.tryAcquire(1, left);
      } catch (RedisException e) {
        if (!String.valueOf(e.getMessage()).contains("not initialized")) {
          throw e;
        }
        // Lost with Redis's data (or never set up): set it up and try again.
        initialise(false);
        return rate.tryAcquire(1, Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
      }
    }

    private void giveBack(String slot) {
      if (slot == null) {
        return;
      }
      slots.tryReleaseAsync(slot)
          .whenComplete(
              (released, error) -> {
                if (error != null) {
                  LOG.debug("concurrency slot of datasource '{}' not given back ({}); its lease frees it", bound.datasource(), error.getMessage());
                }
              });
    }
  }
}

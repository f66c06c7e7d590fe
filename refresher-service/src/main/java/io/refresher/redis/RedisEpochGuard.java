package io.refresher.redis;

import io.refresher.refresh.EpochChange;
import io.refresher.refresh.EpochSource;
import io.refresher.refresh.EpochStore;
import io.refresher.failure.RegistryUnavailableException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that Redis lost its data, and keeps the data epoch that fences are made of.
 *
 * <p>A marker key, {@code refresher:epoch}, holds the current epoch. It has no TTL, so it vanishes
 * only when Redis loses its data (restart without persistence, failover to an empty replica,
 * {@code FLUSHALL}). When a check finds it missing, the guard takes the next epoch from PostgreSQL
 * and sets the marker with {@code SET NX}: of several replicas noticing at once, one wins and runs
 * the data-loss action (rebuilding the due index); the others adopt the winner's epoch. Keyspace
 * notifications are not used: they are lost while disconnected.
 *
 * <p>Redis that was only unreachable (a restart that kept its data, a network blip) comes back
 * with its marker: then no recovery runs, only {@code onReachableAgain} (which puts keys
 * registered during the outage into the due index). While Redis is unreachable the marker is
 * checked every {@value #UNREACHABLE_CHECK_MILLIS} ms, so a loss is noticed within a fraction of
 * a second of Redis accepting connections again. The data-loss action runs on the caller's
 * executor, never on the checking thread.
 *
 * <p>Failure semantics: when Redis or PostgreSQL cannot be reached, the current epoch is kept and
 * the next check tries again.
 */
public final class RedisEpochGuard implements EpochSource {

  public static final String MARKER = "refresher:epoch";
  private static final Logger LOG = LoggerFactory.getLogger(RedisEpochGuard.class);

  private final RedissonClient redisson;
  private final List<String> markers;
  private final EpochStore store;
  static final long UNREACHABLE_CHECK_MILLIS = 100;

  /** What a data loss means for the service (the prewarm): given the new epoch. */
  public interface DataLossListener {
    void onDataLoss(long epoch);
  }

  private volatile DataLossListener onDataLoss = epoch -> {};
  private volatile Runnable onReachableAgain = () -> {};
  private final RedisReachability reachability;
  private final long probeTimeoutMillis;
  private final int missesToUnreachable;
  private volatile boolean unreachable;
  /** Checks in a row that got no answer; 0 after an answered one. */
  private int missesInARow;
  /** When the first of the current run of missed checks started. */
  private long firstMissMillis;
  private final AtomicLong missedChecks = new AtomicLong();
  private volatile long lastCheckMillis;
  private final Duration interval;
  private final AtomicLong epoch = new AtomicLong();
  /** The last marker value found below this replica's epoch and logged (logged once per value). */
  private final AtomicLong lowerMarkerWarned = new AtomicLong(-1);
  private final AtomicLong dataLosses = new AtomicLong();
  private final AtomicLong returns = new AtomicLong();
  private final AtomicLong failovers = new AtomicLong();
  /** The epoch's latest change after this replica's first check; null until there is one. */
  private volatile EpochChange latestChange;
  private final RedisTopology topology;
  /** The primary as last seen; null before the first look. */
  private volatile SeenPrimary primary;
  private final ScheduledExecutorService checks;
  private final InstantSource clock;
  private volatile ScheduledExecutorService thread;
  private final java.util.concurrent.atomic.AtomicBoolean checkQueued = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * @param markers the marker keys ({@link EpochMarkers}): one on a single server, one per slot
   *     range on a cluster
   * @param reachability marked unreachable when a check fails on Redis, reachable when one
   *     succeeds
   * @param probe how long a check waits for Redis, and how many checks in a row must go
   *     unanswered before Redis counts as unreachable (the adapters then fail fast until the next
   *     answered check, 100 ms later); one is not enough, see {@link RedisProbe}
   * @param topology tells which server is the primary: a change (a failover behind Sentinel)
   *     advances the epoch without a refill, see {@link #checkPrimary(long)}
   * @param thread the one thread the checks run on; shut down by {@link #stop()}
   * @param clock this machine's: when the next periodic check is due
   */
  public RedisEpochGuard(
      RedissonClient redisson,
      List<String> markers,
      EpochStore store,
      Duration interval,
      RedisReachability reachability,
      RedisProbe probe,
      RedisTopology topology,
      ScheduledExecutorService thread,
      InstantSource clock) {
    this.topology = topology;
    this.reachability = reachability;
    this.probeTimeoutMillis = probe.timeout().toMillis();
    this.missesToUnreachable = probe.misses();
    this.redisson = redisson;
    this.markers = List.copyOf(markers);
    this.store = store;
    this.interval = interval;
    this.checks = thread;
    this.clock = clock;
  }

  /**
   * What a data loss means for the service (the refill), set before {@link #start()}: runs after a
   * data loss is detected, on the replica that set the new epoch only; must return quickly (hand
   * the work to an executor). Set after construction because the refill itself reads this guard's
   * epoch.
   */
  public void onDataLoss(DataLossListener listener) {
    this.onDataLoss = listener;
  }

  /**
   * Runs when Redis answers again after an outage, with its data (set before {@link #start()}):
   * the registrations made meanwhile get their due entries. Set after construction because the
   * refresh path that does it takes this guard as its epoch source.
   */
  public void onReachableAgain(Runnable action) {
    this.onReachableAgain = action;
  }

  @Override
  public long currentEpoch() {
    return epoch.get();
  }

  /** How many times this replica detected data loss and ran the recovery. */
  public long dataLossesHandled() {
    return dataLosses.get();
  }

  /** How many failovers (a new primary that kept the markers) this replica advanced the epoch for. */
  public long failoversHandled() {
    return failovers.get();
  }

  /**
   * Checks that got no answer within the probe timeout, whether or not enough followed in a row
   * to count Redis as unreachable: many with no outage mean a busy client (or a slow Redis).
   */
  public long missedChecks() {
    return missedChecks.get();
  }

  /**
   * The epoch's latest change that this replica saw (a data loss or failover it handled, or an
   * epoch another replica advanced), for the console; empty while the epoch has not changed since
   * this replica started (a new Redis found at the start counts as a data loss: it had no markers).
   */
  public java.util.Optional<EpochChange> latestChange() {
    return java.util.Optional.ofNullable(latestChange);
  }

  /** How many times Redis came back with its data after this replica found it unreachable. */
  public long returnsWithData() {
    return returns.get();
  }

  public synchronized void start() {
    check();
    thread = checks;
    long tick = Math.min(interval.toMillis(), UNREACHABLE_CHECK_MILLIS);
    thread.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
  }

  public synchronized void stop() {
    if (thread != null) {
      thread.shutdownNow();
      thread = null;
    }
  }

  /**
   * Looks at the marker as soon as possible (a connection to Redis was just made): a Redis that
   * came back empty is noticed within milliseconds of accepting connections. Returns at once.
   */
  public void checkSoon() {
    ScheduledExecutorService checking = thread;
    // A reconnection reconnects every pooled connection: one check covers them all.
    if (checking != null && !checking.isShutdown() && checkQueued.compareAndSet(false, true)) {
      try {
        checking.execute(
            () -> {
              checkQueued.set(false);
              check();
            });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        checkQueued.set(false); // stopping
      }
    }
  }

  private void tick() {
    // Once a check is missed the next ones follow closely: an outage is noticed within the misses'
    // timeouts, not the interval's.
    if (unreachable || missesInARow() > 0 || clock.millis() - lastCheckMillis >= interval.toMillis()) {
      check();
    }
  }

  /** One check; public so tests and the restart path can force it. */
  public void check() {
    long startedMillis = clock.millis();
    lastCheckMillis = startedMillis;
    try {
      List<String> values = readMarkers();
      answered();
      boolean wasUnreachable = unreachable;
      unreachable = false;
      reachability.markReachable();
      List<String> missing = new ArrayList<>();
      long highest = 0;
      for (int i = 0; i < markers.size(); i++) {
        if (values.get(i) == null) {
          missing.add(markers.get(i));
        } else {
          highest = Math.max(highest, Long.parseLong(values.get(i)));
        }
      }
      if (!missing.isEmpty()) {
        rememberPrimary();
      }
      if (missing.isEmpty()) {
        checkPrimary(highest);
        adopt(Long.toString(highest));
        if (wasUnreachable) {
          returns.incrementAndGet();
          LOG.info("Redis reachable again with its data (epoch {}): no recovery needed", highest);
          onReachableAgain.run();
        }
        return;
      }
      long next = store.advance();
      // Of several replicas noticing at once, the one that sets the first missing marker wins; on
      // a cluster two may each win a different marker (the second read after the first had set
      // one but not yet the others). Markers are only ever raised, so they end at the higher
      // epoch, and only the replica whose epoch that is leads.
      RBucket<String> first = redisson.getBucket(missing.get(0), StringCodec.INSTANCE);
      // A marker holding this replica's own epoch is its win: epochs come from PostgreSQL, one per
      // advance, and Redisson re-sends a SET NX whose reply was late, which then finds the first's.
      String mine = Long.toString(next);
      if (first.setIfAbsent(mine) || mine.equals(first.get())) {
        long highestNow = raiseMarkers(next);
        if (highestNow > next) {
          adopt(Long.toString(highestNow));
          LOG.info(
              "Redis lost its data; another replica took the newer epoch {} (this one took {}) and leads the refill",
              highestNow,
              next);
          return;
        }
        epoch.accumulateAndGet(next, Math::max);
        dataLosses.incrementAndGet();
        latestChange = new EpochChange(next, EpochChange.DATA_LOSS, clock.instant());
        LOG.warn(
            "Redis holds no epoch marker{}: it is new or lost its data. Data epoch is now {}; this replica leads the refill",
            markers.size() == 1 ? "" : " on " + missing.size() + " of " + markers.size() + " marker slots",
            next);
        onDataLoss.onDataLoss(next);
      } else {
        adopt(first.get());
      }
    } catch (RedisException e) {
      missed(startedMillis, e);
    } catch (RegistryUnavailableException e) {
      LOG.warn("Redis lost its epoch marker but PostgreSQL is unavailable to advance it: {}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("epoch check failed", e);
    }
  }

  private synchronized int missesInARow() {
    return missesInARow;
  }

  private synchronized void answered() {
    if (missesInARow > 0 && !unreachable) {
      LOG.info(
          "Redis answered the epoch check again after {} missed in a row: it was slow or this client was busy, not away",
          missesInARow);
    }
    missesInARow = 0;
  }

  /**
   * A check got no answer (or failed on the connection). Redis counts as unreachable only after
   * {@link RedisProbe#misses()} of them in a row, dated from the first: a client too busy to read
   * one reply in time is not an outage.
   */
  private synchronized void missed(long startedMillis, RedisException e) {
    missedChecks.incrementAndGet();
    if (missesInARow++ == 0) {
      firstMissMillis = startedMillis;
    }
    if (unreachable) {
      return;
    }
    if (missesInARow < missesToUnreachable) {
      LOG.info(
          "Redis did not answer the epoch check ({} of {} in a row before it counts as unavailable): {}",
          missesInARow,
          missesToUnreachable,
          e.getMessage());
      return;
    }
    LOG.warn(
        "Redis unavailable: {} checks in a row unanswered over {} ms, the last: {}; Redis commands fail fast until it answers again",
        missesInARow,
        clock.millis() - firstMissMillis,
        e.getMessage());
    unreachable = true;
    reachability.markUnreachable(firstMissMillis);
  }

  /**
   * Behind Sentinel: a new primary that still holds the markers came from a failover, and the
   * replica it was may have missed the old primary's last writes: values, fences and the lock
   * token counters, so a token handed out before the failover can be handed out again, and a
   * refresh still running from before it would tie with (and overwrite) a newer value written
   * under the repeated token. Moving to a new epoch fences off every write whose fence was taken
   * before: the epoch is advanced with a compare-and-set on the marker from the epoch this replica
   * knew, so of several replicas noticing the same failover one advances it and the others adopt
   * the result. The values are kept (no refill): what the replica missed is recomputed when due,
   * and a replica that lost the markers too is a data loss, handled by {@link #check()} as ever.
   *
   * <p>The first look only remembers the run_id. A failure to ask the primary throws {@link
   * RedisException}, which the check handles as Redis being unreachable.
   */
  private void checkPrimary(long markerEpoch) {
    Optional<String> runId = topology.primaryRunId();
    if (runId.isEmpty()) {
      return;
    }
    SeenPrimary previous = primary;
    if (previous == null
        || previous.runId().equals(runId.get())
        || (previous.markerEpoch() >= 0 && markerEpoch > previous.markerEpoch())) {
      // Unchanged, or the epoch moved on since that primary was seen: another replica advanced it
      // for this failover, or the new primary had lost the markers and the loss took a new epoch.
      primary = new SeenPrimary(runId.get(), Math.max(markerEpoch, previous == null ? 0 : previous.markerEpoch()));
      return;
    }
    long next = store.advance(); // throws while PostgreSQL is away: the next check tries again
    // Sent again after a late reply (Redisson resends scripts), it finds its own epoch and says so.
    String now = compareAndSetMarker(markers.get(0), markerEpoch, next);
    if (now == null) {
      return; // the marker vanished meanwhile: the next check finds a data loss
    }
    primary = new SeenPrimary(runId.get(), Long.parseLong(now));
    if (Long.toString(next).equals(now)) {
      failovers.incrementAndGet();
      latestChange = new EpochChange(next, EpochChange.FAILOVER, clock.instant());
      raiseMarkers(next);
      LOG.warn(
          "Redis's primary changed (run_id {} -> {}), a failover: data epoch advanced from {} to {}; writes fenced before it are refused, values kept",
          previous.runId(), runId.get(), markerEpoch, next);
    } else {
      LOG.info("Redis's primary changed (run_id {} -> {}); another replica advanced the epoch to {}", previous.runId(), runId.get(), now);
    }
    adopt(now);
  }

  /**
   * The markers are missing (a new Redis, or a data loss, whose new epoch fences everything
   * before it): the primary that holds them from now on is the one a later failover is told
   * from. Its epoch is not known yet (-1): the next check with the markers records it.
   */
  private void rememberPrimary() {
    topology.primaryRunId().ifPresent(runId -> primary = new SeenPrimary(runId, -1));
  }

  /** The primary as last seen, and the markers' epoch then (-1: not yet known). */
  private record SeenPrimary(String runId, long markerEpoch) {}

  /**
   * KEYS: a marker. ARGV: the epoch it is expected to hold, the new one. Sets the marker only if it
   * still holds the expected epoch; returns what it holds then (nil if it is gone).
   */
  static final String COMPARE_AND_SET_MARKER =
      """
      local stored = redis.call('GET', KEYS[1])
      if stored == ARGV[1] then
        redis.call('SET', KEYS[1], ARGV[2])
        return ARGV[2]
      end
      return stored
      """;

  private String compareAndSetMarker(String marker, long expected, long next) {
    return redisson
        .getScript(StringCodec.INSTANCE)
        .eval(
            marker,
            org.redisson.api.RScript.Mode.READ_WRITE,
            COMPARE_AND_SET_MARKER,
            org.redisson.api.RScript.ReturnType.VALUE,
            List.<Object>of(marker),
            Long.toString(expected),
            Long.toString(next));
  }

  /**
   * All markers in one batch (on a cluster, one round trip per master, in parallel), waiting at
   * most the probe timeout, without retries.
   */
  private List<String> readMarkers() {
    RBatch batch =
        redisson.createBatch(
            BatchOptions.defaults().responseTimeout(probeTimeoutMillis, TimeUnit.MILLISECONDS).retryAttempts(0));
    List<java.util.concurrent.CompletionStage<String>> reads = new ArrayList<>(markers.size());
    for (String marker : markers) {
      reads.add(batch.<String>getBucket(marker, StringCodec.INSTANCE).getAsync());
    }
    batch.execute();
    List<String> values = new ArrayList<>(markers.size());
    for (var read : reads) {
      values.add(read.toCompletableFuture().join());
    }
    return values;
  }

  /**
   * KEYS: a marker. ARGV: an epoch. Sets the marker to the epoch unless it holds a higher one;
   * returns what it holds then. Never lowering a marker keeps an election's late writes (a winner
   * that paused between its win and setting the other markers) from taking them back.
   */
  static final String RAISE_MARKER =
      """
      local stored = tonumber(redis.call('GET', KEYS[1]) or '-1')
      if stored < tonumber(ARGV[1]) then
        redis.call('SET', KEYS[1], ARGV[1])
        return ARGV[1]
      end
      return tostring(stored)
      """;

  /**
   * Raises every marker to {@code value} (one script per marker: on a cluster they live in
   * different slots) and returns the highest epoch they hold afterwards.
   */
  private long raiseMarkers(long value) {
    if (markers.size() == 1) {
      return value; // set by the election itself
    }
    RBatch batch = redisson.createBatch();
    List<java.util.concurrent.CompletionStage<String>> raised = new ArrayList<>(markers.size());
    for (String marker : markers) {
      raised.add(
          batch
              .getScript(StringCodec.INSTANCE)
              .evalAsync(
                  marker,
                  org.redisson.api.RScript.Mode.READ_WRITE,
                  RAISE_MARKER,
                  org.redisson.api.RScript.ReturnType.VALUE,
                  List.<Object>of(marker),
                  Long.toString(value)));
    }
    batch.execute();
    long highest = value;
    for (var marker : raised) {
      highest = Math.max(highest, Long.parseLong(marker.toCompletableFuture().join()));
    }
    return highest;
  }

  /**
   * Takes the epoch the markers hold, unless this replica already knows a higher one: an epoch
   * never goes backwards (a fence made with a lower epoch would be refused against values already
   * written with the higher one).
   */
  private void adopt(String marker) {
    if (marker == null) {
      return;
    }
    long value = Long.parseLong(marker);
    long previous = epoch.getAndAccumulate(value, Math::max);
    if (value > previous && previous != 0) {
      LOG.info("data epoch changed from {} to {}", previous, value);
      EpochChange seen = latestChange;
      if (seen == null || seen.epoch() < value) { // not the failover this replica just handled
        latestChange = new EpochChange(value, EpochChange.ANOTHER_REPLICA, clock.instant());
      }
    } else if (value < previous && lowerMarkerWarned.getAndSet(value) != value) {
      LOG.warn("Redis's epoch marker holds {}, older than this replica's epoch {}; kept {}", value, previous, previous);
    }
  }
}

package io.refresher.redis;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.protocol.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's clock: this machine's clock moved to Redis's time.
 *
 * <p>Every scheduling decision compares times written by different replicas: due scores, claim
 * leases, {@code expiresAt}. With each replica on its own wall clock, one 5 s ahead claims every
 * key 5 s early (with a short TTL: continuously), and one 5 s behind writes due times that make
 * the others refresh at once, or starts late enough for values to pass their logical expiry. So
 * all replicas use one clock, Redis's ({@code TIME}), kept as an offset from the local clock and
 * measured again every {@link #MEASURE_EVERY_MILLIS}: between measurements time runs at the local
 * clock's rate (a drift of parts per million), and a failed measurement keeps the last offset.
 *
 * <p>A measurement is taken only from a reply within {@link #MAX_ROUND_TRIP_MILLIS}, and centred
 * on the request's midpoint, so the offset is accurate to half that.
 */
public final class RedisAlignedClock implements InstantSource {

  private static final Logger LOG = LoggerFactory.getLogger(RedisAlignedClock.class);

  static final long MEASURE_EVERY_MILLIS = 10_000;
  static final long MAX_ROUND_TRIP_MILLIS = 50;
  /** An offset beyond this is worth a warning: NTP keeps machines within milliseconds. */
  static final long WARN_OFFSET_MILLIS = 1_000;

  private final InstantSource local;
  private final LongSupplier redisMillis;
  private volatile long offsetMillis;
  private volatile boolean measured;
  private volatile boolean warned;

  /** Redis's time from the single server, or from one cluster master (their clocks agree via NTP). */
  public static RedisAlignedClock of(RedissonClient redisson, boolean cluster, InstantSource local) {
    return new RedisAlignedClock(
        local,
        () -> {
          Time time =
              cluster
                  ? redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters().iterator().next().time()
                  : redisson.getRedisNodes(RedisNodes.SINGLE).getInstance().time();
          return time.getSeconds() * 1_000L + time.getMicroseconds() / 1_000L;
        });
  }

  /**
   * @param local this machine's clock
   * @param redisMillis reads Redis's time in epoch ms (one round trip); may throw
   */
  public RedisAlignedClock(InstantSource local, LongSupplier redisMillis) {
    this.local = local;
    this.redisMillis = redisMillis;
  }

  @Override
  public long millis() {
    return local.millis() + offsetMillis;
  }

  @Override
  public Instant instant() {
    return local.instant().plusMillis(offsetMillis);
  }

  /** How far Redis's clock is ahead of this machine's (negative: behind), as last measured. */
  public long offsetMillis() {
    return offsetMillis;
  }

  public boolean measured() {
    return measured;
  }

  /**
   * Measures the offset (up to three tries for a quick reply). Returns whether it was measured;
   * never throws.
   */
  public boolean measure() {
    for (int attempt = 0; attempt < 3; attempt++) {
      long before;
      long redis;
      long after;
      try {
        before = local.millis();
        redis = redisMillis.getAsLong();
        after = local.millis();
      } catch (RuntimeException e) {
        LOG.debug("Redis TIME not read ({}); keeping the clock offset of {} ms", e.getMessage(), offsetMillis);
        return false;
      }
      if (after - before <= MAX_ROUND_TRIP_MILLIS) {
        apply(redis - (before + after) / 2);
        return true;
      }
    }
    return false;
  }

  private void apply(long offset) {
    boolean first = !measured;
    offsetMillis = offset;
    measured = true;
    if (Math.abs(offset) > WARN_OFFSET_MILLIS) {
      if (!warned || first) {
        LOG.warn(
            "this machine's clock is {} ms {} Redis's; the service schedules by Redis's time. Check NTP on this host",
            Math.abs(offset),
            offset > 0 ? "behind" : "ahead of");
      }
      warned = true;
    } else if (warned) {
      LOG.info("this machine's clock is within {} ms of Redis's again", Math.abs(offset));
      warned = false;
    }
  }

  /** Measures now (before anything schedules) and then every {@link #MEASURE_EVERY_MILLIS}. */
  public void start(ScheduledExecutorService executor) {
    measure();
    executor.scheduleWithFixedDelay(this::measure, MEASURE_EVERY_MILLIS, MEASURE_EVERY_MILLIS, TimeUnit.MILLISECONDS);
  }
}

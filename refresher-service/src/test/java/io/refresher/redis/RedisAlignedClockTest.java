package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RedisAlignedClockTest {

  /** A local clock that advances by {@code step} ms on every read. */
  private static final class SteppingClock implements InstantSource {
    final AtomicLong now = new AtomicLong(1_000_000);
    volatile long step;

    @Override
    public long millis() {
      return now.getAndAdd(step);
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }
  }

  @Test
  void measure_offsetCentredOnTheRequestsMidpoint() {
    SteppingClock local = new SteppingClock();
    local.step = 10; // reads at 1,000,000 and 1,000,010: midpoint 1,000,005
    RedisAlignedClock clock = new RedisAlignedClock(local, () -> 1_005_005);

    assertThat(clock.measure()).isTrue();

    assertThat(clock.offsetMillis()).isEqualTo(5_000);
    local.step = 0;
    assertThat(clock.millis()).isEqualTo(local.now.get() + 5_000);
    assertThat(clock.instant().toEpochMilli()).isEqualTo(local.now.get() + 5_000);
  }

  @Test
  void measure_slowReplies_ignored_offsetKept() {
    SteppingClock local = new SteppingClock();
    local.step = 1;
    RedisAlignedClock clock = new RedisAlignedClock(local, () -> local.now.get() - 2_000);
    assertThat(clock.measure()).isTrue();
    long kept = clock.offsetMillis();

    local.step = RedisAlignedClock.MAX_ROUND_TRIP_MILLIS + 1;
    RedisAlignedClock slow = new RedisAlignedClock(local, () -> 0);

    assertThat(slow.measure()).isFalse();
    assertThat(slow.offsetMillis()).as("never measured: the local clock as is").isZero();
    assertThat(kept).isBetween(-2_001L, -1_999L);
  }

  @Test
  void measure_redisFails_keepsTheLastOffset() {
    SteppingClock local = new SteppingClock();
    AtomicLong redis = new AtomicLong(1_000_000 + 3_000);
    boolean[] failing = {false};
    RedisAlignedClock clock =
        new RedisAlignedClock(
            local,
            () -> {
              if (failing[0]) {
                throw new IllegalStateException("Redis unavailable");
              }
              return redis.get();
            });
    assertThat(clock.measure()).isTrue();
    assertThat(clock.offsetMillis()).isEqualTo(3_000);

    failing[0] = true;

    assertThat(clock.measure()).isFalse();
    assertThat(clock.offsetMillis()).isEqualTo(3_000);
    assertThat(clock.measured()).isTrue();
  }
}

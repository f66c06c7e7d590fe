package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.driver.CallOutcome;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.driver.RedisScript;
import io.refresher.client.driver.ScriptCall;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The counter's books, whatever its driver does: recorded = flushed + dropped + unconfirmed +
 * pending. Pure accounting, so the driver here is a stand-in that fails the way a buggy one would.
 */
class AccessCounterAccountingTest {

  /** A driver whose pipeline throws, as no driver should: a bug, not a Redis failure. */
  private static final class ThrowingDriver implements RedisDriver {
    @Override
    public String get(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean setIfAbsent(String key, String value, Duration lease) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean delete(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object eval(RedisScript script, List<String> keys, List<String> args) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<CallOutcome> evalPipelined(RedisScript script, List<ScriptCall> calls) {
      throw new IllegalStateException("a driver's bug, after it may have sent the calls");
    }

    @Override
    public boolean isRedisFailure(RuntimeException failure) {
      return false;
    }

    @Override
    public void close() {}
  }

  @Test
  void aDriverThatThrows_losesNoReadFromTheBooks() {
    try (AccessCounter counter = AccessCounter.builder(new ThrowingDriver()).flushInterval(Duration.ofSeconds(60)).build()) {
      for (int i = 0; i < 10; i++) {
        counter.record("product:" + (i % 3));
      }

      assertThat(counter.flush()).isFalse();

      AccessCounter.Stats stats = counter.stats();
      assertThat(stats.flushFailures()).isEqualTo(1);
      // The calls may have gone out before the driver threw: not sent again, so not pending.
      assertThat(stats.pendingKeys()).isZero();
      assertThat(stats.recorded())
          .as("recorded = flushed + dropped + unconfirmed (+ 0 pending), %s", stats)
          .isEqualTo(stats.flushed() + stats.dropped() + stats.unconfirmed());
      assertThat(stats.unconfirmed()).isEqualTo(10);
    }
  }
}

package io.refresher.changes;

import java.time.InstantSource;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The reconnect loop without a database: a server that cannot be reached. */
class ChangeListenerTest {

  @Test
  void run_connectionCannotBeOpened_retriedWithADoublingDelay_andStopEndsTheWait() throws Exception {
    List<Long> attempts = new CopyOnWriteArrayList<>();
    CountDownLatch fiveAttempts = new CountDownLatch(5);
    ChangeListener listener =
        new ChangeListener(
            "default",
            Set.of("product_changed"),
            () -> {
              attempts.add(System.nanoTime());
              fiveAttempts.countDown();
              throw new SQLException("Connection refused");
            },
            LeaderLock.of("refresher", "default"),
            Duration.ofMillis(10),
            notifications -> {},
            InstantSource.system());
    Thread thread = new Thread(listener, "listener-under-test");
    thread.start();

    assertThat(fiveAttempts.await(10, TimeUnit.SECONDS)).isTrue();
    long stopStarted = System.nanoTime();
    listener.stop(Duration.ofSeconds(5));
    long stopMillis = (System.nanoTime() - stopStarted) / 1_000_000;
    thread.join(1000);

    assertThat(thread.isAlive()).isFalse();
    assertThat(listener.isListening()).isFalse();
    assertThat(stopMillis).as("a stop wakes the wait before the next attempt").isLessThan(1000);
    for (int i = 1; i < 5; i++) {
      long gapMillis = (attempts.get(i) - attempts.get(i - 1)) / 1_000_000;
      assertThat(gapMillis).as("wait before attempt %d", i + 1).isGreaterThanOrEqualTo(10L << (i - 1));
    }
  }
}

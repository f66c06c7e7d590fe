package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static io.refresher.it.HotKeyApps.json;
import static io.refresher.it.HotKeyApps.refreshing;
import static io.refresher.it.HotKeyApps.register;
import static io.refresher.it.HotKeyApps.status;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * A key read often becomes hot and is refreshed before it expires: polled every 20 ms over three
 * refresh cycles (TTL 2 s, no stale grace, no jitter), never absent. A bound of time: it runs in
 * the timed lane (timed-tests.txt); at the lowest CPU priority beside three service JVMs a refresh
 * came late and one poll found the key absent. The rest of the hot path is {@link HotKeysIT}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HotKeyNeverAbsentIT {

  private static final double READS_PER_SECOND = 50;
  private static final TestApp APP = HotKeyApps.create("hot_key_never_absent");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private AccessReporter reads;

  @AfterEach
  void stopReading() {
    if (reads != null) {
      reads.close();
    }
  }

  private AccessReporter reads() {
    if (reads == null) {
      reads = new AccessReporter(APP.redis());
    }
    return reads;
  }

  @Test
  void keyReadOften_becomesHot_andIsRefreshedBeforeExpiry_withNoAbsenceOverThreeCycles() throws Exception {
    String key = "hot:read-often";
    register(APP, key);
    // Registered and never read: demoted after the cold grace, then it expires on its own.
    await("registered key, never read, is demoted").atMost(Duration.ofSeconds(20)).until(() -> !refreshing(APP, key));
    await("and expires").atMost(Duration.ofSeconds(10)).until(() -> APP.get(key) == null);

    reads().read(key, READS_PER_SECOND);

    await("read often, it becomes hot again and is refreshed")
        .atMost(Duration.ofSeconds(20))
        .until(() -> refreshing(APP, key) && APP.get(key) != null);
    JsonNode status = status(APP, key);
    assertThat(status.at("/hot/rate").asDouble()).isGreaterThanOrEqualTo(5);

    // Three refresh cycles (TTL 2 s): poll presence every 20 ms and record each value's metadata.
    List<Map<String, String>> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
    AtomicInteger polls = new AtomicInteger();
    AtomicInteger absent = new AtomicInteger();
    await("three refresh cycles observed")
        .during(Duration.ofMillis(6500))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (APP.get(key) == null) {
                absent.incrementAndGet();
              }
              Map<String, String> meta = APP.meta(key);
              if (meta.containsKey("computedAt")
                  && (writes.isEmpty()
                      || !Objects.equals(writes.get(writes.size() - 1).get("computedAt"), meta.get("computedAt")))) {
                writes.add(meta);
              }
              polls.incrementAndGet();
              return true; // sampling only: the figures are asserted below
            });

    LoggerFactory.getLogger(HotKeyNeverAbsentIT.class)
        .info(
            "hot key over 6.5 s: {} polls, {} absent, {} values written, rate {} reads/s",
            polls.get(),
            absent.get(),
            writes.size(),
            status.at("/hot/rate").asDouble());
    assertThat(polls.get()).isGreaterThan(100);
    assertThat(absent.get()).as("polls that found the hot key absent").isZero();
    assertThat(writes.size()).as("distinct values over three cycles").isGreaterThanOrEqualTo(3);
    for (int i = 1; i < writes.size(); i++) {
      long computedAt = Long.parseLong(writes.get(i).get("computedAt"));
      long previousExpiry = Long.parseLong(writes.get(i - 1).get("expiresAt"));
      assertThat(computedAt).as("refresh %d happened before the previous value expired", i).isLessThan(previousExpiry);
    }
    JsonNode ttr = status(APP, key).get("ttr");
    assertThat(ttr.get("rate").asDouble()).as("the TTR knows the key's rate").isGreaterThanOrEqualTo(5);
    assertThat(ttr.get("heatFactor").asDouble()).isGreaterThan(1.0);

    JsonNode hot = json(APP.hot(10));
    assertThat(hot.get("items")).extracting(item -> item.get("key").asText()).contains(key);
    assertThat(APP.parts().hotSet().isHot(key)).isTrue();
    APP.deleteKey(key, true).close();
  }
}

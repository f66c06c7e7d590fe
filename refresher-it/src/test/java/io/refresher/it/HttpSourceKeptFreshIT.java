package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RecordingHttpServer;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * A key of an HTTP source (a real HTTP server answering a new value each time), TTL 2 s, polled
 * every 50 ms over three cycles: never absent, never past its logical expiry, a new value each
 * cycle. A bound of time, so it runs in the timed lane (timed-tests.txt): at the lowest CPU
 * priority beside a busy timed lane a refresh came late and a poll found the value past its
 * expiry. The rest of the HTTP sources' behaviour is {@link HttpSourcesIT}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class HttpSourceKeptFreshIT {

  private static final RecordingHttpServer SOURCE =
      RecordingHttpServer.start(request -> RecordingHttpServer.Reply.ok("fresh-" + UUID.randomUUID()));

  private static final TestApp APP =
      TestApp.withConfig(
          "http_source_kept_fresh",
          List.of(),
          """
          httpEndpoints:
            texts:
              baseUrl: http://127.0.0.1:%d
          sources:
            http-text:
              http: { endpoint: texts, path: "/text/{id}" }
              params: { id: string }
              timeout: 1s
          """
              .formatted(SOURCE.port()));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void keyFromHttpSource_overThreeTtls_refreshedEachCycle_neverAbsentNorExpired() {
    String key = "http:fresh";
    try (Response response =
        APP.putKey(key, "{\"source\":\"http-text\",\"params\":{\"id\":\"fresh\"},\"ttl\":\"PT2S\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    assertThat(APP.get(key)).startsWith("fresh-");

    Set<String> values = ConcurrentHashMap.newKeySet();
    AtomicInteger polls = new AtomicInteger();
    AtomicInteger absent = new AtomicInteger();
    AtomicInteger expired = new AtomicInteger();
    await("three refresh cycles sampled")
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              String value = APP.get(key);
              String expiresAt = APP.meta(key).get("expiresAt");
              long now = System.currentTimeMillis();
              polls.incrementAndGet();
              if (value == null) {
                absent.incrementAndGet();
              } else {
                values.add(value);
              }
              if (expiresAt == null || Long.parseLong(expiresAt) < now) {
                expired.incrementAndGet();
              }
              return true; // sampling only: the figures are asserted below
            });
    LoggerFactory.getLogger(HttpSourceKeptFreshIT.class)
        .info(
            "kept fresh: {} polls over 6 s, {} absent, {} past their logical expiry, {} distinct values, {} requests",
            polls.get(), absent.get(), expired.get(), values.size(), SOURCE.requestsTo("/text/fresh").size());

    assertThat(absent.get()).as("polls that found no value").isZero();
    assertThat(expired.get()).as("polls that found the value past its logical expiry").isZero();
    assertThat(values).as("a new value each cycle (2 s TTL, refreshed before it ends)").hasSizeGreaterThanOrEqualTo(3);
  }
}

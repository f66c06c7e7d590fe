package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.Gauge;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Freshness metrics a healthy hit rate cannot hide (issue 21, point 3), on real PostgreSQL and
 * Redis: a source whose refreshes fail keeps serving its old value, and the sweep shows that
 * value's age growing past its TTL, and the source's failure streak, while a healthy source's
 * oldest value stays younger than its TTL.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FreshnessIT {

  private static final TestApp APP =
      TestApp.create(
          "freshness",
          List.of(
              "CREATE TABLE test_switch (id bigint PRIMARY KEY, ok int NOT NULL)",
              "INSERT INTO test_switch VALUES (1, 1)"),
          "scheduler.freshnessInterval", "1s",
          "refresh.staleGrace", "1h"); // the failing key's old value stays readable
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static double gauge(String name) {
    Gauge<?> gauge = EXTENSION.getEnvironment().metrics().getGauges().get(name);
    assertThat(gauge).as(name).isNotNull();
    return ((Number) gauge.getValue()).doubleValue();
  }

  @Test
  void failingSource_oldestValueAgesPastItsTtl_healthyOneStaysYounger() throws Exception {
    try (Response failing = APP.putKey("freshness:failing", "{\"source\":\"switchable\",\"params\":{\"id\":1},\"ttl\":\"PT2S\",\"policy\":\"always\"}");
        Response healthy = APP.putKey("freshness:healthy", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\",\"policy\":\"always\"}")) {
      assertThat(failing.getStatus()).isEqualTo(201);
      assertThat(healthy.getStatus()).isEqualTo(201);
    }
    await("both sources swept").atMost(Duration.ofSeconds(20))
        .until(() -> gauge("refresher.source.switchable.kept-keys") == 1 && gauge("refresher.source.counted.kept-keys") == 1);

    APP.database().execute("UPDATE test_switch SET ok = 0 WHERE id = 1");

    await("the failing source's oldest value older than its 2 s TTL, twice over")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> gauge("refresher.source.switchable.oldest-value-seconds") > 4);
    assertThat(gauge("refresher.source.switchable.failing-seconds")).as("its failure streak").isGreaterThan(0);
    assertThat(gauge("refresher.source.switchable.keys-without-value")).as("its old value is still served").isZero();
    assertThat(gauge("refresher.source.counted.oldest-value-seconds")).as("the healthy source's oldest value").isLessThan(2.0);
    assertThat(gauge("refresher.source.counted.past-planned-ratio")).as("nothing late").isZero();
  }
}

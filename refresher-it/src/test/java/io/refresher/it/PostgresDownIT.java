package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service's own PostgreSQL goes away: values already in Redis stay served through the stale
 * grace, the admin API answers 503 with a JSON error, readiness goes down and liveness stays up
 * (a database blip must not restart pods). This class stops a PostgreSQL server of its own.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PostgresDownIT {

  private static final EmbeddedPostgreSql POSTGRES = EmbeddedPostgreSql.start();
  private static final TestApp APP =
      TestApp.on(
          "postgres_down",
          new TestDatabase(POSTGRES.createDatabase("postgres_down"), EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD),
          RealServers.newRedis(),
          "database.connectionTimeout",
          "1s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @AfterAll
  static void close() {
    // Idempotent: the test stopped it already, unless it failed before that.
    POSTGRES.close();
  }

  @Test
  void postgresDown_valuesStayServedAdminApiAnswers503ReadinessDownLivenessUp() {
    String key = "pgdown:report";
    try (Response response = APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    long logicalExpiry = Long.parseLong(APP.meta(key).get("expiresAt"));

    POSTGRES.close();

    await("the admin API reports the registry unavailable")
        .atMost(Duration.ofSeconds(30))
        .until(() -> status(APP.getKey(key)) == 503);
    try (Response response = APP.getKey(key)) {
      JsonNode body = response.readEntity(JsonNode.class);
      assertThat(body.path("code").asInt()).isEqualTo(503);
      assertThat(body.path("message").asText()).contains("registry database is unavailable");
      assertThat(response.getHeaderString("Retry-After")).isNotBlank();
    }
    try (Response response = APP.putKey("pgdown:new", "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\"}")) {
      assertThat(response.getStatus()).isEqualTo(503);
    }
    await("readiness goes down")
        .atMost(Duration.ofSeconds(30))
        .until(() -> status(APP.authorized(APP.api("/health-check").queryParam("type", "ready")).get()) == 503);
    assertThat(status(APP.authorized(APP.api("/health-check").queryParam("type", "alive")).get()))
        .as("liveness does not depend on PostgreSQL")
        .isEqualTo(200);

    await("the logical expiry passes")
        .atMost(Duration.ofSeconds(10))
        .until(() -> System.currentTimeMillis() > logicalExpiry + 1_000);
    assertThat(APP.get(key)).as("value still served from Redis").startsWith("counted-");
  }

  private static int status(Response response) {
    try (response) {
      return response.getStatus();
    }
  }
}

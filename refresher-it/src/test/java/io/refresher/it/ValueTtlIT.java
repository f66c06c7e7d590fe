package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RecordingHttpServer;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

/**
 * Values that carry their own TTL (issue 21, point 4): a SQL source's TTL column and an HTTP
 * response's {@code Cache-Control: max-age} each set the value's TTL, within the source's {@code
 * valueTtl} bounds, on real PostgreSQL, Redis and HTTP. The TTL shows in the key's metadata
 * ({@code expiresAt - computedAt}) and in the value's own expiry in Redis; a row without one, or a
 * response without the header, keeps the registration's TTL.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ValueTtlIT {

  private static final RecordingHttpServer HTTP =
      RecordingHttpServer.start(
          request -> {
            String maxAge = request.target().substring(request.target().lastIndexOf('/') + 1);
            Map<String, String> headers =
                maxAge.equals("none")
                    ? Map.of("Content-Type", "text/plain")
                    : Map.of("Content-Type", "text/plain", "Cache-Control", "public, max-age=" + maxAge);
            return new RecordingHttpServer.Reply(200, headers, ("v" + maxAge).getBytes(StandardCharsets.UTF_8), Duration.ZERO, false);
          });

  private static final TestApp APP =
      TestApp.withConfig(
          "value_ttl",
          List.of(
              "CREATE TABLE offer (id bigint PRIMARY KEY, title text NOT NULL, ttl_seconds numeric)",
              "INSERT INTO offer VALUES (1, 'in bounds', 90), (2, 'too long', 86400), (3, 'too short', 1), (4, 'says nothing', NULL)"),
          """
          httpEndpoints:
            offers:
              baseUrl: http://127.0.0.1:%d
          sources:
            offer-row:
              sql: SELECT id, title, ttl_seconds FROM offer WHERE id = :id
              params: { id: long }
              result: row
              timeout: 2s
              valueTtl: { column: ttl_seconds, min: 30s, max: 10m }
            offer-http:
              http: { endpoint: offers, path: "/offers/{age}" }
              params: { age: string }
              timeout: 2s
              valueTtl: { cacheControl: true, min: 30s, max: 10m }
          """
              .formatted(HTTP.port()));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @AfterAll
  static void stopServer() {
    HTTP.close();
  }

  /** Registers a key with a one-hour TTL; returns the TTL its value got (from its metadata). */
  private static Duration ttlOf(String key, String json) {
    try (Response response = APP.putKey(key, json)) {
      assertThat(response.getStatus()).as(response.readEntity(String.class)).isEqualTo(201);
    }
    Map<String, String> meta = APP.meta(key);
    assertThat(meta).as("metadata of %s", key).containsKeys("computedAt", "expiresAt");
    Duration ttl = Duration.between(instant(meta.get("computedAt")), instant(meta.get("expiresAt")));
    long pttl = APP.reader().getBucket(key, StringCodec.INSTANCE).remainTimeToLive();
    assertThat(pttl).as("the value's expiry in Redis (ms) follows the TTL it got").isGreaterThanOrEqualTo(ttl.toMillis() - 5_000);
    return ttl;
  }

  private static Instant instant(String value) {
    return value.chars().allMatch(Character::isDigit) ? Instant.ofEpochMilli(Long.parseLong(value)) : Instant.parse(value);
  }

  @Test
  void sqlTtlColumn_setsTheValuesTtl_withinItsBounds() {
    String oneHour = "{\"source\":\"offer-row\",\"params\":{\"id\":%d},\"ttl\":\"PT1H\"}";
    assertThat(ttlOf("offer:1", oneHour.formatted(1))).isEqualTo(Duration.ofSeconds(90));
    assertThat(ttlOf("offer:2", oneHour.formatted(2))).as("clamped to max").isEqualTo(Duration.ofMinutes(10));
    assertThat(ttlOf("offer:3", oneHour.formatted(3))).as("clamped to min").isEqualTo(Duration.ofSeconds(30));
    assertThat(ttlOf("offer:4", oneHour.formatted(4))).as("NULL: the registration's").isEqualTo(Duration.ofHours(1));
    assertThat(APP.get("offer:1")).as("the TTL column is not part of the value").doesNotContain("ttl_seconds").contains("in bounds");
  }

  @Test
  void cacheControlMaxAge_setsTheValuesTtl_withinItsBounds() {
    String oneHour = "{\"source\":\"offer-http\",\"params\":{\"age\":\"%s\"},\"ttl\":\"PT1H\"}";
    assertThat(ttlOf("offer-http:120", oneHour.formatted("120"))).isEqualTo(Duration.ofSeconds(120));
    assertThat(ttlOf("offer-http:999999", oneHour.formatted("999999"))).as("clamped to max").isEqualTo(Duration.ofMinutes(10));
    assertThat(ttlOf("offer-http:0", oneHour.formatted("0"))).as("clamped to min").isEqualTo(Duration.ofSeconds(30));
    assertThat(ttlOf("offer-http:none", oneHour.formatted("none"))).as("no header: the registration's").isEqualTo(Duration.ofHours(1));
  }
}

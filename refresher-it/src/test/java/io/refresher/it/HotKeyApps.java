package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * The service as the hot-key tests run it ({@link HotKeysIT}, {@link HotKeyNeverAbsentIT}), and
 * what they ask of a key.
 *
 * <p>Fast settings: rates halve every second, a key is hot at 5 reads/s and cold 2 s after it
 * falls below that; no stale grace and no jitter, so only on-time refreshes keep a key present.
 */
final class HotKeyApps {

  private static final ObjectMapper JSON = new ObjectMapper();

  private HotKeyApps() {}

  /**
   * @param name the test's database and application name
   * @param overrides more settings, name and value
   */
  static TestApp create(String name, String... overrides) {
    String[] settings = {
      "refresh.staleGrace", "0s",
      "refresh.jitter", "0",
      "access.halfLife", "1s",
      "access.hotThreshold", "5",
      "access.coldAfter", "2s",
      "access.sampleInterval", "250ms",
      "access.settle", "300ms",
      "access.snapshotInterval", "1s"
    };
    String[] all = java.util.Arrays.copyOf(settings, settings.length + overrides.length);
    System.arraycopy(overrides, 0, all, settings.length, overrides.length);
    return TestApp.create(
        name,
        List.of(
            "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
            "INSERT INTO test_product VALUES (7, 'Phone Pro', 1099.00, 'phones', ARRAY['5g']),"
                + " (8, 'Phone Mini', 699.00, 'phones', ARRAY['compact'])"),
        all);
  }

  /** A key of the {@code counted} source, TTL 2 s, policy {@code hot}. */
  static void register(TestApp app, String key) {
    try (Response response = app.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
  }

  static boolean refreshing(TestApp app, String key) {
    return status(app, key).get("refreshing").asBoolean();
  }

  static JsonNode status(TestApp app, String key) {
    return json(app.getKey(key)).get("status");
  }

  /** {@code POST /v1/refresh} of these keys (200 expected): each key's result, by key. */
  static java.util.Map<String, JsonNode> refreshByKey(TestApp app, List<String> keys) {
    JsonNode answer =
        json(app.authorized(app.api("/v1/refresh"))
            .post(jakarta.ws.rs.client.Entity.entity(java.util.Map.of("keys", keys), jakarta.ws.rs.core.MediaType.APPLICATION_JSON)));
    java.util.Map<String, JsonNode> byKey = new java.util.HashMap<>();
    answer.get("results").forEach(result -> byKey.put(result.get("key").asText(), result));
    return byKey;
  }

  static JsonNode json(Response response) {
    try (response) {
      assertThat(response.getStatus()).isEqualTo(200);
      return JSON.readTree(response.readEntity(String.class));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}

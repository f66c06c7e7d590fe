package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestConfig;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin API's happy paths against the real service on real Redis and PostgreSQL: registering
 * computes the value into Redis exactly as the source returns it, replacing keeps the creation time,
 * reading shows the live status, listing pages in byte order, keys with reserved characters round-trip,
 * manual refresh writes a newer version, deleting stops (and optionally evicts), and the sources and
 * health endpoints answer.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminApiLifecycleIT {

  private static final TestApp APP =
      TestApp.create(
          "admin_api_lifecycle",
          List.of(
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
              "CREATE TABLE test_switch (id bigint primary key, ok int)",
              "INSERT INTO test_product VALUES "
                  + "(1, 'Laptop', 999.90, 'electronics', ARRAY['portable', 'computer']), "
                  + "(2, 'Phone', 499.50, 'electronics', ARRAY['mobile']), "
                  + "(3, 'Cable', 9.99, 'electronics', ARRAY[]::text[]), "
                  + "(4, 'Novel', 12.00, 'books', ARRAY['paper'])",
              "INSERT INTO test_switch VALUES (1, 1)"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String BEARER = "Bearer " + TestApp.TOKEN;
  private static final String COUNTED_10M = "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT10M\"}";


  // ---------------------------------------------------------------------------------------------
  // Register and replace.

  @Test
  void put_newKeyWithRowSource_created201AndRowStoredAsJsonObject() throws Exception {
    String key = "product:1";

    JsonNode body =
        json(APP.putKey(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":1},\"ttl\":\"PT10M\"}"), 201);

    assertThat(body.get("created").asBoolean()).isTrue();
    JsonNode registration = body.get("registration");
    assertThat(registration.get("key").asText()).isEqualTo(key);
    assertThat(registration.get("source").asText()).isEqualTo("product-by-id");
    assertThat(registration.get("params")).isEqualTo(JSON.readTree("{\"id\":1}"));
    assertThat(registration.get("ttl").asText()).isEqualTo("PT10M");
    assertThat(instant(registration, "createdAt")).isEqualTo(instant(registration, "updatedAt"));
    assertThat(registration.has("status")).as("a PUT answer carries no live status").isFalse();
    JsonNode refresh = body.get("refresh");
    assertThat(refresh.get("outcome").asText()).isEqualTo("refreshed");
    assertThat(instant(refresh, "expiresAt")).isEqualTo(instant(refresh, "computedAt").plus(Duration.ofMinutes(10)));
    assertThat(instant(refresh, "nextRefreshAt")).isEqualTo(instant(refresh, "expiresAt").minusMillis(500));
    assertThat(refresh.get("version").asText()).matches("\\d+\\.\\d+");

    JsonNode value = JSON.readTree(APP.get(key));
    assertThat(value.isObject()).as("row value %s", value).isTrue();
    assertThat(fieldNames(value)).containsExactly("id", "name", "price", "tags");
    assertThat(value.get("id").isIntegralNumber()).isTrue();
    assertThat(value.get("id").asLong()).isEqualTo(1);
    assertThat(value.get("name").isTextual()).isTrue();
    assertThat(value.get("name").asText()).isEqualTo("Laptop");
    assertThat(value.get("price").isNumber()).as("price is a JSON number, not text").isTrue();
    assertThat(value.get("price").decimalValue()).isEqualByComparingTo(new BigDecimal("999.90"));
    assertThat(value.get("tags")).isEqualTo(JSON.readTree("[\"portable\",\"computer\"]"));
    assertThat(version(APP.meta(key))).isEqualTo(refresh.get("version").asText());
  }

  @Test
  void put_newKeyWithScalarSource_valueIsTheSourceText() throws Exception {
    String key = "scalar:counted";

    JsonNode body = json(APP.putKey(key, COUNTED_10M), 201);

    assertThat(body.at("/refresh/outcome").asText()).isEqualTo("refreshed");
    assertThat(APP.get(key)).matches("counted-[0-9a-f]{32}");
  }

  @Test
  void put_newKeyWithRowsSource_valueIsJsonArrayOfRowsInQueryOrder() throws Exception {
    String key = "category:electronics:100";

    JsonNode body =
        json(
            APP.putKey(
                key,
                "{\"source\":\"products-in-category\",\"params\":{\"category\":\"electronics\",\"min_price\":100},"
                    + "\"ttl\":\"PT10M\"}"),
            201);

    assertThat(body.at("/refresh/outcome").asText()).isEqualTo("refreshed");
    assertThat(JSON.readTree(APP.get(key)))
        .isEqualTo(JSON.readTree("[{\"id\":1,\"name\":\"Laptop\"},{\"id\":2,\"name\":\"Phone\"}]"));
  }

  @Test
  void put_longParameterGivenAsNumericString_acceptedAndBoundAsNumber() throws Exception {
    String key = "product:string-id";

    JsonNode body =
        json(APP.putKey(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":\"2\"},\"ttl\":\"PT10M\"}"), 201);

    assertThat(body.at("/refresh/outcome").asText()).isEqualTo("refreshed");
    JsonNode value = JSON.readTree(APP.get(key));
    assertThat(value.get("id").asLong()).isEqualTo(2);
    assertThat(value.get("name").asText()).isEqualTo("Phone");
  }

  @Test
  void put_existingKey_replaced200CreatedAtKeptUpdatedAtLaterAndValueRecomputed() throws Exception {
    String key = "product:replaced";
    JsonNode first =
        json(APP.putKey(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":1},\"ttl\":\"PT10M\"}"), 201);
    assertThat(JSON.readTree(APP.get(key)).get("name").asText()).isEqualTo("Laptop");

    JsonNode second =
        json(APP.putKey(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":2},\"ttl\":\"PT5M\"}"), 200);

    assertThat(second.get("created").asBoolean()).isFalse();
    assertThat(second.at("/refresh/outcome").asText()).isEqualTo("refreshed");
    JsonNode before = first.get("registration");
    JsonNode after = second.get("registration");
    assertThat(instant(after, "createdAt")).isEqualTo(instant(before, "createdAt"));
    assertThat(instant(after, "updatedAt")).isAfter(instant(before, "updatedAt"));
    assertThat(after.get("params")).isEqualTo(JSON.readTree("{\"id\":2}"));
    assertThat(after.get("ttl").asText()).isEqualTo("PT5M");
    assertThat(newer(second.at("/refresh/version").asText(), first.at("/refresh/version").asText())).isTrue();
    assertThat(JSON.readTree(APP.get(key)).get("name").asText()).isEqualTo("Phone");

    JsonNode stored = json(APP.getKey(key), 200);
    assertThat(stored.get("params")).isEqualTo(JSON.readTree("{\"id\":2}"));
    assertThat(stored.get("ttl").asText()).isEqualTo("PT5M");
    assertThat(instant(stored, "createdAt")).isEqualTo(instant(before, "createdAt"));
    assertThat(instant(stored, "updatedAt")).isEqualTo(instant(after, "updatedAt"));
  }

  @Test
  void put_existingKeyWithAnotherSource_replacedAndValueFromNewSource() throws Exception {
    String key = "switched:source";
    json(APP.putKey(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":4},\"ttl\":\"PT10M\"}"), 201);
    assertThat(JSON.readTree(APP.get(key)).get("name").asText()).isEqualTo("Novel");

    JsonNode body = json(APP.putKey(key, COUNTED_10M), 200);

    assertThat(body.get("created").asBoolean()).isFalse();
    assertThat(body.at("/registration/source").asText()).isEqualTo("counted");
    assertThat(body.at("/registration/params")).isEqualTo(JSON.readTree("{}"));
    assertThat(APP.get(key)).matches("counted-[0-9a-f]{32}");
  }

  // ---------------------------------------------------------------------------------------------
  // Read one key.

  @Test
  void get_registeredKey_registrationWithLiveStatus() throws Exception {
    String key = "status:counted";
    JsonNode put = json(APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT1M\"}"), 201);
    String version = put.at("/refresh/version").asText();
    Instant computedAt = instant(put.get("refresh"), "computedAt");

    // The next refresh time reaches the due index through a batched rescheduler: wait for it.
    JsonNode body =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> json(APP.getKey(key), 200),
                view ->
                    view.at("/status/nextRefreshAt").isTextual()
                        && instant(view.get("status"), "nextRefreshAt")
                            .equals(instant(view.get("status"), "expiresAt").minusMillis(500)));

    assertThat(body.get("key").asText()).isEqualTo(key);
    assertThat(body.get("source").asText()).isEqualTo("counted");
    assertThat(body.get("params")).isEqualTo(JSON.readTree("{}"));
    assertThat(body.get("ttl").asText()).isEqualTo("PT1M");
    assertThat(instant(body, "createdAt")).isEqualTo(instant(put.get("registration"), "createdAt"));
    JsonNode status = body.get("status");
    assertThat(status.get("valuePresent").asBoolean()).isTrue();
    assertThat(instant(status, "lastRefreshAt")).isEqualTo(computedAt.truncatedTo(ChronoUnit.MILLIS));
    assertThat(instant(status, "expiresAt")).isEqualTo(instant(status, "lastRefreshAt").plus(Duration.ofMinutes(1)));
    assertThat(instant(status, "nextRefreshAt")).isEqualTo(instant(status, "expiresAt").minusMillis(500));
    assertThat(status.at("/ttr/iso").asText()).isEqualTo("PT0.5S");
    assertThat(status.at("/ttr/millis").asLong()).isEqualTo(500);
    assertThat(status.at("/ttr/samples").asInt()).isGreaterThanOrEqualTo(1);
    assertThat(status.at("/ttr/limitedBy").asText()).isEqualTo("min");
    assertThat(status.get("refreshing").asBoolean()).isTrue();
    assertThat(status.get("version").asText()).isEqualTo(version);
    assertThat(status.get("consecutiveFailures").asInt()).isZero();
    assertThat(status.has("lastError")).isFalse();
    // Physical TTL = TTL (1 min) + stale grace (30 s by default), counting down.
    assertThat(status.get("valueTtlMillis").asLong()).isBetween(60_000L, 90_000L);
    assertThat(status.get("valueBytes").asLong()).isEqualTo(APP.get(key).getBytes(StandardCharsets.UTF_8).length);
  }

  @ParameterizedTest(name = "ttl {0}")
  @ValueSource(strings = {"PT2S", "PT1M", "P30D"})
  void get_keyWithTtlOfTwoSecondsOrMore_ttrIsConfiguredHalfSecond(String ttl) throws Exception {
    String key = "ttr:" + ttl;
    json(APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"" + ttl + "\"}"), 201);

    JsonNode body = json(APP.getKey(key), 200);

    assertThat(Duration.parse(body.get("ttl").asText())).isEqualTo(Duration.parse(ttl));
    assertThat(body.at("/status/ttr/iso").asText()).isEqualTo("PT0.5S");
    assertThat(body.at("/status/valuePresent").asBoolean()).isTrue();
    assertThat(json(APP.deleteKey(key, true), 204)).isNull();
  }

  @Test
  void get_unknownKey_404NamingKey() throws Exception {
    try (Response response = APP.getKey("never:registered")) {
      assertError(response, 404, "key");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // List.

  @Test
  void list_sevenKeysPagedByThree_byteOrderWithNextCursor() throws Exception {
    List<String> keys = List.of("page:b", "page:B", "page:a1", "page:é", "page:a", "page:~", "page:1");
    for (String key : keys) {
      json(APP.putKey(key, COUNTED_10M), 201);
    }
    // Neighbours just outside the prefix, before and after it in byte order.
    json(APP.putKey("pag:x", COUNTED_10M), 201);
    json(APP.putKey("pagf:x", COUNTED_10M), 201);
    List<String> byteOrder = new ArrayList<>(keys);
    byteOrder.sort(Comparator.comparing(k -> k.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
    assertThat(byteOrder).containsExactly("page:1", "page:B", "page:a", "page:a1", "page:b", "page:~", "page:é");

    JsonNode first = list(Map.of("prefix", "page:", "limit", "3"));
    JsonNode second = list(Map.of("prefix", "page:", "limit", "3", "after", first.get("next").asText()));
    JsonNode third = list(Map.of("prefix", "page:", "limit", "3", "after", second.get("next").asText()));

    assertThat(keysOf(first)).containsExactly("page:1", "page:B", "page:a");
    assertThat(first.get("next").asText()).isEqualTo("page:a");
    assertThat(keysOf(second)).containsExactly("page:a1", "page:b", "page:~");
    assertThat(second.get("next").asText()).isEqualTo("page:~");
    assertThat(keysOf(third)).containsExactly("page:é");
    assertThat(third.get("next").isNull()).as("last page has no cursor: %s", third).isTrue();
    first.get("items").forEach(
        item -> {
          assertThat(item.get("source").asText()).isEqualTo("counted");
          assertThat(item.get("ttl").asText()).isEqualTo("PT10M");
          assertThat(item.has("status")).as("listing carries no live status").isFalse();
        });
  }

  @Test
  void list_pageExactlyFull_cursorGivenAndFollowingPageEmpty() throws Exception {
    List<String> keys = List.of("full:c", "full:a", "full:b");
    for (String key : keys) {
      json(APP.putKey(key, COUNTED_10M), 201);
    }

    JsonNode page = list(Map.of("prefix", "full:", "limit", "3"));
    JsonNode after = list(Map.of("prefix", "full:", "limit", "3", "after", page.get("next").asText()));

    assertThat(keysOf(page)).containsExactly("full:a", "full:b", "full:c");
    assertThat(page.get("next").asText()).isEqualTo("full:c");
    assertThat(keysOf(after)).isEmpty();
    assertThat(after.get("next").isNull()).isTrue();
  }

  @Test
  void list_afterWithoutPrefix_startsStrictlyAfterCursorInByteOrder() throws Exception {
    for (String key : List.of("zz:after:1", "zz:after:2", "zz:after:3")) {
      json(APP.putKey(key, COUNTED_10M), 201);
    }

    JsonNode page = list(Map.of("after", "zz:after:1", "limit", "2"));

    assertThat(keysOf(page)).containsExactly("zz:after:2", "zz:after:3");
  }

  @Test
  void list_prefixWithUnderscoreAndPercent_matchesLiterally() throws Exception {
    List<String> keys = List.of("lit_a", "litXa", "lit%b", "litZZb", "lit%_c", "litc");
    for (String key : keys) {
      json(APP.putKey(key, COUNTED_10M), 201);
    }

    assertThat(keysOf(list(Map.of("prefix", "lit_")))).containsExactly("lit_a");
    assertThat(keysOf(list(Map.of("prefix", "lit%")))).containsExactly("lit%_c", "lit%b");
    assertThat(keysOf(list(Map.of("prefix", "lit%_")))).containsExactly("lit%_c");
    assertThat(keysOf(list(Map.of("prefix", "lit"))))
        .containsExactly("lit%_c", "lit%b", "litXa", "litZZb", "lit_a", "litc");
  }

  @Test
  void put_keyWithBackslashPercentEncoded_registeredAndListedLiterally() throws Exception {
    // KeyRules allow a backslash; on the wire it must be percent-encoded (%5C).
    String key = "bs\\c";

    Reply created = send("PUT", "/v1/keys/bs%5Cc", COUNTED_10M);

    assertThat(created.status()).as("PUT /v1/keys/bs%%5Cc: %s", created.body()).isEqualTo(201);
    assertThat(created.json().at("/registration/key").asText()).isEqualTo(key);
    assertThat(APP.get(key)).matches("counted-[0-9a-f]{32}");
    assertThat(keysOf(list(Map.of("prefix", "bs\\")))).containsExactly(key);
  }

  // ---------------------------------------------------------------------------------------------
  // Keys with reserved characters, on the wire exactly as written.

  @Test
  void put_keyWithSlashAddressedRawAndEncoded_bothAddressTheSameKey() throws Exception {
    String key = "catalog/electronics";
    String body =
        "{\"source\":\"products-in-category\",\"params\":{\"category\":\"electronics\",\"min_price\":0},\"ttl\":\"PT10M\"}";

    Reply created = send("PUT", "/v1/keys/catalog/electronics", body);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().at("/registration/key").asText()).isEqualTo(key);
    assertThat(JSON.readTree(APP.get(key)).size()).isEqualTo(3);

    Reply replaced = send("PUT", "/v1/keys/catalog%2Felectronics", body);
    assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
    assertThat(replaced.json().get("created").asBoolean()).isFalse();
    assertThat(replaced.json().at("/registration/key").asText()).isEqualTo(key);

    for (String path : List.of("/v1/keys/catalog/electronics", "/v1/keys/catalog%2Felectronics", "/v1/keys/catalog%2felectronics")) {
      Reply get = send("GET", path, null);
      assertThat(get.status()).as("GET %s: %s", path, get.body()).isEqualTo(200);
      assertThat(get.json().get("key").asText()).isEqualTo(key);
    }
    String version = version(APP.meta(key));
    for (String path : List.of("/v1/keys/catalog/electronics/refresh", "/v1/keys/catalog%2Felectronics/refresh")) {
      Reply refresh = send("POST", path, "");
      assertThat(refresh.status()).as("POST %s: %s", path, refresh.body()).isEqualTo(200);
      assertThat(refresh.json().get("outcome").asText()).isEqualTo("refreshed");
      assertThat(newer(refresh.json().get("version").asText(), version)).isTrue();
      version = refresh.json().get("version").asText();
    }
    assertThat(keysOf(list(Map.of("prefix", "catalog")))).containsExactly(key);
    assertThat(send("GET", "/v1/keys/catalog", null).status()).isEqualTo(404);

    Reply deleted = send("DELETE", "/v1/keys/catalog%2Felectronics", null);
    assertThat(deleted.status()).as(deleted.body()).isEqualTo(204);
    assertThat(send("GET", "/v1/keys/catalog/electronics", null).status()).isEqualTo(404);
  }

  @Test
  void put_keyWithSpaceQuestionHashPercentEncoded_roundTrips() throws Exception {
    String key = "a b?c#d%e";
    String path = "/v1/keys/a%20b%3Fc%23d%25e";

    Reply created = send("PUT", path, COUNTED_10M);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().at("/registration/key").asText()).isEqualTo(key);
    assertThat(APP.get(key)).matches("counted-[0-9a-f]{32}");

    Reply get = send("GET", path, null);
    assertThat(get.status()).as(get.body()).isEqualTo(200);
    assertThat(get.json().get("key").asText()).isEqualTo(key);
    assertThat(get.json().at("/status/valuePresent").asBoolean()).isTrue();

    Reply refresh = send("POST", path + "/refresh", "");
    assertThat(refresh.status()).as(refresh.body()).isEqualTo(200);
    assertThat(refresh.json().get("outcome").asText()).isEqualTo("refreshed");
    assertThat(version(APP.meta(key))).isEqualTo(refresh.json().get("version").asText());

    assertThat(keysOf(list(Map.of("prefix", "a b?c#")))).containsExactly(key);
    assertThat(send("GET", "/v1/keys/a%20b", null).status()).as("the key is not cut at '?'").isEqualTo(404);
  }

  @Test
  void put_keyEndingInSlashRefreshEncoded_addressesThatKeyNotARefresh() throws Exception {
    String key = "x/refresh";
    String path = "/v1/keys/x%2Frefresh";

    Reply created = send("PUT", path, COUNTED_10M);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().get("created").asBoolean()).isTrue();
    assertThat(created.json().at("/registration/key").asText()).isEqualTo(key);
    String firstValue = APP.get(key);
    assertThat(firstValue).matches("counted-[0-9a-f]{32}");

    Reply get = send("GET", path, null);
    assertThat(get.status()).as(get.body()).isEqualTo(200);
    assertThat(get.json().get("key").asText()).isEqualTo(key);

    Reply refresh = send("POST", path + "/refresh", "");
    assertThat(refresh.status()).as(refresh.body()).isEqualTo(200);
    assertThat(refresh.json().get("outcome").asText()).isEqualTo("refreshed");
    assertThat(newer(refresh.json().get("version").asText(), created.json().at("/refresh/version").asText())).isTrue();
    assertThat(APP.get(key)).isNotEqualTo(firstValue).matches("counted-[0-9a-f]{32}");
    assertThat(version(APP.meta(key))).isEqualTo(refresh.json().get("version").asText());

    Reply x = send("GET", "/v1/keys/x", null);
    assertThat(x.status()).as("no key 'x' appeared: %s", x.body()).isEqualTo(404);
    assertThat(APP.get("x")).isNull();

    Reply deleted = send("DELETE", path + "?evict=true", null);
    assertThat(deleted.status()).as(deleted.body()).isEqualTo(204);
    assertThat(send("GET", path, null).status()).isEqualTo(404);
    assertThat(APP.get(key)).isNull();
  }

  @Test
  void put_unicodeKey_roundTripsThroughPathRedisAndListing() throws Exception {
    String key = "produit:café☕🙂ß";

    JsonNode created = json(APP.putKey(key, "{\"source\":\"product-by-id\",\"params\":{\"id\":3},\"ttl\":\"PT10M\"}"), 201);
    assertThat(created.at("/registration/key").asText()).isEqualTo(key);
    assertThat(JSON.readTree(APP.get(key)).get("name").asText()).isEqualTo("Cable");
    assertThat(JSON.readTree(APP.get(key)).get("tags")).isEqualTo(JSON.readTree("[]"));

    Reply get = send("GET", "/v1/keys/" + TestApp.pathOf(key), null);
    assertThat(get.status()).as(get.body()).isEqualTo(200);
    assertThat(get.json().get("key").asText()).isEqualTo(key);

    JsonNode refresh = json(APP.refreshKey(key), 200);
    assertThat(refresh.get("outcome").asText()).isEqualTo("refreshed");
    assertThat(newer(refresh.get("version").asText(), created.at("/refresh/version").asText())).isTrue();
    assertThat(keysOf(list(Map.of("prefix", "produit:café")))).containsExactly(key);
  }

  // ---------------------------------------------------------------------------------------------
  // Manual refresh.

  @Test
  void refresh_registeredKey_refreshedWithNewerVersionAndNewValue() throws Exception {
    String key = "manual:counted";
    JsonNode created = json(APP.putKey(key, COUNTED_10M), 201);
    String firstVersion = created.at("/refresh/version").asText();
    String firstValue = APP.get(key);

    JsonNode refresh = json(APP.refreshKey(key), 200);

    assertThat(refresh.get("outcome").asText()).isEqualTo("refreshed");
    assertThat(newer(refresh.get("version").asText(), firstVersion))
        .as("%s newer than %s", refresh.get("version"), firstVersion)
        .isTrue();
    assertThat(instant(refresh, "computedAt")).isAfter(instant(created.get("refresh"), "computedAt"));
    assertThat(instant(refresh, "expiresAt")).isEqualTo(instant(refresh, "computedAt").plus(Duration.ofMinutes(10)));
    assertThat(APP.get(key)).isNotEqualTo(firstValue).matches("counted-[0-9a-f]{32}");
    assertThat(version(APP.meta(key))).isEqualTo(refresh.get("version").asText());
    assertThat(json(APP.getKey(key), 200).at("/status/version").asText()).isEqualTo(refresh.get("version").asText());
  }

  @Test
  void refresh_unknownKey_404NamingKeyAndNothingWritten() throws Exception {
    try (Response response = APP.refreshKey("never:registered:refresh")) {
      assertError(response, 404, "key");
    }
    assertThat(APP.get("never:registered:refresh")).isNull();
    assertThat(APP.meta("never:registered:refresh")).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Delete.

  @Test
  void delete_registeredKey_204RegistrationGoneValueLeftToExpire() throws Exception {
    String key = "delete:keep-value";
    json(APP.putKey(key, COUNTED_10M), 201);
    String value = APP.get(key);
    assertThat(value).isNotNull();

    assertThat(json(APP.deleteKey(key, false), 204)).isNull();

    try (Response response = APP.getKey(key)) {
      assertError(response, 404, "key");
    }
    assertThat(keysOf(list(Map.of("prefix", "delete:keep-value")))).isEmpty();
    assertThat(APP.get(key)).as("value left in Redis").isEqualTo(value);
    assertThat(APP.reader().getBucket(key).remainTimeToLive()).as("value still expires").isPositive();
    try (Response again = APP.deleteKey(key, false)) {
      assertError(again, 404, "key");
    }
  }

  @Test
  void delete_withEvict_204ValueAndMetadataGoneOnlyTheTombstoneLeft() throws Exception {
    String key = "delete:evict";
    json(APP.putKey(key, COUNTED_10M), 201);
    assertThat(APP.get(key)).isNotNull();
    assertThat(APP.meta(key)).containsKeys("epoch", "token");
    assertThat(APP.reader().getKeys().countExists(CacheKeys.metaKey(key))).isEqualTo(1);

    assertThat(json(APP.deleteKey(key, true), 204)).isNull();

    try (Response response = APP.getKey(key)) {
      assertError(response, 404, "key");
    }
    assertThat(APP.get(key)).isNull();
    assertThat(APP.reader().getKeys().countExists(key)).isZero();
    assertThat(APP.meta(key)).as("the tombstone").containsOnlyKeys("generation", "retired");
    assertThat(APP.reader().getBucket(CacheKeys.metaKey(key)).remainTimeToLive()).as("it expires").isPositive();
  }

  @ParameterizedTest(name = "evict={0}")
  @ValueSource(booleans = {false, true})
  void delete_unknownKey_404NamingKey(boolean evict) throws Exception {
    try (Response response = APP.deleteKey("never:registered:delete", evict)) {
      assertError(response, 404, "key");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sources and health.

  @Test
  void sources_list_everyConfiguredSourceWithParamTypesAndNoSql() throws Exception {
    JsonNode config =
        new ObjectMapper(new YAMLFactory()).readTree(TestConfig.file().toFile());
    JsonNode configured = config.get("sources");
    String raw;
    try (Response response = APP.authorized(APP.api("/v1/sources")).get()) {
      assertThat(response.getStatus()).isEqualTo(200);
      assertThat(response.getMediaType().isCompatible(MediaType.APPLICATION_JSON_TYPE)).isTrue();
      raw = response.readEntity(String.class);
    }
    JsonNode sources = JSON.readTree(raw).get("sources");

    Map<String, JsonNode> byName = new LinkedHashMap<>();
    sources.forEach(source -> byName.put(source.get("name").asText(), source));
    assertThat(byName.keySet())
        .containsExactlyInAnyOrder("counted", "switchable", "product-by-id", "products-in-category", "slow", "tunable", "stamped", "sleepy");
    assertThat(byName.keySet()).containsExactlyInAnyOrderElementsOf(fieldNames(configured));
    for (String name : fieldNames(configured)) {
      JsonNode expected = configured.get(name);
      JsonNode actual = byName.get(name);
      JsonNode expectedParams = expected.has("params") ? expected.get("params") : JSON.createObjectNode();
      assertThat(actual.get("params")).as("params of %s", name).isEqualTo(expectedParams);
      assertThat(actual.get("result").asText()).as("result of %s", name).isEqualTo(expected.get("result").asText());
      assertThat(raw).as("SQL of %s is not exposed", name).doesNotContain(expected.get("sql").asText());
      assertThat(actual.has("sql")).isFalse();
    }
    assertThat(byName.get("products-in-category").get("params"))
        .isEqualTo(JSON.readTree("{\"category\":\"string\",\"min_price\":\"double\"}"));
    assertThat(byName.get("product-by-id").get("params")).isEqualTo(JSON.readTree("{\"id\":\"long\"}"));
    assertThat(byName.get("slow").get("timeout").asText()).isEqualTo("PT0.3S");
    assertThat(raw).doesNotContainIgnoringCase("select").doesNotContain("test_product").doesNotContain(":id");
  }

  @ParameterizedTest(name = "type={0}")
  @ValueSource(strings = {"ready", "alive"})
  void healthCheck_runningService_200(String type) {
    URI uri = URI.create("http://localhost:" + EXTENSION.getLocalPort() + "/health-check?type=" + type);
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              HttpResponse<String> response =
                  HTTP.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
              assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            });
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers.

  /** A response exactly as it came off the wire. */
  private record Reply(int status, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("response body is not JSON: " + body, e);
      }
    }
  }

  /** Sends an authorised request with the path bytes exactly as given (no client re-encoding). */
  private static Reply send(String method, String rawPath, String jsonBody) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + EXTENSION.getLocalPort() + rawPath))
            .timeout(Duration.ofSeconds(30))
            .header("Accept", "application/json")
            .header("Authorization", BEARER)
            .method(
                method,
                jsonBody == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
    if (jsonBody != null) {
      request.header("Content-Type", "application/json");
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(response.statusCode(), response.body());
  }

  /** GET /v1/keys with query parameters percent-encoded here, so '%', '_', '\' and '~' arrive as written. */
  private static JsonNode list(Map<String, String> query) throws Exception {
    StringBuilder path = new StringBuilder("/v1/keys");
    char separator = '?';
    for (Map.Entry<String, String> parameter : new java.util.TreeMap<>(query).entrySet()) {
      path.append(separator)
          .append(parameter.getKey())
          .append('=')
          .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8).replace("+", "%20"));
      separator = '&';
    }
    Reply reply = send("GET", path.toString(), null);
    assertThat(reply.status()).as("GET %s: %s", path, reply.body()).isEqualTo(200);
    return reply.json();
  }

  private static List<String> keysOf(JsonNode page) {
    List<String> keys = new ArrayList<>();
    page.get("items").forEach(item -> keys.add(item.get("key").asText()));
    return keys;
  }

  /** Reads a JSON body after checking the status; null for an empty (204) body. Closes the response. */
  private static JsonNode json(Response response, int status) {
    try (response) {
      String body = response.hasEntity() ? response.readEntity(String.class) : "";
      assertThat(response.getStatus()).as("status; body: %s", body).isEqualTo(status);
      if (body.isEmpty()) {
        return null;
      }
      assertThat(response.getMediaType()).isNotNull();
      assertThat(response.getMediaType().isCompatible(MediaType.APPLICATION_JSON_TYPE)).isTrue();
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void assertError(Response response, int status, String field) throws IOException {
    String raw = response.readEntity(String.class);
    assertThat(response.getStatus()).as("status; body: %s", raw).isEqualTo(status);
    assertThat(response.getMediaType().isCompatible(MediaType.APPLICATION_JSON_TYPE)).as("JSON error body").isTrue();
    JsonNode body = JSON.readTree(raw);
    assertThat(body.get("code").asInt()).isEqualTo(status);
    assertThat(body.get("errors")).isNotNull();
    List<JsonNode> named = new ArrayList<>();
    body.get("errors").forEach(error -> {
      if (field.equals(error.path("field").asText())) {
        named.add(error);
      }
    });
    assertThat(named).as("an error naming '%s' in %s", field, raw).isNotEmpty();
    assertThat(named.get(0).path("rule").asText()).isNotBlank();
  }

  private static Instant instant(JsonNode node, String field) {
    JsonNode value = node.get(field);
    assertThat(value).as("%s in %s", field, node).isNotNull();
    assertThat(value.isTextual()).as("%s is an ISO-8601 string in %s", field, node).isTrue();
    return Instant.parse(value.asText());
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    Iterator<String> it = node.fieldNames();
    it.forEachRemaining(names::add);
    return names;
  }

  private static String version(Map<String, String> meta) {
    assertThat(meta).containsKeys("epoch", "token");
    return meta.get("epoch") + "." + meta.get("token");
  }

  /** Whether version {@code a} ("epoch.token") is newer than {@code b}. */
  private static boolean newer(String a, String b) {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    int byEpoch = Long.compare(Long.parseLong(x[0]), Long.parseLong(y[0]));
    return byEpoch != 0 ? byEpoch > 0 : Long.parseLong(x[1]) > Long.parseLong(y[1]);
  }
}

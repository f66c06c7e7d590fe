package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Large values and parameters. A {@code rows} source is streamed and read only until its JSON
 * passes {@code refresh.maxValueSize} (1 MiB here), so a 50 MB result costs about 1 MiB of reading;
 * a value past the limit is never written and the old one stays served. A parameter value longer
 * than {@code admin.maxParamLength} is refused before anything is stored or run (a body over {@code
 * admin.maxBodySize}, such as a 10 MiB parameter, is refused before it is read: ApiEdgesIT).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class LargeInputsIT {

  /** About 1,045 bytes of JSON per row; 1 MiB is about 1,000 rows. */
  private static final int ROWS_IN_ONE_MIB = 1_004;

  private static final TestApp APP =
      TestApp.create(
          "large_inputs",
          List.of("CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])"),
          // :count rows of about 1 kB. Every row past :stop divides by zero, and PostgreSQL computes
          // a row only when the client fetches it: a loader that reads all rows (or makes the server
          // compute them) fails with ERROR; one that stops at the size limit with VALUE_TOO_LARGE.
          "sources.many-rows.sql",
          "SELECT g AS n, repeat('x', 1000) AS pad, CASE WHEN g > :stop THEN 1 / (g - g) ELSE 0 END AS many_rows_guard "
              + "FROM generate_series(1, :count) AS g",
          "sources.many-rows.params.count", "long",
          "sources.many-rows.params.stop", "long",
          "sources.many-rows.result", "rows",
          "sources.many-rows.timeout", "20s",
          "sources.big-value.sql", "SELECT repeat('v', CAST(:size AS int)) AS big_value",
          "sources.big-value.params.size", "long",
          "sources.big-value.result", "scalar",
          "sources.big-value.timeout", "20s",
          // The first fetch (100 rows) is quick; each later one takes 2 s, past the 1 s timeout.
          "sources.slow-rows.sql",
          "SELECT g AS n, pg_sleep(CASE WHEN g > 100 THEN 0.02 ELSE 0 END)::text AS slow_rows FROM generate_series(1, 1000) AS g",
          "sources.slow-rows.result", "rows",
          "sources.slow-rows.timeout", "1s",
          // the 20 s timeouts above must fit under the lease
          "refresh.lockLease", "25s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final Pattern ROWS_READ = Pattern.compile("after (\\d+) rows");

  @Test
  void rowsSource_rowsPastTheSizeLimitWouldFail_refusedAsTooLargeBeforeTheServerComputesThem() {
    String key = "rows:guarded";
    String good = registerManyRows(key, 10, 1_000_000);

    // 50,000 rows (50 MB); row 5,001 and later fail. Read whole, this is a division by zero.
    JsonNode refresh = putManyRows(key, 50_000, 5_000, 200);

    assertThat(refresh.path("outcome").asText()).isEqualTo("failed");
    assertThat(refresh.path("errorKind").asText()).as(refresh.toString()).isEqualTo("VALUE_TOO_LARGE");
    assertThat(rowsRead(refresh))
        .as("rows read before the limit stopped the read: 1 MiB of rows, and no row past 5,000 computed")
        .isBetween((long) ROWS_IN_ONE_MIB - 10, (long) ROWS_IN_ONE_MIB + 20);
    assertThat(APP.get(key)).as("old value still served").isEqualTo(good);
    assertThat(status(key).path("lastErrorKind").asText()).isEqualTo("VALUE_TOO_LARGE");
  }

  @Test
  void rowsSource_50MegabyteResult_refusedAfterReadingAboutTheLimitOldValueKept() {
    String key = "rows:fifty-megabytes";
    String good = registerManyRows(key, 10, 1_000_000);

    JsonNode refresh = putManyRows(key, 50_000, 1_000_000, 200);

    assertThat(refresh.path("errorKind").asText()).as(refresh.toString()).isEqualTo("VALUE_TOO_LARGE");
    assertThat(refresh.path("error").asText()).contains("1048576 bytes");
    assertThat(rowsRead(refresh)).as("rows read of 50,000").isLessThan(ROWS_IN_ONE_MIB + 20);
    assertThat(APP.get(key)).as("old value still served").isEqualTo(good);

    // Still a working source below the limit: the connection went back to the pool clean. The
    // replacement is computed by its PUT, or, when the failed value's retry holds the key's lock
    // at that moment ("skipped": seen in a clean-clone run), by the refresh it makes due at once.
    JsonNode small = putManyRows(key, 900, 1_000_000, 200);
    assertThat(small.path("outcome").asText()).as(small.toString()).isIn("refreshed", "skipped");
    await("the replacement's value").atMost(Duration.ofSeconds(20)).until(() -> String.valueOf(APP.get(key)).startsWith("[{\"n\":1,"));
  }

  /**
   * The statement timeout covers the query's execution and its first fetch only; the later
   * fetches of a streamed result are held to the same deadline between rows.
   */
  @Test
  void rowsSource_slowerThanItsTimeoutAfterTheFirstFetch_failsAsTimeout() {
    JsonNode refresh;
    try (Response response = APP.putKey("rows:slow", "{\"source\":\"slow-rows\",\"params\":{},\"ttl\":\"PT1H\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
      refresh = response.readEntity(JsonNode.class).path("refresh");
    }

    assertThat(refresh.path("errorKind").asText()).as(refresh.toString()).isEqualTo("TIMEOUT");
    assertThat(refresh.path("error").asText()).contains("timed out after 1000 ms (while reading row");
    assertThat(APP.get("rows:slow")).isNull();
  }

  @Test
  void scalarSource_valuePastTheSizeLimit_refusedOldValueKept() {
    String key = "scalar:big";
    try (Response response = APP.putKey(key, "{\"source\":\"big-value\",\"params\":{\"size\":10},\"ttl\":\"PT1H\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    assertThat(APP.get(key)).isEqualTo("v".repeat(10));

    JsonNode refresh;
    try (Response response =
        APP.putKey(key, "{\"source\":\"big-value\",\"params\":{\"size\":2000000},\"ttl\":\"PT1H\"}")) {
      assertThat(response.getStatus()).isEqualTo(200);
      refresh = response.readEntity(JsonNode.class).path("refresh");
    }

    assertThat(refresh.path("errorKind").asText()).as(refresh.toString()).isEqualTo("VALUE_TOO_LARGE");
    assertThat(APP.get(key)).as("old value still served").isEqualTo("v".repeat(10));
  }

  @Test
  void put_parameterOf100Kibibytes_422NamingTheParameterNothingStoredNothingRun() {
    String key = "category:huge";
    long runsBefore = APP.database().executionsOf("test_product WHERE category");
    String huge = "c".repeat(100 * 1024); // under admin.maxBodySize (1 MiB), over admin.maxParamLength

    try (Response response =
        APP.putKey(key, "{\"source\":\"products-in-category\",\"params\":{\"category\":\"" + huge + "\",\"min_price\":0},\"ttl\":\"PT5M\"}")) {
      JsonNode body = response.readEntity(JsonNode.class);
      assertThat(response.getStatus()).as(abbreviated(body)).isEqualTo(422);
      assertThat(body.path("errors").get(0).path("field").asText()).isEqualTo("params.category");
      assertThat(body.path("errors").get(0).path("rule").asText()).isEqualTo("must be at most 1000 characters long (it has 102400)");
      assertThat(body.toString().length()).as("the error does not echo the value").isLessThan(1_000);
    }

    assertNothingStoredOrRun(key, runsBefore);
  }

  private static void assertNothingStoredOrRun(String key, long runsBefore) {
    try (Response response = APP.getKey(key)) {
      assertThat(response.getStatus()).as("nothing registered").isEqualTo(404);
    }
    assertThat(APP.get(key)).isNull();
    assertThat(APP.database().executionsOf("test_product WHERE category")).as("the source never ran").isEqualTo(runsBefore);
  }

  @Test
  void put_parameterOfExactlyTheLimit_accepted() {
    try (Response response =
        APP.putKey(
            "category:long-name",
            "{\"source\":\"products-in-category\",\"params\":{\"category\":\"" + "c".repeat(1000) + "\",\"min_price\":0},\"ttl\":\"PT5M\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
  }

  @Test
  void putTemplate_parameterOf100Kibibytes_422NamingTheParameterNothingStored() {
    String digits = "1".repeat(100 * 1024); // as a double: Infinity

    try (Response response =
        APP.putTemplate(
            "huge-min-price",
            "{\"pattern\":\"cheap:{category}\",\"source\":\"products-in-category\",\"params\":{\"min_price\":\"" + digits + "\"},\"ttl\":\"PT5M\"}")) {
      JsonNode body = response.readEntity(JsonNode.class);
      assertThat(response.getStatus()).as(abbreviated(body)).isEqualTo(422);
      assertThat(body.path("errors").get(0).path("field").asText()).isEqualTo("params.min_price");
    }

    try (Response response = APP.authorized(APP.api("/v1/templates/huge-min-price")).get()) {
      assertThat(response.getStatus()).as("nothing stored").isEqualTo(404);
    }
  }

  private static String registerManyRows(String key, int count, int stop) {
    try (Response response = APP.putKey(key, manyRows(count, stop))) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    String good = APP.get(key);
    assertThat(good).startsWith("[{\"n\":1,");
    return good;
  }

  private static JsonNode putManyRows(String key, int count, int stop, int status) {
    try (Response response = APP.putKey(key, manyRows(count, stop))) {
      assertThat(response.getStatus()).isEqualTo(status);
      return response.readEntity(JsonNode.class).path("refresh");
    }
  }

  private static String manyRows(int count, int stop) {
    return "{\"source\":\"many-rows\",\"params\":{\"count\":" + count + ",\"stop\":" + stop + "},\"ttl\":\"PT1H\"}";
  }

  private static long rowsRead(JsonNode refresh) {
    Matcher matcher = ROWS_READ.matcher(refresh.path("error").asText());
    assertThat(matcher.find()).as("the error says how many rows were read: %s", refresh.path("error").asText()).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  private static String abbreviated(JsonNode body) {
    String text = body.toString();
    return text.length() > 500 ? text.substring(0, 500) + "..." : text;
  }

  private static JsonNode status(String key) {
    try (Response response = APP.getKey(key)) {
      assertThat(response.getStatus()).isEqualTo(200);
      return response.readEntity(JsonNode.class).path("status");
    }
  }
}

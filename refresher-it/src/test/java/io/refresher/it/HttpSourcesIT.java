package io.refresher.it;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RecordingHttpServer;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HTTP sources end to end: the real service on real Redis and PostgreSQL, its HTTP sources on a
 * WireMock server (and on a raw socket server where the exact request line, or requests in flight
 * at once, must be seen). One service and one of each server for the whole class; each scenario
 * has keys and paths of its own.
 *
 * <p>The endpoint's default header comes from the environment through the service's own {@code
 * ${VAR}} substitution in its configuration file: {@code REFRESHER_IT_HTTP_TOKEN}, which the
 * failsafe configuration in {@code refresher-service/pom.xml} sets (run from elsewhere, set it).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpSourcesIT {

  private static final String TOKEN_VARIABLE = "REFRESHER_IT_HTTP_TOKEN";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Everything the service writes to the console (its log and request log), from before it starts. */
  private static final ByteArrayOutputStream CONSOLE = new ByteArrayOutputStream();
  private static final PrintStream ORIGINAL_OUT = System.out;
  private static final PrintStream ORIGINAL_ERR = System.err;

  static {
    System.setOut(new PrintStream(new Tee(ORIGINAL_OUT, CONSOLE), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new Tee(ORIGINAL_ERR, CONSOLE), true, StandardCharsets.UTF_8));
  }

  private static final WireMockServer WIRE = startWireMock();
  /** Request lines exactly as received. */
  private static final RecordingHttpServer RAW = RecordingHttpServer.start(request -> RecordingHttpServer.Reply.ok("raw"));
  /** Answers after 300 ms, counting requests in flight at once. */
  private static final RecordingHttpServer SLOW =
      RecordingHttpServer.start(request -> RecordingHttpServer.Reply.ok("slow" + request.target()).after(Duration.ofMillis(300)));

  private static final TestApp APP =
      TestApp.withConfig(
          "http_sources",
          List.of(),
          """
          httpEndpoints:
            wire:
              baseUrl: http://127.0.0.1:%d/api
              headers:
                X-Api-Token: "Bearer ${%s}"
            raw:
              baseUrl: http://127.0.0.1:%d/base
            bounded:
              baseUrl: http://127.0.0.1:%d
              maxConcurrent: 2
              maxWait: 30s
          sources:
            http-text:
              http: { endpoint: wire, path: "/text/{id}" }
              params: { id: string }
              timeout: 1s
            http-pointer:
              http: { endpoint: wire, path: "/items/{id}", query: { fields: name }, pointer: /data/name }
              params: { id: string }
              timeout: 1s
            http-raw:
              http: { endpoint: raw, path: "/items/{id}/detail", query: { q: "{id}", lang: en } }
              params: { id: string }
              timeout: 2s
            http-bounded:
              http: { endpoint: bounded, path: "/slow/{id}" }
              params: { id: long }
              timeout: 2s
          refresh:
            maxValueSize: 64KiB
          """
              .formatted(WIRE.port(), TOKEN_VARIABLE, RAW.port(), SLOW.port()));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static WireMockServer startWireMock() {
    WireMockServer server = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1").containerThreads(40));
    server.start();
    return server;
  }

  @AfterAll
  static void stopServers() {
    WIRE.stop();
    RAW.close();
    SLOW.close();
    System.setOut(ORIGINAL_OUT);
    System.setErr(ORIGINAL_ERR);
  }

  // (a) kept fresh

  // (a) kept fresh over three TTLs: HttpSourceKeptFreshIT (a bound of time: the timed lane)

  // (b) failures keep the old value

  @Test
  void failingAnswers_keepTheOldValue_andShowTheirKindOnTheKey() throws Exception {
    WIRE.stubFor(get(urlPathEqualTo("/api/text/fail-500")).willReturn(aResponse().withBody("good-500")));
    WIRE.stubFor(get(urlPathEqualTo("/api/text/fail-slow")).willReturn(aResponse().withBody("good-slow")));
    WIRE.stubFor(get(urlPathEqualTo("/api/text/fail-big")).willReturn(aResponse().withBody("good-big")));
    WIRE.stubFor(get(urlPathEqualTo("/api/items/fail-pointer")).willReturn(aResponse().withBody("{\"data\": {\"name\": \"good-pointer\"}}")));
    Map<String, String> keys =
        Map.of("http:fail-500", "fail-500", "http:fail-slow", "fail-slow", "http:fail-big", "fail-big", "http:fail-pointer", "fail-pointer");
    for (Map.Entry<String, String> key : keys.entrySet()) {
      String source = key.getValue().equals("fail-pointer") ? "http-pointer" : "http-text";
      assertThat(register(key.getKey(), source, Map.of("id", key.getValue()), "PT2S")).isEqualTo("good-" + key.getValue().substring(5));
    }

    WIRE.stubFor(
        get(urlPathEqualTo("/api/text/fail-500")).willReturn(aResponse().withStatus(500).withBody("{\"error\": \"database down\"}")));
    WIRE.stubFor(get(urlPathEqualTo("/api/text/fail-slow")).willReturn(aResponse().withFixedDelay(3_000).withBody("too late")));
    String big = "b".repeat(70 * 1024);
    WIRE.stubFor(
        get(urlPathEqualTo("/api/text/fail-big"))
            .willReturn(aResponse().withHeader("Content-Length", String.valueOf(big.length())).withBody(big)));
    WIRE.stubFor(get(urlPathEqualTo("/api/items/fail-pointer")).willReturn(aResponse().withBody("{\"data\": {}}")));

    Map<String, String> kinds =
        Map.of("http:fail-500", "HTTP_STATUS", "http:fail-slow", "TIMEOUT", "http:fail-big", "VALUE_TOO_LARGE", "http:fail-pointer", "NO_VALUE");
    for (Map.Entry<String, String> expected : kinds.entrySet()) {
      String key = expected.getKey();
      JsonNode failing =
          await(key + " shows its failure")
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(100))
              .until(() -> status(key), status -> status.path("consecutiveFailures").asInt() >= 1);
      System.out.printf("%s: %s: %s%n", key, failing.path("lastErrorKind").asText(), failing.path("lastError").asText());
      assertThat(failing.path("lastErrorKind").asText()).as(key).isEqualTo(expected.getValue());
      assertThat(failing.path("valuePresent").asBoolean()).as(key).isTrue();
      assertThat(APP.get(key)).as(key + ": the old value is still served").isEqualTo("good-" + keys.get(key).substring(5));
    }
    assertThat(status("http:fail-500").path("lastError").asText())
        .as("the body is the log's only (SourceErrorTextIT)")
        .isEqualTo("source 'http-text' (GET /api/text/fail-500 at endpoint 'wire') answered 500 Server Error");
    assertThat(status("http:fail-slow").path("lastError").asText()).contains("timed out after 1000 ms");
    assertThat(status("http:fail-big").path("lastError").asText()).contains("71680 bytes (Content-Length), over the limit of 65536 bytes");
    assertThat(status("http:fail-pointer").path("lastError").asText()).contains("JSON Pointer /data/name matches nothing");
    for (String key : keys.keySet()) {
      APP.deleteKey(key, true).close();
    }
  }

  // (c) Retry-After

  @Test
  void tooManyRequestsWithRetryAfter_nextAttemptWaitsAtLeastThatLong() throws Exception {
    String path = "/api/text/limited";
    WIRE.stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withBody("limited-ok")));
    String key = "http:limited";
    assertThat(register(key, "http-text", Map.of("id", "limited"), "PT2S")).isEqualTo("limited-ok");

    WIRE.stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withStatus(429).withHeader("Retry-After", "3")));
    List<Instant> limited =
        await("two requests answered 429")
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> answeredAt(path, 429), times -> times.size() >= 2);
    JsonNode failing = status(key);

    long gapMillis = Duration.between(limited.get(0), limited.get(1)).toMillis();
    long plannedMillis =
        Duration.between(Instant.parse(failing.path("lastErrorAt").asText()), Instant.parse(failing.path("nextRefreshAt").asText())).toMillis();
    System.out.printf("Retry-After 3: next request %d ms after the first 429; planned retry %d ms after the failure%n", gapMillis, plannedMillis);
    assertThat(failing.path("lastErrorKind").asText()).isEqualTo("HTTP_STATUS");
    assertThat(failing.path("lastError").asText()).endsWith("answered 429 Too Many Requests; Retry-After 3 s");
    // Both times are taken by WireMock's clock as the requests came; the retry was planned 3 s after
    // the answer, so later still. (The service plans on a clock aligned to Redis's, within ms here.)
    assertThat(gapMillis).as("between the first 429 and the next attempt (backoff alone: 100 ms)").isGreaterThanOrEqualTo(2_950);
    assertThat(plannedMillis).isGreaterThanOrEqualTo(3_000);
    assertThat(APP.get(key)).isEqualTo("limited-ok");
    APP.deleteKey(key, true).close();
  }

  // (d) revalidation

  @Test
  void etagAnswered304_extendsTheTtl_keepsTheValue_andShowsRevalidated_thenAChangeIsPickedUp() throws Exception {
    String path = "/api/text/etag";
    WIRE.stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withHeader("ETag", "\"e1\"").withBody("etag-v1")));
    WIRE.stubFor(get(urlPathEqualTo(path)).withHeader("If-None-Match", equalTo("\"e1\"")).willReturn(aResponse().withStatus(304)));
    String date = "Wed, 21 Oct 2015 07:28:00 GMT";
    String datedPath = "/api/text/dated";
    WIRE.stubFor(get(urlPathEqualTo(datedPath)).willReturn(aResponse().withHeader("Last-Modified", date).withBody("dated-v1")));
    WIRE.stubFor(get(urlPathEqualTo(datedPath)).withHeader("If-Modified-Since", equalTo(date)).willReturn(aResponse().withStatus(304)));
    String key = "http:etag";
    String dated = "http:dated";
    assertThat(register(key, "http-text", Map.of("id", "etag"), "PT2S")).isEqualTo("etag-v1");
    assertThat(register(dated, "http-text", Map.of("id", "dated"), "PT2S")).isEqualTo("dated-v1");
    long firstExpiry = Long.parseLong(APP.meta(key).get("expiresAt"));
    long firstDatedExpiry = Long.parseLong(APP.meta(dated).get("expiresAt"));

    for (String revalidated : List.of(key, dated)) {
      await(revalidated + " revalidated")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> status(revalidated).path("lastRefreshOutcome").asText().equals("revalidated"));
    }
    JsonNode etagStatus = status(key);
    assertThat(etagStatus.path("lastRevalidatedAt").isTextual()).isTrue();
    assertThat(APP.get(key)).isEqualTo("etag-v1");
    assertThat(Long.parseLong(APP.meta(key).get("expiresAt"))).as("TTL extended").isGreaterThan(firstExpiry);
    assertThat(APP.get(dated)).isEqualTo("dated-v1");
    assertThat(Long.parseLong(APP.meta(dated).get("expiresAt"))).as("TTL extended").isGreaterThan(firstDatedExpiry);
    List<LoggedRequest> etagRequests = WIRE.findAll(getRequestedFor(urlPathEqualTo(path)));
    assertThat(etagRequests.get(0).containsHeader("If-None-Match")).as("the first request had no validator yet").isFalse();
    assertThat(etagRequests.subList(1, etagRequests.size()))
        .allSatisfy(request -> assertThat(request.getHeader("If-None-Match")).isEqualTo("\"e1\""));
    assertThat(WIRE.findAll(getRequestedFor(urlPathEqualTo(datedPath))).get(1).getHeader("If-Modified-Since")).isEqualTo(date);
    assertThat(answeredAt(path, 200)).as("bodies sent: only the first").hasSize(1);

    // the resource changes: the old ETag no longer matches, and the new body is stored with the new ETag
    WIRE.stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withHeader("ETag", "\"e2\"").withBody("etag-v2")));
    WIRE.stubFor(get(urlPathEqualTo(path)).withHeader("If-None-Match", equalTo("\"e2\"")).willReturn(aResponse().withStatus(304)));
    await("the changed resource is stored").atMost(Duration.ofSeconds(15)).until(() -> "etag-v2".equals(APP.get(key)));
    await("and then revalidated with its new ETag")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> WIRE.findAll(getRequestedFor(urlPathEqualTo(path)).withHeader("If-None-Match", equalTo("\"e2\""))).size() >= 1);
    System.out.printf(
        "revalidation: %d requests for the ETag key, %d with a 200 body; %d for the Last-Modified key%n",
        WIRE.findAll(getRequestedFor(urlPathEqualTo(path))).size(), answeredAt(path, 200).size(),
        WIRE.findAll(getRequestedFor(urlPathEqualTo(datedPath))).size());
    APP.deleteKey(key, true).close();
    APP.deleteKey(dated, true).close();
  }

  // (e) the endpoint's load bound

  @Test
  void manyKeysDueAtOnce_endpointMaxConcurrent_holdsAtTheServer() throws Exception {
    int keys = 8;
    ExecutorService threads = Executors.newFixedThreadPool(keys);
    try {
      List<Future<String>> registered = new ArrayList<>();
      for (int i = 1; i <= keys; i++) {
        long id = i;
        registered.add(threads.submit(() -> register("http:bounded:" + id, "http-bounded", Map.of("id", id), "PT2S")));
      }
      for (Future<String> value : registered) {
        assertThat(value.get(60, TimeUnit.SECONDS)).startsWith("slow/slow/");
      }
    } finally {
      threads.shutdownNow();
    }
    // the registrations' refreshes, then one scheduled cycle of all eight, due within the same second
    await("a scheduled refresh of every key")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> SLOW.requestsTo("/slow/").size() >= 2 * keys);
    int requests = SLOW.requestsTo("/slow/").size();
    System.out.printf("load bound: %d requests (300 ms each) to an endpoint with maxConcurrent 2; at most %d in flight%n",
        requests, SLOW.mostInFlight());

    assertThat(SLOW.mostInFlight()).as("requests in flight at the server at once").isLessThanOrEqualTo(2);
    assertThat(SLOW.mostInFlight()).as("the bound was reached (8 registrations at once)").isEqualTo(2);
    for (int i = 1; i <= keys; i++) {
      assertThat(status("http:bounded:" + i).path("consecutiveFailures").asInt()).isZero();
      APP.deleteKey("http:bounded:" + i, true).close();
    }
  }

  // the request line on the wire

  @ParameterizedTest(name = "[{0}]")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '\'',
      value = {
        "../admin               | ..%2Fadmin                     | ..%2Fadmin",
        "a/b                    | a%2Fb                          | a%2Fb",
        "x?y=1                  | x%3Fy%3D1                      | x%3Fy%3D1",
        "#frag                  | %23frag                        | %23frag",
        "..                     | %2E%2E                         | ..",
        ".                      | %2E                            | .",
        "user@evil.com          | user%40evil.com                | user%40evil.com",
        "%2F                    | %252F                          | %252F",
        "http://evil.example/x  | http%3A%2F%2Fevil.example%2Fx  | http%3A%2F%2Fevil.example%2Fx",
        "a&b=c+d                | a%26b%3Dc%2Bd                  | a%26b%3Dc%2Bd",
        "'a b'                  | a%20b                          | a%20b",
        "../../etc/passwd%00    | ..%2F..%2Fetc%2Fpasswd%2500    | ..%2F..%2Fetc%2Fpasswd%2500",
      })
  void requestLine_dangerousValue_staysInsideItsSegmentAndQueryValue(String value, String inPath, String inQuery) throws Exception {
    String key = "http:line:" + Integer.toHexString(value.hashCode());
    int before = RAW.requests().size();

    assertThat(register(key, "http-raw", Map.of("id", value), "PT1H")).isEqualTo("raw");

    RecordingHttpServer.Request request = RAW.requests().get(before);
    assertThat(request.requestLine()).isEqualTo("GET /base/items/" + inPath + "/detail?q=" + inQuery + "&lang=en HTTP/1.1");
    assertThat(request.header("Host")).isEqualTo("127.0.0.1:" + RAW.port());
    APP.deleteKey(key, true).close();
  }

  // (f) a header from the environment, never shown

  @Test
  @Order(Integer.MAX_VALUE) // last: it reads everything the service logged in the other scenarios
  void defaultHeaderFromTheEnvironment_reachesTheServer_andNeverShowsInLogsOrApi() throws Exception {
    String token = System.getenv(TOKEN_VARIABLE);
    assertThat(token).as(TOKEN_VARIABLE + " (set by the failsafe configuration in refresher-service/pom.xml)").isNotBlank();
    WIRE.stubFor(get(urlPathEqualTo("/api/text/env")).willReturn(aResponse().withStatus(401).withBody("who are you?")));
    String key = "http:env";
    try (Response response = APP.putKey(key, registration("http-text", Map.of("id", "env"), "PT2S"))) {
      assertThat(response.getStatus()).isEqualTo(201);
    }

    LoggedRequest request = WIRE.findAll(getRequestedFor(urlPathEqualTo("/api/text/env"))).get(0);
    assertThat(request.getHeader("X-Api-Token")).isEqualTo("Bearer " + token);
    String sources;
    try (Response response = APP.authorized(APP.api("/v1/sources")).get()) {
      sources = response.readEntity(String.class);
    }
    assertThat(sources).contains("\"endpoint\":\"wire\"").doesNotContain(token).doesNotContain("X-Api-Token");
    assertThat(status(key).toString()).contains("answered 401").doesNotContain(token);
    String console;
    synchronized (CONSOLE) {
      console = CONSOLE.toString(StandardCharsets.UTF_8);
    }
    System.out.printf("service console: %d characters scanned for the token%n", console.length());
    assertThat(console).as("the service's log").contains("refresh of key 'http:env' from source 'http-text' failed").doesNotContain(token);
    APP.deleteKey(key, true).close();
  }

  // helpers

  private static String registration(String source, Map<String, Object> params, String ttl) throws Exception {
    return JSON.writeValueAsString(Map.of("source", source, "params", params, "ttl", ttl));
  }

  /** Registers a key (its first refresh runs at once) and returns the value stored. */
  /**
   * Registers the key and answers its first value. The registration computes it at once, and when
   * that first request fails (on a loaded machine, WireMock in this JVM may answer after the
   * source's timeout) the key is retried with backoff: what the tests here are about comes after.
   */
  private static String register(String key, String source, Map<String, Object> params, String ttl) throws Exception {
    try (Response response = APP.putKey(key, registration(source, params, ttl))) {
      assertThat(response.getStatus()).as(key + ": " + response.readEntity(String.class)).isEqualTo(201);
    }
    return await("the first value of " + key).atMost(Duration.ofSeconds(15)).until(() -> APP.get(key), java.util.Objects::nonNull);
  }

  private static JsonNode status(String key) {
    try (Response response = APP.getKey(key)) {
      assertThat(response.getStatus()).isEqualTo(200);
      return response.readEntity(JsonNode.class).path("status");
    }
  }

  /** When WireMock received the requests for {@code path} that it answered with {@code status}, in order. */
  private static List<Instant> answeredAt(String path, int status) {
    return WIRE.getAllServeEvents().stream()
        .filter(event -> event.getRequest().getUrl().startsWith(path) && event.getResponse().getStatus() == status)
        .map(ServeEvent::getRequest)
        .map(request -> request.getLoggedDate().toInstant())
        .sorted(Comparator.naturalOrder())
        .toList();
  }

  /** Writes to the original stream and keeps a copy. */
  /**
   * Copies the console into {@code copy}. It reads no static field of the test class: a thread that
   * writes while the class is still being initialized (the embedded PostgreSQL's initdb logger,
   * started from this class's static initializer) would wait for that initialization while holding
   * logback's console lock, which the initializing thread then waits for: a deadlock, seen once as
   * a fork that hung in {@code HttpSourcesIT.<clinit>}.
   */
  private static final class Tee extends OutputStream {
    private final OutputStream original;
    private final ByteArrayOutputStream copy;

    Tee(OutputStream original, ByteArrayOutputStream copy) {
      this.original = original;
      this.copy = copy;
    }

    @Override
    public void write(int b) {
      synchronized (copy) {
        copy.write(b);
      }
      try {
        original.write(b);
      } catch (java.io.IOException e) {
        // the copy is what the test reads
      }
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      synchronized (copy) {
        copy.write(bytes, offset, length);
      }
      try {
        original.write(bytes, offset, length);
      } catch (java.io.IOException e) {
        // the copy is what the test reads
      }
    }

    @Override
    public void flush() {
      try {
        original.flush();
      } catch (java.io.IOException e) {
        // nothing to flush into
      }
    }
  }
}

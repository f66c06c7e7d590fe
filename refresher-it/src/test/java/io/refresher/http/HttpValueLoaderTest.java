package io.refresher.http;

import java.time.InstantSource;
import io.refresher.wiring.Threads;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.refresher.refresh.Loaded;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.source.HttpRequestSpec;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.source.SourceException;
import io.refresher.testing.RecordingHttpServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTTP loader against real servers on the loopback address (WireMock, and a raw socket server
 * where WireMock cannot show or do the thing): what it sends, and what each kind of answer
 * becomes. No service runs here; the refresh path's handling of the outcomes is shown by the
 * integration tests.
 */
class HttpValueLoaderTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MAX_VALUE_BYTES = 1024;

  private static WireMockServer wire;
  private static RecordingHttpServer raw;
  private static MetricRegistry metrics;
  private static HttpEndpoints endpoints;
  private static HttpValueLoader loader;

  @BeforeAll
  static void start() throws IOException {
    wire = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
    wire.start();
    raw = RecordingHttpServer.start(request -> RecordingHttpServer.Reply.ok("raw"));
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Map<String, HttpEndpointSettings> settings = new LinkedHashMap<>();
    settings.put("wire", endpoint("wire", "http://127.0.0.1:" + wire.port() + "/base/", Map.of("X-Default", "from-endpoint", "X-Override", "from-endpoint")));
    settings.put("raw", endpoint("raw", raw.baseUrl(), Map.of()));
    settings.put("closed", endpoint("closed", "http://127.0.0.1:" + closedPort, Map.of()));
    metrics = new MetricRegistry();
    endpoints = HttpEndpoints.create(settings, metrics, Threads.scheduler("test-http-deadlines-", 1), InstantSource.system());
    List<SourceDefinition> sources = new ArrayList<>();
    sources.add(source("plain", "wire", "GET", "/plain/{id}", Map.of(), Map.of(), null, null, Duration.ofSeconds(2)));
    sources.add(source("pointer", "wire", "GET", "/json/{id}", Map.of(), Map.of(), null, "/data/name", Duration.ofSeconds(2)));
    sources.add(
        source(
            "search", "wire", "POST", "/search", Map.of("lang", "{lang}"), Map.of("X-Override", "from-source", "X-Tenant", "{tenant}"),
            "{\"id\": \"{id}\", \"lang\": \"{lang}\", \"note\": \"id {id}\"}", null, Duration.ofSeconds(2),
            Map.of("id", ParamType.LONG, "lang", ParamType.STRING, "tenant", ParamType.STRING)));
    sources.add(source("slow", "wire", "GET", "/plain/{id}", Map.of(), Map.of(), null, null, Duration.ofMillis(300)));
    sources.add(source("raw", "raw", "GET", "/raw/{id}", Map.of("q", "{id}"), Map.of(), null, null, Duration.ofSeconds(5)));
    sources.add(source("refused", "closed", "GET", "/x/{id}", Map.of(), Map.of(), null, null, Duration.ofSeconds(2)));
    loader = new HttpValueLoader(new SourceCatalog(sources), endpoints, JSON, MAX_VALUE_BYTES);
  }

  @AfterAll
  static void stop() {
    endpoints.close();
    wire.stop();
    raw.close();
  }

  private static HttpEndpointSettings endpoint(String name, String baseUrl, Map<String, String> headers) {
    return new HttpEndpointSettings(name, URI.create(baseUrl), null, 4, Duration.ofSeconds(1), Duration.ofSeconds(5), headers);
  }

  private static SourceDefinition source(
      String name, String endpoint, String method, String path, Map<String, String> query, Map<String, String> headers,
      String body, String pointer, Duration timeout) throws IOException {
    return source(name, endpoint, method, path, query, headers, body, pointer, timeout, Map.of("id", ParamType.STRING));
  }

  private static SourceDefinition source(
      String name, String endpoint, String method, String path, Map<String, String> query, Map<String, String> headers,
      String body, String pointer, Duration timeout, Map<String, ParamType> params) throws IOException {
    HttpRequestSpec http =
        new HttpRequestSpec(endpoint, method, path, query, headers, body == null ? null : JSON.readTree(body), Set.of(200), pointer);
    return new SourceDefinition(name, endpoint, null, params, ResultShape.ROWS, timeout, http, null, null);
  }

  private static Registration key(String source, Map<String, Object> params) {
    return new Registration("k:" + source, source, params, Duration.ofMinutes(1), T0, T0, RefreshPolicy.ALWAYS, null);
  }

  private static SourceException failure(String source, Map<String, Object> params) {
    SourceException e = catchThrowableOfType(SourceException.class, () -> loader.load(key(source, params)));
    assertThat(e).as("the load should have failed").isNotNull();
    return e;
  }

  @Test
  void load_acceptedBody_isTheValueAsIs_withItsEtagAsValidator() throws Exception {
    wire.stubFor(get(urlPathEqualTo("/base/plain/etag-1")).willReturn(aResponse().withHeader("ETag", "\"v1\"").withBody("hello ✓")));

    Loaded loaded = loader.loadIfChanged(key("plain", Map.of("id", "etag-1")), null);

    assertThat(loaded).isEqualTo(new Loaded.Value("hello ✓", "etag:\"v1\""));
    assertThat(loader.revalidates(key("plain", Map.of()))).isTrue();
  }

  @Test
  void loadIfChanged_etagValidator_sendsIfNoneMatch_and304IsUnchanged() throws Exception {
    wire.stubFor(get(urlPathEqualTo("/base/plain/etag-2")).willReturn(aResponse().withHeader("ETag", "\"v2\"").withBody("body")));
    wire.stubFor(
        get(urlPathEqualTo("/base/plain/etag-2")).withHeader("If-None-Match", equalTo("\"v2\"")).willReturn(aResponse().withStatus(304)));

    Loaded loaded = loader.loadIfChanged(key("plain", Map.of("id", "etag-2")), "etag:\"v2\"");
    Loaded stale = loader.loadIfChanged(key("plain", Map.of("id", "etag-2")), "etag:\"v1\"");

    assertThat(loaded).isInstanceOf(Loaded.Unchanged.class);
    assertThat(stale).isEqualTo(new Loaded.Value("body", "etag:\"v2\""));
  }

  @Test
  void loadIfChanged_lastModifiedValidator_sendsIfModifiedSince_and304IsUnchanged() throws Exception {
    String date = "Wed, 21 Oct 2015 07:28:00 GMT";
    wire.stubFor(get(urlPathEqualTo("/base/plain/lm")).willReturn(aResponse().withHeader("Last-Modified", date).withBody("dated")));
    wire.stubFor(get(urlPathEqualTo("/base/plain/lm")).withHeader("If-Modified-Since", equalTo(date)).willReturn(aResponse().withStatus(304)));

    Loaded first = loader.loadIfChanged(key("plain", Map.of("id", "lm")), null);
    Loaded second = loader.loadIfChanged(key("plain", Map.of("id", "lm")), ((Loaded.Value) first).validator());

    assertThat(first).isEqualTo(new Loaded.Value("dated", "last-modified:" + date));
    assertThat(second).isInstanceOf(Loaded.Unchanged.class);
    assertThat(wire.findAll(getRequestedFor(urlPathEqualTo("/base/plain/lm"))).get(0).containsHeader("If-Modified-Since")).isFalse();
  }

  @Test
  void load_pointer_picksTheValue_matchingNothingIsNoValue_notJsonIsError() throws Exception {
    wire.stubFor(get(urlPathEqualTo("/base/json/1")).willReturn(aResponse().withBody("{\"data\": {\"name\": \"Widget\"}}")));
    wire.stubFor(get(urlPathEqualTo("/base/json/2")).willReturn(aResponse().withBody("{\"data\": {}}")));
    wire.stubFor(get(urlPathEqualTo("/base/json/3")).willReturn(aResponse().withBody("<html>maintenance</html>")));

    assertThat(loader.load(key("pointer", Map.of("id", "1")))).isEqualTo("Widget");
    SourceException missing = failure("pointer", Map.of("id", "2"));
    SourceException notJson = failure("pointer", Map.of("id", "3"));

    assertThat(missing.kind()).as(missing.getMessage()).isEqualTo(SourceException.Kind.NO_VALUE);
    assertThat(missing.getMessage())
        .isEqualTo("source 'pointer' (GET /base/json/2 at endpoint 'wire'): JSON Pointer /data/name matches nothing in the response");
    assertThat(notJson.kind()).as(notJson.getMessage()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(notJson.getMessage()).contains("not JSON");
  }

  @Test
  void load_post_sendsTypedJsonBody_queryAndHeaders_overTheEndpointDefaults() throws Exception {
    wire.stubFor(post(urlPathEqualTo("/base/search")).willReturn(aResponse().withBody("found")));

    String value = loader.load(key("search", Map.of("id", 42, "lang", "de & fr", "tenant", "acme")));

    assertThat(value).isEqualTo("found");
    LoggedRequest request = wire.findAll(postRequestedFor(urlPathEqualTo("/base/search"))).get(0);
    assertThat(request.getUrl()).isEqualTo("/base/search?lang=de%20%26%20fr");
    assertThat(equalToJson("{\"id\": 42, \"lang\": \"de & fr\", \"note\": \"id 42\"}").match(request.getBodyAsString()).isExactMatch())
        .as(request.getBodyAsString())
        .isTrue();
    assertThat(request.getHeader("Content-Type")).startsWith("application/json");
    assertThat(request.getHeader("X-Default")).isEqualTo("from-endpoint");
    assertThat(request.getHeader("X-Override")).isEqualTo("from-source");
    assertThat(request.getHeaders().getHeader("X-Override").values()).hasSize(1);
    assertThat(request.getHeader("X-Tenant")).isEqualTo("acme");
    assertThat(request.getHeader("Cookie")).isNull();
  }

  @Test
  void load_statusNotAccepted_isHttpStatus_theStartOfTheBodyOnlyInTheDetail() {
    wire.stubFor(get(urlPathEqualTo("/base/plain/500")).willReturn(aResponse().withStatus(500).withBody("{\"error\":\n \"database down\"}" + "x".repeat(5000))));

    SourceException e = failure("plain", Map.of("id", "500"));

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.HTTP_STATUS);
    assertThat(e.getMessage()).isEqualTo("source 'plain' (GET /base/plain/500 at endpoint 'wire') answered 500 Server Error");
    assertThat(e.detail()).startsWith("body: {\"error\": \"database down\"}xxx").endsWith("...");
    assertThat(e.detail().length()).isLessThan(250);
    assertThat(e.retryAfter()).isNull();
  }

  @Test
  void load_statusNotAccepted_aLongReasonPhrase_isCut() {
    wire.stubFor(get(urlPathEqualTo("/base/plain/odd")).willReturn(aResponse().withStatus(500).withStatusMessage("Broken " + "r".repeat(300))));

    SourceException e = failure("plain", Map.of("id", "odd"));

    assertThat(e.getMessage()).startsWith("source 'plain' (GET /base/plain/odd at endpoint 'wire') answered 500 Broken rrr").endsWith("...");
    assertThat(e.getMessage().length()).isLessThan(150);
  }

  @Test
  void load_429and503_carryTheirRetryAfter() {
    wire.stubFor(get(urlPathEqualTo("/base/plain/429")).willReturn(aResponse().withStatus(429).withHeader("Retry-After", "3")));
    String inTwoMinutes = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
        java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusMinutes(2));
    wire.stubFor(get(urlPathEqualTo("/base/plain/503")).willReturn(aResponse().withStatus(503).withHeader("Retry-After", inTwoMinutes)));
    wire.stubFor(get(urlPathEqualTo("/base/plain/500-ra")).willReturn(aResponse().withStatus(500).withHeader("Retry-After", "3")));

    SourceException tooMany = failure("plain", Map.of("id", "429"));
    SourceException unavailable = failure("plain", Map.of("id", "503"));
    SourceException other = failure("plain", Map.of("id", "500-ra"));

    assertThat(tooMany.retryAfter()).isEqualTo(Duration.ofSeconds(3));
    assertThat(tooMany.getMessage()).endsWith("answered 429 Too Many Requests; Retry-After 3 s");
    assertThat(unavailable.retryAfter()).isBetween(Duration.ofSeconds(100), Duration.ofSeconds(121));
    assertThat(other.retryAfter()).as("only 429 and 503 say when to come back").isNull();
  }

  /** A server whose clock is an hour ahead: its HTTP-date is read against its own Date. */
  @Test
  void load_503_retryAfterDate_isReadAgainstTheServersDate() {
    java.time.ZonedDateTime serverNow = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusHours(1);
    java.time.format.DateTimeFormatter http = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME;
    wire.stubFor(
        get(urlPathEqualTo("/base/plain/503-skewed"))
            .willReturn(
                aResponse()
                    .withStatus(503)
                    .withHeader("Date", http.format(serverNow))
                    .withHeader("Retry-After", http.format(serverNow.plusSeconds(60)))));

    SourceException unavailable = failure("plain", Map.of("id", "503-skewed"));

    assertThat(unavailable.retryAfter()).as("not 60 s plus the server's hour of skew").isBetween(Duration.ofSeconds(59), Duration.ofSeconds(61));
  }

  @Test
  void load_redirect_isNotFollowed() {
    wire.stubFor(get(urlPathEqualTo("/base/plain/moved")).willReturn(aResponse().withStatus(302).withHeader("Location", "/base/plain/target")));

    SourceException e = failure("plain", Map.of("id", "moved"));

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.HTTP_STATUS);
    assertThat(e.getMessage()).contains("answered 302").contains("redirects are not followed");
    assertThat(wire.findAll(getRequestedFor(urlPathEqualTo("/base/plain/target")))).isEmpty();
  }

  @Test
  void load_answerSlowerThanTheTimeout_isTimeout_atTheTimeout() {
    wire.stubFor(get(urlPathEqualTo("/base/plain/slow")).willReturn(aResponse().withFixedDelay(3000).withBody("late")));

    long started = System.nanoTime();
    SourceException e = failure("slow", Map.of("id", "slow"));
    long tookMillis = (System.nanoTime() - started) / 1_000_000;

    System.out.printf("slow answer: %s after %d ms (source timeout 300 ms, server delay 3000 ms)%n", e.kind(), tookMillis);
    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.TIMEOUT);
    assertThat(e.getMessage()).contains("source 'slow'").contains("300 ms");
    assertThat(tookMillis).isLessThan(2000);
  }

  @Test
  void load_bodyTricklingPastTheTimeout_isTimeout_thoughNoSingleReadWaitsLong() {
    // every chunk comes well within the endpoint's 5 s readTimeout; only the whole exceeds 300 ms
    wire.stubFor(get(urlPathEqualTo("/base/plain/trickle")).willReturn(aResponse().withBody("x".repeat(200)).withChunkedDribbleDelay(20, 4000)));

    long started = System.nanoTime();
    SourceException e = failure("slow", Map.of("id", "trickle"));
    long tookMillis = (System.nanoTime() - started) / 1_000_000;

    System.out.printf("trickling body: %s after %d ms (source timeout 300 ms, body over 4000 ms)%n", e.kind(), tookMillis);
    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.TIMEOUT);
    assertThat(tookMillis).isLessThan(2000);
  }

  @Test
  void load_contentLengthOverTheLimit_isRefusedWithoutReading() {
    wire.stubFor(get(urlPathEqualTo("/base/plain/big")).willReturn(aResponse().withHeader("Content-Length", "5000").withBody("y".repeat(5000))));

    SourceException e = failure("plain", Map.of("id", "big"));

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.VALUE_TOO_LARGE);
    assertThat(e.getMessage()).contains("5000 bytes (Content-Length), over the limit of 1024 bytes; not read");
  }

  @Test
  void load_endlessBodyWithoutLength_stopsJustPastTheLimit() {
    raw.handler(request -> RecordingHttpServer.Reply.endless("z".repeat(100)));
    try {
      long started = System.nanoTime();
      SourceException e = failure("raw", Map.of("id", "endless"));
      long tookMillis = (System.nanoTime() - started) / 1_000_000;

      System.out.printf(
          "endless body: %s after %d ms; the server got %d bytes out before the connection closed%n",
          e.kind(), tookMillis, raw.endlessBytesSent());
      assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.VALUE_TOO_LARGE);
      assertThat(e.getMessage()).contains("more than the limit of 1024 bytes; stopped reading after 1025 bytes");
      assertThat(tookMillis).isLessThan(3000);
    } finally {
      raw.handler(request -> RecordingHttpServer.Reply.ok("raw"));
    }
  }

  @Test
  void load_requestLineOnTheWire_isExactlyAsRendered() throws Exception {
    loader.load(key("raw", Map.of("id", "../a b/%2F?x=1&y#f@..")));

    RecordingHttpServer.Request request = raw.requests().get(raw.requests().size() - 1);
    String encoded = "..%2Fa%20b%2F%252F%3Fx%3D1%26y%23f%40..";
    assertThat(request.requestLine()).isEqualTo("GET /raw/" + encoded + "?q=" + encoded + " HTTP/1.1");
    assertThat(request.header("Host")).isEqualTo("127.0.0.1:" + raw.port());
  }

  @Test
  void load_connectionRefused_isErrorSayingSo() {
    SourceException e = failure("refused", Map.of("id", "1"));

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage()).startsWith("source 'refused' (GET /x/1 at endpoint 'closed') could not connect").contains("refused");
  }

  @Test
  void translate_unknownHost_isErrorNamingIt() {
    // no lookup of a made-up name here: it would go to the machine's resolver
    HttpExchange exchange = new HttpExchange(
        endpoints.endpoint("wire").orElseThrow(), endpoints.deadlines(), Duration.ofSeconds(1), Set.of(200), null, 10, InstantSource.system(), null, null);
    SourceException e = exchange.translate(new UnknownHostException("catalog.internal: Name or service not known"), false, "source 's'");

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage()).isEqualTo("source 's' failed: unknown host catalog.internal: Name or service not known");
  }

  @Test
  void load_headerValueWithLineBreak_isErrorAndNothingIsSent() {
    int before = wire.findAll(postRequestedFor(urlPathEqualTo("/base/search"))).size();

    SourceException e = failure("search", Map.of("id", 1, "lang", "en", "tenant", "acme\r\nX-Admin: true"));

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage())
        .isEqualTo("source 'search': parameter 'tenant' cannot go into header 'X-Tenant': its value has a line break or another control character");
    assertThat(wire.findAll(postRequestedFor(urlPathEqualTo("/base/search")))).hasSize(before);
  }

  @Test
  void load_sourceNotConfigured_isError() {
    SourceException e = failure("gone", Map.of());

    assertThat(e.kind()).as(e.getMessage()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage()).isEqualTo("source 'gone' is no longer configured");
  }

  @Test
  void metrics_perEndpoint_underItsName_removedAtClose() throws Exception {
    wire.stubFor(get(urlPathEqualTo("/base/plain/metrics")).willReturn(aResponse().withBody("m")));
    loader.load(key("plain", Map.of("id", "metrics")));

    assertThat(metrics.timer("refresher.http.wire.requests").getCount()).isPositive();
    assertThat(metrics.getGauges().get("refresher.http.wire.connections.max").getValue()).isEqualTo(4);
    assertThat(metrics.getGauges()).containsKeys(
        "refresher.http.wire.connections.available", "refresher.http.wire.connections.leased", "refresher.http.wire.connections.pending");

    MetricRegistry own = new MetricRegistry();
    HttpEndpoints other = HttpEndpoints.create(Map.of("other", endpoint("other", "http://127.0.0.1:1", Map.of())), own, Threads.scheduler("test-http-deadlines-", 1), InstantSource.system());
    assertThat(own.getNames()).contains("refresher.http.other.connections.max");
    other.close();
    assertThat(own.getNames()).isEmpty();
  }
}

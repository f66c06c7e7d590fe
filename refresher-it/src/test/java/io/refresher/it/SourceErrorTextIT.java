package io.refresher.it;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.refresh.Refresher;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * What a failing source's error text may show: a key's status is readable by any Redis client (its
 * metadata hash) and by the {@code read} role ({@code GET /v1/keys/{key}}), so it holds a bounded,
 * classified message, never what the database or the endpoint quoted from the data. Each source
 * here fails with {@link #MARKER} (row data) in its error: in PostgreSQL's Detail, Hint and the
 * second line of its message (a {@code RAISE}), in its Detail and Where (a column cast to JSON), in
 * the body of an HTTP error, in a body that is not JSON. The marker must reach the service's own
 * log (the operator needs it) and nothing else.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SourceErrorTextIT {

  /** Letters only: a parser quoting a token of the data quotes all of it. */
  private static final String MARKER = "secretrowdata";

  private static final WireMockServer WIRE = startWireMock();

  private static final TestApp APP =
      TestApp.withConfig(
          "source_error_text",
          List.of(
              "CREATE TABLE leak_account (id bigint PRIMARY KEY, email text NOT NULL UNIQUE)",
              "INSERT INTO leak_account VALUES (1, '" + MARKER + "@example.com')",
              """
              CREATE FUNCTION leaky_lookup(wanted bigint) RETURNS text LANGUAGE plpgsql AS $$
              DECLARE
                found text;
              BEGIN
                SELECT email INTO found FROM leak_account WHERE id = wanted;
                RAISE EXCEPTION E'lookup of account % refused\\nbecause of %', wanted, found
                  USING DETAIL = 'row: ' || found, HINT = 'try without ' || found;
              END $$
              """),
          """
          httpEndpoints:
            wire:
              baseUrl: http://127.0.0.1:%d/api
          sources:
            raises-with-detail:
              sql: SELECT leaky_lookup(:id) AS leaky_source
              params: { id: long }
              result: scalar
              timeout: 2s
            casts-to-json:
              sql: SELECT CAST(email AS jsonb)::text AS casts_source FROM leak_account WHERE id = :id
              params: { id: long }
              result: scalar
              timeout: 2s
            http-failing:
              http: { endpoint: wire, path: "/fail/{id}" }
              params: { id: string }
              timeout: 2s
            http-not-json:
              http: { endpoint: wire, path: "/not-json/{id}", pointer: /data }
              params: { id: string }
              timeout: 2s
          """
              .formatted(WIRE.port()));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static WireMockServer startWireMock() {
    WireMockServer server = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
    server.start();
    server.stubFor(
        get(urlPathEqualTo("/api/fail/1"))
            .willReturn(aResponse().withStatus(500).withBody("{\"error\": \"no row for " + MARKER + "@example.com\"}")));
    server.stubFor(get(urlPathEqualTo("/api/not-json/1")).willReturn(aResponse().withBody(MARKER + " is not JSON")));
    return server;
  }

  @AfterAll
  static void stopWireMock() {
    WIRE.stop();
  }

  /** A failing source, what its key's status must say, and the parameters that make it fail. */
  record Failing(String source, String params, String kind, String message) {
    @Override
    public String toString() {
      return source;
    }
  }

  static List<Failing> failingSources() {
    return List.of(
        new Failing(
            "raises-with-detail", "{\"id\":1}", "ERROR",
            "source 'raises-with-detail' failed: SQLSTATE P0001: lookup of account 1 refused"),
        new Failing(
            "casts-to-json", "{\"id\":1}", "ERROR",
            "source 'casts-to-json' failed: SQLSTATE 22P02: invalid input syntax for type json"),
        new Failing(
            "http-failing", "{\"id\":\"1\"}", "HTTP_STATUS",
            "source 'http-failing' (GET /api/fail/1 at endpoint 'wire') answered 500 Server Error"),
        new Failing(
            "http-not-json", "{\"id\":\"1\"}", "ERROR",
            "source 'http-not-json' (GET /api/not-json/1 at endpoint 'wire') answered a body that is not JSON (its pointer needs JSON)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failingSources")
  void sourceError_keyShowsItsClassifiedMessage_theDataItQuotedOnlyInTheServiceLog(
      Failing failing) {
    String key = "leak:" + failing.source();
    String message = failing.message();
    Logger logger = (Logger) LoggerFactory.getLogger(Refresher.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      JsonNode registered;
      try (Response response =
          APP.putKey(key, "{\"source\":\"" + failing.source() + "\",\"params\":" + failing.params() + ",\"ttl\":\"PT1H\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
        registered = response.readEntity(JsonNode.class);
      }
      assertThat(registered.path("refresh").path("outcome").asText()).isEqualTo("failed");
      assertThat(registered.path("refresh").path("error").asText()).as("the PUT's answer").isEqualTo(message);

      Map<String, String> meta =
          await("the failure is recorded in the metadata")
              .atMost(Duration.ofSeconds(10))
              .until(() -> APP.meta(key), recorded -> recorded.containsKey("error"));
      assertThat(meta.get("errorKind")).isEqualTo(failing.kind());
      assertThat(meta.get("error")).as("the metadata's error (any Redis client reads it)").isEqualTo(message);
      assertThat(meta.toString()).doesNotContain(MARKER);

      JsonNode status;
      try (Response response = APP.getKey(key)) {
        assertThat(response.getStatus()).isEqualTo(200);
        status = response.readEntity(JsonNode.class).path("status");
      }
      assertThat(status.path("lastErrorKind").asText()).isEqualTo(failing.kind());
      assertThat(status.path("lastError").asText()).as("GET /v1/keys (the read role sees it)").isEqualTo(message);
      assertThat(status.toString()).doesNotContain(MARKER);

      assertThat(messages(logged, Level.WARN))
          .as("the first failure of the streak, logged at WARN with what the source said")
          .anySatisfy(line -> assertThat(line).contains("'" + key + "'", message, MARKER));
    } finally {
      logger.detachAppender(logged);
      APP.deleteKey(key, true).close();
    }
  }

  private static List<String> messages(ListAppender<ILoggingEvent> logged, Level level) {
    synchronized (logged) {
      return logged.list.stream()
          .filter(event -> event.getLevel().isGreaterOrEqual(level))
          .map(ILoggingEvent::getFormattedMessage)
          .toList();
    }
  }
}

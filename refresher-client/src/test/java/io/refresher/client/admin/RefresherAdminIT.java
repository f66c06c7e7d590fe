package io.refresher.client.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's wire behaviour against a real HTTP server that answers as the service does when it
 * is briefly unavailable (503 with Retry-After) or refuses input (422 with the JSON error body).
 * The admin API itself is exercised end to end by the service's integration tests (CliIT).
 */
class RefresherAdminIT {

  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private URI serve(List<Integer> statuses, List<String> seen) throws IOException {
    AtomicInteger calls = new AtomicInteger();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath() + " " + exchange.getRequestHeaders().getFirst("Authorization"));
          int status = statuses.get(Math.min(calls.getAndIncrement(), statuses.size() - 1));
          byte[] body;
          if (status == 503) {
            exchange.getResponseHeaders().add("Retry-After", "1");
            body = "{\"code\":503,\"message\":\"registry unavailable\"}".getBytes(StandardCharsets.UTF_8);
          } else if (status == 422) {
            body = "{\"code\":422,\"message\":\"invalid registration\",\"errors\":[{\"field\":\"ttl\",\"rule\":\"must be at least 1 s\"}]}".getBytes(StandardCharsets.UTF_8);
          } else {
            body = "{\"key\":\"a/b\",\"source\":\"s\",\"params\":{},\"ttl\":\"PT1M\",\"policy\":\"hot\"}".getBytes(StandardCharsets.UTF_8);
          }
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  @Test
  void unavailable_retriedAfterRetryAfter_thenAnswered() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    RefresherAdmin admin = RefresherAdmin.builder(serve(List.of(503, 201), seen)).token("t-0123456789abcdef").build();
    long started = System.nanoTime();

    assertThat(admin.putKey("a/b", KeySpec.of("s", java.util.Map.of(), java.time.Duration.ofMinutes(1)))).as("created").isTrue();

    assertThat((System.nanoTime() - started) / 1_000_000).as("waited the Retry-After second").isGreaterThanOrEqualTo(900);
    assertThat(seen).containsExactly("PUT /v1/keys/a%2Fb Bearer t-0123456789abcdef", "PUT /v1/keys/a%2Fb Bearer t-0123456789abcdef");
  }

  @Test
  void unavailableThroughTheRetries_anUnavailableFailure() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    RefresherAdmin admin = RefresherAdmin.builder(serve(List.of(503), seen)).token("t").maxRetries(1).build();
    assertThatThrownBy(() -> admin.keyStatus("k"))
        .isInstanceOfSatisfying(RefresherAdminException.class, e -> assertThat(e.unavailable()).isTrue())
        .hasMessageContaining("503 registry unavailable");
    assertThat(seen).hasSize(2);
  }

  @Test
  void refused_notRetried_theFieldAndRuleNamed() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    RefresherAdmin admin = RefresherAdmin.builder(serve(List.of(422), seen)).token("t").build();
    assertThatThrownBy(() -> admin.putKey("k", KeySpec.of("s", java.util.Map.of(), java.time.Duration.ofMillis(1))))
        .isInstanceOfSatisfying(
            RefresherAdminException.class,
            e -> {
              assertThat(e.status()).isEqualTo(422);
              assertThat(e.unavailable()).isFalse();
              assertThat(e.errors()).containsExactly(new RefresherAdminException.FieldError("ttl", "must be at least 1 s"));
            })
        .hasMessageContaining("ttl: must be at least 1 s");
    assertThat(seen).hasSize(1);
  }
}

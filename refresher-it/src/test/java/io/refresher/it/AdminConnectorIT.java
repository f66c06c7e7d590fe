package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Dropwizard's admin connector (metrics, health details, thread dumps, tasks) has no
 * authentication, so it must stay internal (docs/operations.md, "The admin connector"). This test
 * pins down the split it relies on: the admin servlets answer on the admin port only, without a
 * token, and the application port, the only one the Kubernetes Service exposes, serves none of them
 * (401 without a token, as for any path there; 404 with the admin token), only the API and {@code
 * /health-check}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminConnectorIT {

  private static final TestApp APP = TestApp.create("admin_connector", List.of());
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "GET, /healthcheck",
    "GET, /metrics",
    "GET, /metrics/prometheus",
    "GET, /ping",
    "GET, /threads",
    "POST, /tasks/gc",
    "POST, /tasks/log-level",
  })
  void applicationPort_adminServletPaths_401WithoutToken404WithIt(String method, String path) throws Exception {
    // Every request on the application port must authenticate first, unknown paths included.
    Reply anonymous = send(EXTENSION.getLocalPort(), method, path, null);
    assertThat(anonymous.status()).as("%s %s on the application port without a token: %s", method, path, anonymous.body())
        .isEqualTo(401);
    assertNoAdminContent(anonymous);

    Reply admin = send(EXTENSION.getLocalPort(), method, path, "Bearer " + TestApp.TOKEN);
    assertThat(admin.status()).as("%s %s on the application port with the admin token: %s", method, path, admin.body())
        .isEqualTo(404);
    assertNoAdminContent(admin);
  }

  private static void assertNoAdminContent(Reply reply) {
    assertThat(reply.body()).doesNotContain("gauges").doesNotContain("pong").doesNotContain("\"healthy\"");
  }

  @Test
  void adminPort_servlets_answerWithoutAnyToken() throws Exception {
    int admin = EXTENSION.getAdminPort();

    Reply metrics = send(admin, "GET", "/metrics", null);
    assertThat(metrics.status()).as(metrics.body()).isEqualTo(200);
    assertThat(metrics.body()).contains("\"gauges\"").contains("refresher.");

    Reply prometheus = send(admin, "GET", "/metrics/prometheus", null);
    assertThat(prometheus.status()).isEqualTo(200);
    assertThat(prometheus.body()).contains("refresher_");

    Reply ping = send(admin, "GET", "/ping", null);
    assertThat(ping.status()).isEqualTo(200);
    assertThat(ping.body()).contains("pong");

    // Every check runs on each request, whatever its state: 200 when all are healthy, 500 otherwise.
    Reply health = send(admin, "GET", "/healthcheck", null);
    assertThat(health.status()).as(health.body()).isIn(200, 500);
    assertThat(health.body()).contains("\"postgres\"").contains("\"redis\"");

    Reply threads = send(admin, "GET", "/threads", null);
    assertThat(threads.status()).isEqualTo(200);

    // Tasks change the running service, and anyone who reaches the port may run them.
    Reply gc = send(admin, "POST", "/tasks/gc", null);
    assertThat(gc.status()).as(gc.body()).isEqualTo(200);
  }

  @Test
  void adminPort_api_isNotServed() throws Exception {
    Reply reply = send(EXTENSION.getAdminPort(), "GET", "/v1/keys", "Bearer " + TestApp.TOKEN);

    assertThat(reply.status()).isEqualTo(404);
  }

  @Test
  void applicationPort_healthCheckForProbes_isServedWithoutToken() throws Exception {
    Reply reply = send(EXTENSION.getLocalPort(), "GET", "/health-check?type=alive", null);

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
  }

  private record Reply(int status, String body) {}

  private static Reply send(int port, String method, String path, String authorization)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(response.statusCode(), response.body());
  }
}

package io.refresher.bench.stampede;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real Refresher service, started in-process ({@code RefresherApplication.run("server",
 * config)}) from {@code stampede.yml}, and the admin API calls the phase makes to it, as an
 * operator's tool would (bearer token, JSON over HTTP).
 */
final class RefresherServer implements AutoCloseable {

  private static final String TOKEN = "stampede-bench-token-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final InProcess app;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Path config;

  private RefresherServer(InProcess app, Path config) {
    this.app = app;
    this.config = config;
  }

  /** Starts the service on {@code redisUrl} and {@code dbUrl}; returns once it is ready. */
  static RefresherServer start(String redisUrl, String dbUrl, StampedeSettings settings) throws Exception {
    String template;
    try (InputStream in = RefresherServer.class.getResourceAsStream("/stampede.yml")) {
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path file = Files.createTempFile("refresher-stampede", ".yml");
    file.toFile().deleteOnExit();
    Files.writeString(
        file,
        template
            .replace("@REDIS_URL@", redisUrl)
            .replace("@DB_URL@", dbUrl)
            .replace("@ADMIN_TOKEN@", TOKEN)
            .replace("@HALF_LIFE@", settings.halfLife().toMillis() + "ms")
            .replace("@HOT_THRESHOLD@", String.format(Locale.ROOT, "%.4f", settings.hotThreshold())));
    InProcess app = new InProcess();
    app.run("server", file.toString());
    RefresherServer server = new RefresherServer(app, file);
    try {
      server.awaitReady(Duration.ofSeconds(30));
    } catch (RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** PUT /v1/templates/{name}: the keys matching {@code pattern} are computed by {@code source}. */
  void putTemplate(String name, String pattern, String source, Map<String, Object> params, Duration ttl)
      throws IOException, InterruptedException {
    String body =
        JSON.writeValueAsString(Map.of("pattern", pattern, "source", source, "params", params, "ttl", ttl.toString()));
    HttpResponse<String> response =
        http.send(
            request("/v1/templates/" + encode(name))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200 && response.statusCode() != 201) {
      throw new IllegalStateException("PUT template " + name + ": " + response.statusCode() + " " + response.body());
    }
  }

  /** GET /v1/hot: the keys of the service's hot set (at most 1,000), hottest first. */
  List<String> hotKeys() throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(request("/v1/hot?limit=1000").GET().build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("GET /v1/hot: " + response.statusCode() + " " + response.body());
    }
    List<String> keys = new ArrayList<>();
    for (JsonNode item : JSON.readTree(response.body()).path("items")) {
      keys.add(item.path("key").asText());
    }
    return keys;
  }

  /** POST /v1/keys/{key}/refresh: the service recomputes the key now; completes with the outcome. */
  CompletableFuture<String> refresh(String key) {
    return http.sendAsync(
            request("/v1/keys/" + encode(key) + "/refresh").POST(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString())
        .thenApply(
            response -> {
              if (response.statusCode() != 200) {
                throw new IllegalStateException("refresh " + key + ": " + response.statusCode() + " " + response.body());
              }
              try {
                return JSON.readTree(response.body()).path("outcome").asText();
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
  }

  /** The service's Redisson client (its commands are counted through it). */
  org.redisson.api.RedissonClient redisson() {
    return app.parts().redisson();
  }

  /** The service's metrics (refreshes, failures, lag). */
  com.codahale.metrics.MetricRegistry metrics() {
    return app.metrics();
  }

  private void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no port yet";
    while (System.nanoTime() < deadline) {
      if (app.port > 0) {
        try {
          HttpResponse<String> response =
              http.send(request("/health-check?type=ready").GET().build(), HttpResponse.BodyHandlers.ofString());
          if (response.statusCode() == 200) {
            return;
          }
          last = response.statusCode() + " " + response.body();
        } catch (IOException e) {
          last = e.toString(); // not listening yet
        }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new IllegalStateException(
        "the service did not become ready within " + timeout + " (port " + app.port + "; last answer: " + last + ")");
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base() + path))
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + TOKEN);
  }

  private String base() {
    return "http://127.0.0.1:" + app.port;
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public void close() throws Exception {
    app.stopServer();
    Files.deleteIfExists(config);
  }

  /**
   * The service as the phase runs it: a failure to start is thrown to the phase (Dropwizard's
   * default would exit the JVM and end the whole benchmark), and the HTTP port it was given is
   * kept.
   */
  private static final class InProcess extends RefresherApplication {
    private volatile int port;

    @Override
    public void run(RefresherConfiguration config, Environment environment) throws Exception {
      super.run(config, environment);
      environment.lifecycle().addServerLifecycleListener(new ServerLifecycleListener() {
        @Override
        public void serverStarted(org.eclipse.jetty.server.Server server) {
          port = getLocalPort(server);
        }
      });
    }

    @Override
    protected void onFatalError(Throwable t) {
      throw new IllegalStateException("the Refresher service did not start", t);
    }
  }
}

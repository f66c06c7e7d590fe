package io.refresher.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The service's jar, as operators run it, for the tests of the clients in other languages: the
 * shipped config.yml with a {@code product-by-id} source over a {@code test_product} table, the
 * template {@code product:{id}} registered, and access settings that make a key read 5 times a
 * second hot within a few seconds.
 */
public final class ServiceJarForClients implements AutoCloseable {

  private static final String TOKEN = "clients-token-3e8b1c";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final TestRedis redis;
  private final TestDatabase database;
  private final ServiceProcess service;

  private ServiceJarForClients(TestRedis redis, TestDatabase database, ServiceProcess service) {
    this.redis = redis;
    this.database = database;
    this.service = service;
  }

  /** Starts it with the template's values living {@code ttl}; returns once it is ready. */
  public static ServiceJarForClients start(String name, Duration ttl) throws IOException, InterruptedException {
    TestRedis redis = RealServers.newRedis();
    TestDatabase database = RealServers.newDatabase(name);
    database.execute(
        "CREATE TABLE test_product (id bigint primary key, name text, price numeric, tags text[])",
        "INSERT INTO test_product SELECT i, 'Product ' || i, round(i / 100.0, 2), ARRAY['sample'] FROM generate_series(1, 100) i");
    ServiceProcess service = new ServiceProcess(name, config(name), ServiceProcess.environment(redis, database, TOKEN));
    ServiceJarForClients started = new ServiceJarForClients(redis, database, service);
    try {
      service.start();
      service.awaitReady(Duration.ofSeconds(120));
      started.registerTemplate(ttl);
      return started;
    } catch (RuntimeException | IOException | InterruptedException e) {
      started.close();
      throw e;
    }
  }

  public String redisUrl() {
    return redis.url();
  }

  public TestRedis redis() {
    return redis;
  }

  /** How many times the service ran the product query. */
  public long productQueries() {
    return database.executionsOf("FROM test_product WHERE id");
  }

  /** Whether {@code GET /v1/hot} lists {@code key}. */
  public boolean isHot(String key) throws IOException, InterruptedException {
    JsonNode hot = JSON.readTree(send(request("/v1/hot?limit=1000").GET()).body());
    for (JsonNode item : hot.get("items")) {
      if (item.get("key").asText().equals(key)) {
        return true;
      }
    }
    return false;
  }

  private void registerTemplate(Duration ttl) throws IOException, InterruptedException {
    HttpResponse<String> response =
        send(
            request("/v1/templates/products")
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(
                    "{\"pattern\":\"product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"" + ttl + "\"}")));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
        .header("Authorization", "Bearer " + TOKEN)
        .timeout(Duration.ofSeconds(10));
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The shipped config.yml, with the product source and fast access settings. */
  private static Path config(String name) throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    ObjectNode config = (ObjectNode) yaml.readTree(Path.of("..", "config.yml").toFile());
    ObjectNode source = config.withObjectProperty("sources").putObject("product-by-id");
    source.put("sql", "SELECT id, name, price, tags FROM test_product WHERE id = :id");
    source.putObject("params").put("id", "long");
    source.put("result", "row");
    source.put("timeout", "2s");
    config.withObjectProperty("refresh").put("staleGrace", "0s").put("jitter", 0.0);
    config.withObjectProperty("access")
        .put("halfLife", "1s")
        .put("hotThreshold", 5)
        .put("coldAfter", "2s")
        .put("sampleInterval", "250ms")
        .put("settle", "300ms")
        .put("snapshotInterval", "1s");
    config.withObjectProperty("health").put("shutdownWaitPeriod", "1s");
    config.withObjectProperty("server").put("shutdownGracePeriod", "2s");
    Path file = Files.createTempFile("clients-config-" + name + "-", ".yml");
    yaml.writeValue(file.toFile(), config);
    return file;
  }

  @Override
  public void close() {
    try {
      service.close();
    } finally {
      redis.close();
    }
  }
}

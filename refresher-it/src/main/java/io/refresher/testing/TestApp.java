package io.refresher.testing;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.refresher.RefresherApplication;
import io.refresher.wiring.ServiceWiring;
import io.refresher.config.RefresherConfiguration;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The real service, started by {@link DropwizardAppExtension} from {@code config-test.yml}, wired to
 * a real Redis and a real PostgreSQL database of its own, with helpers to call the admin API and to
 * read Redis the way an application would.
 */
public final class TestApp {

  public static final String TOKEN = "test-admin-token-0123456789";
  private static final java.util.concurrent.atomic.AtomicInteger INSTANCES = new java.util.concurrent.atomic.AtomicInteger();

  private final TestDatabase database;
  private final TestRedis redis;
  private final DropwizardAppExtension<RefresherConfiguration> extension;
  private RedissonClient reader;

  private TestApp(TestDatabase database, TestRedis redis, DropwizardAppExtension<RefresherConfiguration> extension) {
    this.database = database;
    this.redis = redis;
    this.extension = extension;
  }

  /**
   * Builds the extension on fresh servers. {@code setUpSql} runs on the database first (test
   * tables the sources read). Extra overrides are {@code "path", "value"} pairs.
   */
  public static TestApp create(String name, List<String> setUpSql, String... overrides) {
    TestDatabase database = RealServers.newDatabase(name);
    database.execute(setUpSql.toArray(String[]::new));
    return on(name, database, RealServers.newRedis(), overrides);
  }

  /**
   * Like {@link #create}, on {@code config-test.yml} with {@code extraYaml} merged into it (objects
   * key by key, anything else replaced): for blocks that overrides cannot write well, such as
   * whole sources, lists, or values with {@code ${VAR}} for the service's own environment
   * substitution (which reads the file, not the overrides).
   */
  /** {@link #withConfig(String, List, String, String...)}, running a subclass of the application. */
  public static TestApp withConfig(
      String name, List<String> setUpSql, String extraYaml, Class<? extends RefresherApplication> application, String... overrides) {
    TestDatabase database = RealServers.newDatabase(name);
    database.execute(setUpSql.toArray(String[]::new));
    return onConfig(name, database, RealServers.newRedis(), application, mergedConfig(name, extraYaml), overrides);
  }

  public static TestApp withConfig(String name, List<String> setUpSql, String extraYaml, String... overrides) {
    TestDatabase database = RealServers.newDatabase(name);
    database.execute(setUpSql.toArray(String[]::new));
    return onConfig(name, database, RealServers.newRedis(), RefresherApplication.class, mergedConfig(name, extraYaml), overrides);
  }

  private static String mergedConfig(String name, String extraYaml) {
    com.fasterxml.jackson.databind.ObjectMapper yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    try {
      com.fasterxml.jackson.databind.JsonNode base =
          yaml.readTree(TestConfig.file().toFile());
      com.fasterxml.jackson.databind.JsonNode merged = yaml.readerForUpdating(base).readValue(extraYaml);
      java.nio.file.Path file = java.nio.file.Files.createTempFile("config-test-" + name + "-", ".yml");
      file.toFile().deleteOnExit();
      yaml.writeValue(file.toFile(), merged);
      return file.toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("could not write the merged configuration of " + name, e);
    }
  }

  /**
   * A second replica of {@code other}: the same Redis, the same PostgreSQL database and the same
   * (clustered) Quartz scheduler name, as replicas in a Kubernetes Deployment share them.
   */
  public static TestApp replicaOf(TestApp other, String name, String... overrides) {
    return on(name, other.database, other.redis, overrides);
  }

  /** A replica running as a subclass of the application (one with a skewed clock, say). */
  public static TestApp replicaOf(
      TestApp other, String name, Class<? extends RefresherApplication> application, String... overrides) {
    return on(name, other.database, other.redis, application, overrides);
  }

  /** The service on a given database and Redis (for tests that control a server's life). */
  public static TestApp on(String name, TestDatabase database, TestRedis redis, String... overrides) {
    return on(name, database, redis, RefresherApplication.class, overrides);
  }

  private static TestApp on(
      String name,
      TestDatabase database,
      TestRedis redis,
      Class<? extends RefresherApplication> application,
      String... overrides) {
    return onConfig(name, database, redis, application, TestConfig.file().toString(), overrides);
  }

  private static TestApp onConfig(
      String name,
      TestDatabase database,
      TestRedis redis,
      Class<? extends RefresherApplication> application,
      String configPath,
      String... overrides) {
    // Each service reads its overrides from system properties of its own prefix. With the shared
    // "dw." prefix, two replicas in one class overrode the same properties, and the second one's
    // clean-up restored the first one's values: they leaked into every later test class (a backlog
    // test's 8 workers and 5,000 in flight showed up in the stall test).
    String prefix = "refresher-test-" + INSTANCES.incrementAndGet();
    // A test's override replaces the default of the same setting (two overrides of one setting
    // are not applied in a dependable order).
    java.util.Map<String, String> settings = new java.util.LinkedHashMap<>();
    settings.put("redis.url", redis.url());
    settings.put("database.url", database.url());
    settings.put("database.user", database.user());
    settings.put("database.password", database.password());
    settings.put("admin.token", TOKEN);
    settings.put("scheduler.quartzName", "refresher-" + database.url().replaceAll("\\?.*", "").replaceAll(".*/", ""));
    for (int i = 0; i + 1 < overrides.length; i += 2) {
      settings.put(overrides[i], overrides[i + 1]);
    }
    List<ConfigOverride> configOverrides = new ArrayList<>();
    settings.forEach((setting, value) -> configOverrides.add(ConfigOverride.config(prefix, setting, value)));
    DropwizardAppExtension<RefresherConfiguration> extension =
        new DropwizardAppExtension<>(
            application,
            configPath,
            prefix,
            configOverrides.toArray(ConfigOverride[]::new));
    TestApp app = new TestApp(database, redis, extension);
    extension.addListener(
        new DropwizardAppExtension.ServiceListener<>() {
          @Override
          public void onStop(DropwizardAppExtension<RefresherConfiguration> stopped) {
            app.closeAfterStop();
          }
        });
    return app;
  }



  public DropwizardAppExtension<RefresherConfiguration> extension() {
    return extension;
  }

  public TestDatabase database() {
    return database;
  }

  public TestRedis redis() {
    return redis;
  }

  public ServiceWiring.Parts parts() {
    return ((RefresherApplication) extension.getApplication()).parts();
  }

  /** A Redis client that reads like an application: plain strings, no Redisson codec. */
  public synchronized RedissonClient reader() {
    if (reader == null) {
      reader = redis.connect();
    }
    return reader;
  }

  public String get(String key) {
    return reader().<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  public Map<String, String> meta(String key) {
    return reader().<String, String>getMap(io.refresher.client.protocol.CacheKeys.metaKey(key), StringCodec.INSTANCE).readAllMap();
  }

  /** Percent-encodes a key as one path segment (slashes included). */
  public static String pathOf(String key) {
    return URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20");
  }

  public WebTarget api(String path) {
    return extension.client().target("http://localhost:" + extension.getLocalPort()).path(path);
  }

  public Invocation.Builder authorized(WebTarget target) {
    return target.request(MediaType.APPLICATION_JSON).header("Authorization", "Bearer " + TOKEN);
  }

  public Response putKey(String key, String json) {
    return authorized(api("/v1/keys/" + pathOf(key))).put(Entity.json(json));
  }

  public Response getKey(String key) {
    return authorized(api("/v1/keys/" + pathOf(key))).get();
  }

  public Response refreshKey(String key) {
    return authorized(api("/v1/keys/" + pathOf(key) + "/refresh")).post(Entity.json(""));
  }

  /** {@code GET /v1/hot?limit=N}. */
  public Response hot(int limit) {
    return authorized(api("/v1/hot").queryParam("limit", limit)).get();
  }

  public Response putTemplate(String name, String json) {
    return authorized(api("/v1/templates/" + pathOf(name))).put(Entity.json(json));
  }

  public Response deleteKey(String key, boolean evict) {
    return authorized(api("/v1/keys/" + pathOf(key)).queryParam("evict", evict)).delete();
  }

  /**
   * Runs as the service stops: stops the reader client. Redis itself stays up until the test JVM
   * exits ({@link RealServers}), because the listener runs before the service has stopped and a
   * service that loses Redis while stopping logs connection errors.
   */
  private synchronized void closeAfterStop() {
    if (reader != null) {
      reader.shutdown();
      reader = null;
    }
  }
}

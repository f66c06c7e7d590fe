package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.embedded.FreePorts;
import io.refresher.testing.RealServers;
import io.refresher.testing.ServiceProcess;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The runnable jar as operators start it: {@code java -jar refresher-service.jar server config.yml}
 * with the shipped {@code config.yml} and the documented environment variables, against an existing
 * Redis and PostgreSQL.
 */
class ServiceJarIT {

  private static final Path JAR = ServiceProcess.JAR;
  private static final Path CONFIG = Path.of("..", "config.yml");
  private static final String TOKEN = "jar-test-token-7f3a9c1e5b";

  private static TestRedis redis;
  private static final List<Process> started = new ArrayList<>();

  @BeforeAll
  static void servers() {
    assertThat(JAR).as("the shaded jar is built in the package phase").exists();
    redis = RealServers.newRedis();
  }

  @AfterAll
  static void stop() {
    started.forEach(Process::destroyForcibly);
    redis.close();
  }

  /** With the documented environment, the admin token and the database password from files. */
  @Test
  void server_withDocumentedEnvironment_migratesAndServesTheApi() throws Exception {
    TestDatabase database = RealServers.newDatabase("service_jar");
    int port = FreePorts.next();
    Path log = Files.createTempFile("service-jar", ".log");
    Map<String, String> env = env(database, port);
    // The admin token and the database password as mounted secrets are: files named by *_FILE.
    Path secrets = Files.createTempDirectory("service-jar-secrets");
    env.put("REFRESHER_ADMIN_TOKEN_FILE", Files.writeString(secrets.resolve("admin-token"), env.remove("REFRESHER_ADMIN_TOKEN") + "\n").toString());
    env.put("REFRESHER_DB_PASSWORD_FILE", Files.writeString(secrets.resolve("db-password"), env.remove("REFRESHER_DB_PASSWORD")).toString());
    int adminPort = Integer.parseInt(env.get("REFRESHER_ADMIN_PORT"));
    Process service = start(log, env, "server", CONFIG.toString());
    HttpClient http = HttpClient.newHttpClient();

    awaitReady(http, port);

    HttpResponse<String> registered =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/keys/time:now"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"source\":\"server-time\",\"params\":{},\"ttl\":\"PT10S\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
    assertThat(readRedis("time:now")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    assertThat(database.queryLong("SELECT count(*) FROM refresher.refresher_key")).isEqualTo(1);
    assertThat(database.queryLong("SELECT count(*) FROM refresher.refresher_schema_history WHERE success"))
        .isGreaterThanOrEqualTo(3);

    HttpResponse<String> prometheus =
        http.send(get(adminPort, "/metrics/prometheus"), HttpResponse.BodyHandlers.ofString());
    assertThat(prometheus.statusCode()).isEqualTo(200);
    assertThat(prometheus.body())
        .contains("refresher_refresh_refreshed_total")
        .contains("refresher_source_server_time_duration")
        .contains("refresher_refresh_lag")
        // the names docs/operations.md alerts on
        .contains("refresher_hot_size")
        .contains("refresher_hot_left_out_now")
        .contains("refresher_hot_left_out_total")
        .contains("refresher_hot_unresolved")
        .contains("refresher_access_counter_lag_ms")
        .contains("refresher_redis_data_losses")
        .contains("refresher_prewarm_running")
        .contains("refresher_prewarm_left")
        .contains("refresher_prewarm_failed")
        .contains("refresher_dispatch_dropped_claims");

    service.destroy();
    assertThat(service.waitFor(60, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
    String output = Files.readString(log);
    assertThat(output)
        .contains("refresh dispatcher started")
        .contains("admin API tokens: role admin [" + io.refresher.api.TokenIds.of(TOKEN) + "]")
        .doesNotContain(TOKEN);
  }

  /**
   * Issue 22, acceptance 5 (logs): with the documented JSON layouts (the log's {@code json}, the
   * request log's {@code access-json} with the response's {@code X-Request-Id}), every line the
   * process writes is a JSON object, its first lines included, and an admin request's lines carry
   * its request id.
   */
  @Test
  void server_withJsonLogging_everyLineIsJson_adminRequestsCarryTheirRequestId() throws Exception {
    TestDatabase database = RealServers.newDatabase("service_jar_json_logs");
    int port = FreePorts.next();
    Path log = Files.createTempFile("service-jar-json", ".log");
    Map<String, String> env = env(database, port);
    Process service = start(log, env, "server", jsonLoggingConfig().toString());
    HttpClient http = HttpClient.newHttpClient();
    awaitReady(http, port);

    HttpResponse<String> registered =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/keys/time:json"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .header("X-Request-Id", "json-logs-1")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"source\":\"server-time\",\"params\":{},\"ttl\":\"PT10S\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
    await("the request log's line is written")
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.readString(log).contains("json-logs-1\"") && Files.readString(log).contains("/v1/keys/time:json"));
    service.destroy();
    assertThat(service.waitFor(60, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();

    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    List<String> notJson = new ArrayList<>();
    List<com.fasterxml.jackson.databind.JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      if (line.isBlank()) {
        continue;
      }
      try {
        com.fasterxml.jackson.databind.JsonNode parsed = json.readTree(line);
        if (parsed == null || !parsed.isObject()) {
          notJson.add(line);
        } else {
          lines.add(parsed);
        }
      } catch (java.io.IOException e) {
        notJson.add(line);
      }
    }
    assertThat(notJson).as("lines that are not a JSON object").isEmpty();
    assertThat(lines).hasSizeGreaterThan(20);
    assertThat(lines)
        .as("the registration's line, with the request id in its logging context")
        .anySatisfy(line -> {
          assertThat(line.path("message").asText()).startsWith("registered key 'time:json'");
          assertThat(line.at("/mdc/requestId").asText()).isEqualTo("json-logs-1");
        });
    assertThat(lines)
        .as("the request log's line of the PUT, with the response's X-Request-Id")
        .anySatisfy(line -> assertThat(line.toString()).contains("/v1/keys/time:json").contains("json-logs-1"));
    assertThat(Files.readString(log)).doesNotContain(TOKEN);
  }

  /** The shipped config.yml, with the JSON layouts docs/operations.md ("Logs") documents. */
  private static Path jsonLoggingConfig() throws IOException {
    com.fasterxml.jackson.databind.ObjectMapper yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    com.fasterxml.jackson.databind.node.ObjectNode config = (com.fasterxml.jackson.databind.node.ObjectNode) yaml.readTree(CONFIG.toFile());
    com.fasterxml.jackson.databind.node.ObjectNode logging = config.with("logging");
    logging.putArray("appenders").addObject().put("type", "console").putObject("layout").put("type", "json");
    com.fasterxml.jackson.databind.node.ObjectNode accessLayout =
        config.with("server").with("requestLog").putArray("appenders").addObject().put("type", "console").putObject("layout");
    accessLayout.put("type", "access-json");
    accessLayout.putArray("responseHeaders").add("X-Request-Id");
    Path file = Files.createTempFile("config-json-logs", ".yml");
    yaml.writeValue(file.toFile(), config);
    return file;
  }

  @Test
  void server_withoutDatabaseUrl_refusesToStartNamingTheVariable() throws Exception {
    TestDatabase database = RealServers.newDatabase("service_jar_env");
    Map<String, String> env = env(database, FreePorts.next());
    env.remove("REFRESHER_DB_URL");
    Path log = Files.createTempFile("service-jar-env", ".log");
    Process service = start(log, env, "server", CONFIG.toString());

    assertThat(service.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(service.exitValue()).isNotZero();
    assertThat(Files.readString(log)).contains("REFRESHER_DB_URL");
  }

  @Test
  void dbMigrate_freshDatabase_appliesTheMigrationsAndExits() throws Exception {
    TestDatabase database = RealServers.newDatabase("service_jar_migrate");
    Path log = Files.createTempFile("service-jar-migrate", ".log");
    Process migrate = start(log, env(database, FreePorts.next()), "db", "migrate", CONFIG.toString());

    assertThat(migrate.waitFor(90, TimeUnit.SECONDS)).isTrue();
    String output = Files.readString(log);
    assertThat(migrate.exitValue()).as(output).isZero();
    assertThat(output).contains("Applied 6 migrations.");
    assertThat(database.queryLong("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'refresher'"))
        .as("registry, epoch, audit, history and the Quartz tables")
        .isGreaterThan(10);
  }

  @Test
  void server_migrateAtStartFalseOnFreshDatabase_exitsNamingDbMigrate() throws Exception {
    // REFRESHER_DB_MIGRATE_AT_START=false, as the Kubernetes prod overlay sets it: the pods never
    // migrate, and refuse to start until `db migrate` (the migration Job) has run.
    TestDatabase database = RealServers.newDatabase("service_jar_no_migrate");
    Map<String, String> env = env(database, FreePorts.next());
    env.put("REFRESHER_DB_MIGRATE_AT_START", "false");
    Path log = Files.createTempFile("service-jar-no-migrate", ".log");
    Process service = start(log, env, "server", CONFIG.toString());

    assertThat(service.waitFor(90, TimeUnit.SECONDS)).isTrue();
    String output = Files.readString(log);
    assertThat(service.exitValue()).as(output).isNotZero();
    assertThat(output).contains("6 migration(s) pending").contains("db migrate");
    assertThat(database.queryLong("SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'refresher'"))
        .isZero();
  }

  private static Map<String, String> env(TestDatabase database, int port) throws IOException {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("REFRESHER_REDIS_URL", redis.url());
    env.put("REFRESHER_DB_URL", database.url());
    env.put("REFRESHER_DB_USER", database.user());
    env.put("REFRESHER_DB_PASSWORD", database.password());
    env.put("REFRESHER_ADMIN_TOKEN", TOKEN);
    env.put("REFRESHER_HTTP_PORT", Integer.toString(port));
    env.put("REFRESHER_ADMIN_PORT", Integer.toString(FreePorts.next()));
    return env;
  }

  private static Process start(Path log, Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx384m");
    command.add("-jar");
    command.add(JAR.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("REFRESHER_"));
    builder.environment().putAll(env);
    Process process = builder.start();
    started.add(process);
    return process;
  }

  private static void awaitReady(HttpClient http, int port) {
    await("the service becomes ready")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(() -> http.send(get(port, "/health-check?type=ready"), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
  }

  private static HttpRequest get(int port, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build();
  }

  private static String readRedis(String key) {
    RedissonClient client = redis.connect();
    try {
      return client.<String>getBucket(key, StringCodec.INSTANCE).get();
    } finally {
      client.shutdown();
    }
  }

}

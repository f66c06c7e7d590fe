package io.refresher.it.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.refresher.embedded.EmbeddedPostgreSql;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A PostgreSQL server that writes a logical log, its database with a {@code product} table whose
 * rows are behind kept keys ({@code product:<id>}, policy {@code always}, one-hour TTL: no
 * scheduled refresh during a test), a publication of the table, Redis, and service processes that
 * capture the table's changes.
 *
 * <p>The source's value is {@code <computed at ms> <session> <row version>} (what {@link
 * io.refresher.testing.ValueWatch} reads), and every run of it for key {@code i} runs {@code SELECT
 * count(*) FROM capture_marker_<i>}, so that {@link #runsByKey} reads from pg_stat_statements how
 * many times the source ran for each key: counted in the database.
 */
final class CaptureFixture implements AutoCloseable {

  static final String TOKEN = "capture-test-token-7a91";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Pattern MARKER = Pattern.compile("capture_marker_(\\d+)");

  final int keys;
  final EmbeddedPostgreSql postgres;
  final TestDatabase database;
  final TestRedis redis;
  private final RedissonClient reader;
  private final List<ServiceProcess> processes = new ArrayList<>();

  CaptureFixture(String name, int keys) {
    this.keys = keys;
    postgres = EmbeddedPostgreSql.startWithLogicalDecoding();
    database = new TestDatabase(postgres.createDatabase(name), EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
    redis = RealServers.newRedis();
    reader = redis.connect();
    database.execute(
        "CREATE TABLE product (id bigint PRIMARY KEY, name text NOT NULL, version int NOT NULL DEFAULT 0)",
        "INSERT INTO product (id, name) SELECT g, 'p' || g FROM generate_series(0, " + (keys - 1) + ") g",
        "DO $$ BEGIN FOR i IN 0.." + (keys - 1) + " LOOP EXECUTE format('CREATE TABLE capture_marker_%s ()', i); END LOOP; END $$",
        """
        CREATE FUNCTION capture_value(key_id bigint) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
        DECLARE
          ignored bigint;
          row_version int;
        BEGIN
          EXECUTE format('SELECT count(*) FROM capture_marker_%s', key_id) INTO ignored;
          SELECT version INTO row_version FROM product WHERE id = key_id;
          RETURN floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text
            || ' ' || replace(current_setting('application_name'), ' ', '_') || ' ' || row_version;
        END
        $fn$
        """,
        "CREATE PUBLICATION refresher_capture FOR TABLE product");
  }

  /** A service process reading the table's log, named {@code name} (its PostgreSQL session's too). */
  ServiceProcess replica(String name) throws IOException {
    return replica(name, ServiceProcess.TEST_JVM_FLAGS);
  }

  ServiceProcess replica(String name, List<String> jvmFlags) throws IOException {
    ServiceProcess process = new ServiceProcess(name, config(name), environment(), jvmFlags);
    processes.add(process);
    return process;
  }

  private Path config(String name) throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    ObjectNode config = (ObjectNode) yaml.readTree(Path.of("..", "config.yml").toFile());
    ObjectNode source = config.withObjectProperty("sources").putObject("product");
    // no row for an id the table does not have: the not-found marker, for 20 s
    source.put("sql", "SELECT capture_value(id) AS product_value FROM product WHERE id = :id");
    source.putObject("notFound").put("ttl", "20s");
    source.putObject("params").put("id", "long");
    source.put("result", "scalar");
    // a killed replica's key locks end with their lease: short, so that a restarted one is not held
    // up by them (the source's timeout stays below it: SourceLeaseCheck)
    source.put("timeout", "1s");
    ObjectNode db = config.withObjectProperty("database");
    db.putObject("properties").put("ApplicationName", name);
    ObjectNode capture = db.putObject("capture");
    capture.put("publication", "refresher_capture");
    capture.put("heartbeatInterval", "2s");
    capture.put("lagInterval", "1s");
    capture.putObject("tables").putObject("public.product").putArray("keys").add("product:{id}");
    config.withObjectProperty("refresh").put("lockLease", "2s");
    config.withObjectProperty("changes").put("reconnectDelay", "500ms").put("coalesceWindow", "50ms");
    config.withObjectProperty("health").put("shutdownWaitPeriod", "1s");
    config.withObjectProperty("server").put("shutdownGracePeriod", "2s");
    Path file = Files.createTempFile("capture-config-" + name + "-", ".yml");
    yaml.writeValue(file.toFile(), config);
    return file;
  }

  private Map<String, String> environment() {
    return ServiceProcess.environment(redis, database, TOKEN);
  }

  List<String> keyNames() {
    return IntStream.range(0, keys).mapToObj(i -> "product:" + i).toList();
  }

  /** Registers every key through {@code via}: kept ({@code always}), one-hour TTL. */
  void register(ServiceProcess via) throws Exception {
    Semaphore concurrent = new Semaphore(16);
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      concurrent.acquire();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + "/v1/keys/product:" + i))
              .header("Authorization", "Bearer " + TOKEN)
              .header("Content-Type", "application/json")
              .PUT(HttpRequest.BodyPublishers.ofString("{\"source\":\"product\",\"params\":{\"id\":" + i + "},\"ttl\":\"PT1H\",\"policy\":\"always\"}"))
              .build();
      responses.add(HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> concurrent.release()));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).as(response.get().body()).isEqualTo(201);
    }
  }

  /** Registers one key of the product with {@code id} (kept, one-hour TTL); returns the response's status. */
  int registerKey(ServiceProcess via, long id) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + "/v1/keys/product:" + id))
            .header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString("{\"source\":\"product\",\"params\":{\"id\":" + id + "},\"ttl\":\"PT1H\",\"policy\":\"always\"}"))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  /** The raw value of {@code key} in Redis; null when absent. */
  String rawValue(String key) {
    return reader.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  /** The metadata hash of {@code key}. */
  Map<String, String> meta(String key) {
    return reader.<String, String>getMap(io.refresher.client.protocol.CacheKeys.metaKey(key), StringCodec.INSTANCE).readAllMap();
  }

  /** A Redisson client of the test's Redis (the caller shuts it down). */
  RedissonClient connect() {
    return redis.connect();
  }

  /** Bumps every row's version, one committed transaction per row, in order; returns the new versions. */
  Map<String, Integer> updateAll() throws SQLException {
    Map<String, Integer> versions = new HashMap<>();
    try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
      for (int i = 0; i < keys; i++) {
        try (ResultSet row = statement.executeQuery("UPDATE product SET version = version + 1 WHERE id = " + i + " RETURNING version")) {
          row.next();
          versions.put("product:" + i, row.getInt(1));
        }
      }
    }
    return versions;
  }

  /** The row version each key's value in Redis was computed from; -1 for an absent key. */
  Map<String, Integer> servedVersions() {
    Map<String, String> values = reader.getBuckets(StringCodec.INSTANCE).get(keyNames().toArray(String[]::new));
    Map<String, Integer> versions = new HashMap<>();
    for (String key : keyNames()) {
      String value = values.get(key);
      versions.put(key, value == null ? -1 : Integer.parseInt(value.split(" ")[2]));
    }
    return versions;
  }

  /** How many keys are served at exactly these versions. */
  long servedAt(Map<String, Integer> expected) {
    Map<String, Integer> served = servedVersions();
    return expected.entrySet().stream().filter(e -> e.getValue().equals(served.get(e.getKey()))).count();
  }

  /** How many times the source ran for each key so far, from pg_stat_statements. */
  Map<String, Long> runsByKey() {
    Map<String, Long> runs = new HashMap<>();
    keyNames().forEach(key -> runs.put(key, 0L));
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT query, calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                    + " AND query LIKE 'SELECT count(*) FROM capture_marker_%'")) {
      while (rows.next()) {
        Matcher matcher = MARKER.matcher(rows.getString(1));
        if (matcher.find()) {
          runs.merge("product:" + matcher.group(1), rows.getLong(2), Long::sum);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return runs;
  }

  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> delta = new HashMap<>();
    after.forEach((key, value) -> delta.put(key, value - before.getOrDefault(key, 0L)));
    return delta;
  }

  /**
   * How far this database's slot is behind the log. Only this database's: slots are the server's,
   * and another test's slot on the same server (a reader confirming as it goes) once stood in for
   * this one in the maximum (i31: 376 bytes before and after the 100 updates nobody read).
   */
  long slotLagBytes() {
    return database.queryLong(
        "SELECT coalesce(max(pg_current_wal_lsn() - confirmed_flush_lsn), -1)::bigint FROM pg_replication_slots"
            + " WHERE database = current_database()");
  }

  @Override
  public void close() {
    for (ServiceProcess process : processes) {
      try {
        process.close();
      } catch (RuntimeException e) {
        // the others still close
      }
    }
    reader.shutdown();
    try {
      redis.close();
    } catch (Exception e) {
      // thrown away
    }
    postgres.close();
  }
}

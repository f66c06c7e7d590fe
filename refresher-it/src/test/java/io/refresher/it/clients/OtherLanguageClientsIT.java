package io.refresher.it.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.client.RefresherClient;
import io.refresher.client.redisson.RedissonDriver;
import io.refresher.testing.ClientRuntimes;
import io.refresher.testing.ServiceJarForClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.slf4j.LoggerFactory;

/**
 * The Python and Node clients, each in a process of its own (their acceptance drivers), against
 * the service's jar on real Redis and PostgreSQL: reads through {@code get} make a template key
 * hot, after which no read of at least 2,000 misses over three TTL cycles; eight concurrent
 * callers of a cold key run the loader once; a value one language's loader wrote is read as is by
 * the Java client, and the reverse.
 */
class OtherLanguageClientsIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TTL = Duration.ofSeconds(3);

  enum Language {
    PYTHON(11) {
      @Override
      List<String> driver() {
        return List.of(ClientRuntimes.python(), "tests/acceptance_driver.py");
      }

      @Override
      Path directory() {
        return ClientRuntimes.PYTHON_CLIENT;
      }

      @Override
      Map<String, String> environment() {
        return Map.of("PYTHONPATH", ClientRuntimes.PYTHON_CLIENT.resolve("src").toString(), "PYTHONDONTWRITEBYTECODE", "1");
      }
    },
    NODE(12) {
      @Override
      List<String> driver() {
        return List.of(ClientRuntimes.node(), "test/acceptance-driver.mjs");
      }

      @Override
      Path directory() {
        return ClientRuntimes.NODE_CLIENT;
      }

      @Override
      Map<String, String> environment() {
        return Map.of();
      }
    };

    final long productId;

    Language(long productId) {
      this.productId = productId;
    }

    abstract List<String> driver();

    abstract Path directory();

    abstract Map<String, String> environment();

    String name(String what) {
      return what + ":" + name().toLowerCase();
    }
  }

  private static ServiceJarForClients service;
  private static RedissonClient redisson;
  private static RefresherClient javaClient;

  @BeforeAll
  static void start() throws Exception {
    // Installed first (apt-get, npm ci: tens of seconds on a fresh machine), not inside a test's
    // timed part.
    ClientRuntimes.python();
    ClientRuntimes.node();
    service = ServiceJarForClients.start("other_clients", TTL);
    redisson = service.redis().connect();
    javaClient = RefresherClient.builder(RedissonDriver.of(redisson)).build();
  }

  @AfterAll
  static void stop() {
    try {
      if (javaClient != null) {
        javaClient.close();
        redisson.shutdown();
      }
    } finally {
      if (service != null) {
        service.close();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void readsMakeATemplateKeyHot_thenNoneOf2000ReadsMissOverThreeTtlCycles(Language language) throws Exception {
    String key = "product:" + language.productId;
    CompletableFuture<JsonNode> warmUp =
        CompletableFuture.supplyAsync(() -> drive(language, "reads", "--key", key, "--rate", "50", "--seconds", "8"));
    long start = System.nanoTime();
    await(key + " in GET /v1/hot")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> {
          if (warmUp.isCompletedExceptionally()) {
            warmUp.join(); // the driver's own failure, rather than a key that never became hot
          }
          return service.isHot(key);
        });
    long hotAfterMillis = (System.nanoTime() - start) / 1_000_000;
    warmUp.get();

    long queries = service.productQueries();
    JsonNode kept = drive(language, "reads", "--key", key, "--rate", "250", "--seconds", Long.toString(3 * TTL.toSeconds() + 1));
    long refreshes = service.productQueries() - queries;
    LoggerFactory.getLogger(OtherLanguageClientsIT.class)
        .info("{}: {} hot after {} ms; then {} reads over three TTL cycles, {} misses, {} refreshes",
            language, key, hotAfterMillis, kept.get("reads"), kept.get("misses"), refreshes);
    assertThat(kept.get("reads").asLong()).isGreaterThanOrEqualTo(2_000);
    assertThat(kept.get("misses").asLong()).as("reads that found no value, over three TTL cycles").isZero();
    assertThat(refreshes).as("the service's refreshes of %s", key).isGreaterThanOrEqualTo(3);
    assertThat(javaClient.get(key)).as("the value is the service's row").isEqualTo(
        "{\"id\":" + language.productId + ",\"name\":\"Product " + language.productId + "\",\"price\":"
            + String.format(Locale.ROOT, "%.2f", language.productId / 100.0) + ",\"tags\":[\"sample\"]}");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void eightConcurrentCallersOfAColdKey_runTheLoaderOnce(Language language) {
    JsonNode flight =
        drive(language, "flight", "--key", language.name("cold"), "--callers", "8", "--ttl-ms", "60000",
            "--value", "computed-once", "--loader-ms", "300");
    assertThat(flight.get("loads").asLong()).isEqualTo(1);
    List<String> values = new ArrayList<>();
    flight.get("values").forEach(value -> values.add(value.asText()));
    assertThat(values).hasSize(8).containsOnly("computed-once");
  }

  @ParameterizedTest
  @EnumSource(Language.class)
  void aValueItsLoaderWrote_isReadAsIsByTheJavaClient_andTheReverse(Language language) {
    String theirs = "{\"from\":\"" + language.name().toLowerCase() + "\",\"text\":\"a b\\\\c 'q'\"}";
    drive(language, "flight", "--key", language.name("written-there"), "--callers", "1", "--ttl-ms", "60000",
        "--value", theirs, "--loader-ms", "0");
    assertThat(javaClient.get(language.name("written-there"))).isEqualTo(theirs);

    String ours = "{\"from\":\"java\",\"n\":42}";
    assertThat(javaClient.get(language.name("written-here"), Duration.ofMinutes(1), () -> ours)).isEqualTo(ours);
    assertThat(drive(language, "read", "--key", language.name("written-here")).get("value").asText()).isEqualTo(ours);
  }

  private static JsonNode drive(Language language, String... arguments) {
    List<String> command = new ArrayList<>(language.driver());
    command.add(arguments[0]);
    command.add("--redis");
    command.add(service.redisUrl());
    command.addAll(List.of(arguments).subList(1, arguments.length));
    ClientRuntimes.Run run = ClientRuntimes.run(command, language.directory(), language.environment(), Duration.ofMinutes(2)).requireSuccess();
    try {
      return JSON.readTree(run.lastLine());
    } catch (Exception e) {
      throw new AssertionError("the driver's last line is not JSON:\n" + run.output(), e);
    }
  }
}

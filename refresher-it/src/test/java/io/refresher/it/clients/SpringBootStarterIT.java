package io.refresher.it.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.SpringSampleProcess;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The Spring Boot starter's sample application, a real Spring Boot application in JVMs of its
 * own, on Lettuce and on Jedis, with the service running: {@code @Cacheable} calls at 50/s make a
 * template key hot within 5 s, the service's refreshes then serve it with no miss over three TTL
 * cycles, and 20 concurrent first calls of a cold key in two JVMs run the loader once.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SpringBootStarterIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final TestApp APP =
      TestApp.create(
          "spring_starter",
          List.of(
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
              "INSERT INTO test_product VALUES (42, 'Product 42', 0.42, 'sample', ARRAY['sample']),"
                  + " (43, 'Product 43', 0.43, 'sample', ARRAY['sample'])"),
          "refresh.staleGrace", "0s",
          "refresh.jitter", "0",
          "access.halfLife", "1s",
          "access.hotThreshold", "5",
          "access.coldAfter", "2s",
          "access.sampleInterval", "250ms",
          "access.settle", "300ms",
          "access.snapshotInterval", "1s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @BeforeAll
  static void registerTheTemplate() {
    try (Response response =
        APP.putTemplate("products", "{\"pattern\":\"product:{id}\",\"source\":\"product-by-id\",\"ttl\":\"" + TTL + "\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
  }

  @Test
  void onLettuce() throws Exception {
    keptHotAndLoadedOnce("lettuce", 42, 900);
  }

  @Test
  void onJedis() throws Exception {
    keptHotAndLoadedOnce("jedis", 43, 901);
  }

  private void keptHotAndLoadedOnce(String clientType, long hotId, long coldId) throws Exception {
    String redis = APP.redis().url();
    try (SpringSampleProcess first = SpringSampleProcess.start(clientType + "-1", redis, clientType, "--sample.load-time=500ms");
        SpringSampleProcess second = SpringSampleProcess.start(clientType + "-2", redis, clientType, "--sample.load-time=500ms")) {
      String key = "product:" + hotId;

      // 50 calls a second on one key: hot, by the service's own account, within 5 s.
      CompletableFuture<String> warmUp =
          CompletableFuture.supplyAsync(() -> first.post("/drive?id=" + hotId + "&perSecond=50&seconds=6"));
      long start = System.nanoTime();
      await(key + " in GET /v1/hot").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).until(() -> isHot(key));
      Duration becameHot = Duration.ofNanos(System.nanoTime() - start);
      warmUp.get();

      // Three TTL cycles more of calls: every one served from Redis, the values the service's.
      long executions = APP.database().executionsOf("FROM test_product WHERE id");
      JsonNode kept = JSON.readTree(first.post("/drive?id=" + hotId + "&perSecond=50&seconds=" + (3 * TTL.toSeconds() + 1)));
      long refreshes = APP.database().executionsOf("FROM test_product WHERE id") - executions;
      assertThat(kept.get("calls").asLong()).isEqualTo(50 * (3 * TTL.toSeconds() + 1));
      assertThat(kept.get("misses").asLong()).as("calls that found no value in Redis over three TTL cycles").isZero();
      assertThat(kept.get("queries").asLong()).as("loader runs while the service keeps the key").isZero();
      assertThat(refreshes).as("the service's refreshes of %s over three TTL cycles", key).isGreaterThanOrEqualTo(3);
      assertThat(Long.parseLong(APP.meta(key).get("epoch"))).as("the value is the service's").isPositive();

      // 20 concurrent first calls of a cold key, 10 in each JVM: one loader run in all.
      ExecutorService callers = Executors.newFixedThreadPool(20);
      try {
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          SpringSampleProcess sample = i % 2 == 0 ? first : second;
          calls.add(CompletableFuture.supplyAsync(() -> sample.get("/products/" + coldId), callers));
        }
        for (CompletableFuture<String> call : calls) {
          assertThat(JSON.readTree(call.get()).get("id").asLong()).isEqualTo(coldId);
        }
      } finally {
        callers.shutdownNow();
      }
      long loads = queries(first, coldId) + queries(second, coldId);
      LoggerFactory.getLogger(SpringBootStarterIT.class)
          .info(
              "{}: {} hot after {} ms; {} calls over three TTL cycles, {} misses, {} refreshes by the service; cold key loaded {} times for 20 calls in two JVMs",
              clientType, key, becameHot.toMillis(), kept.get("calls"), kept.get("misses"), refreshes, loads);
      assertThat(loads).as("loader runs for 20 concurrent first calls in two JVMs").isEqualTo(1);
    }
  }

  private static long queries(SpringSampleProcess sample, long id) throws Exception {
    return JSON.readTree(sample.get("/products/" + id + "/queries")).get("queries").asLong();
  }

  private static boolean isHot(String key) throws Exception {
    try (Response response = APP.hot(1000)) {
      for (JsonNode item : JSON.readTree(response.readEntity(String.class)).get("items")) {
        if (item.get("key").asText().equals(key)) {
          return true;
        }
      }
      return false;
    }
  }
}

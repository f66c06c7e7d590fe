package io.refresher.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.refresher.client.RefresherClient;
import io.refresher.client.protocol.AccessProtocol;
import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.NotFoundMarker;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.RespConnection;
import io.refresher.spring.cache.RefresherCache;
import io.refresher.spring.sample.Product;
import io.refresher.spring.sample.ProductCatalog;
import io.refresher.spring.sample.ProductDatabase;
import io.refresher.spring.sample.SampleApplication;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The starter in a real Spring Boot application (the sample) on a real Redis, for one connection
 * factory: {@code @Cacheable} reads are counted under the template's key, values are JSON the
 * service's sources also write, a miss is loaded once across threads, a value the service keeps is
 * served and never overwritten, and the client's meters and health are there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StarterContract {

  private EmbeddedRedis redis;
  private ConfigurableApplicationContext context;

  /** {@code lettuce} or {@code jedis}. */
  protected abstract String clientType();

  protected abstract Class<? extends RedisConnectionFactory> factoryType();

  @BeforeAll
  void start() {
    redis = EmbeddedRedis.start();
    context =
        new SpringApplication(SampleApplication.class)
            .run(
                "--spring.data.redis.port=" + redis.port(),
                "--spring.data.redis.client-type=" + clientType(),
                "--server.port=0",
                "--sample.load-time=300ms",
                "--refresher.client.flush-interval=100ms");
  }

  @BeforeEach
  void emptyRedis() throws IOException {
    call("FLUSHALL");
  }

  @AfterAll
  void stop() {
    try {
      if (context != null) {
        context.close();
      }
    } finally {
      redis.stop();
    }
  }

  @Test
  void theApplicationsOwnConnectionFactory_isTheOneUnderTheClient() {
    assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(factoryType());
    assertThat(context.getBean(CacheManager.class).getCache("product")).isInstanceOf(RefresherCache.class);
  }

  @Test
  void cacheable_storesJsonUnderTheTemplatesKey_andCountsEveryRead() throws Exception {
    ProductCatalog catalog = context.getBean(ProductCatalog.class);

    Product first = catalog.findProduct(42);
    Product again = catalog.findProduct(42);
    catalog.findProduct(42);

    assertThat(again).isEqualTo(first).isEqualTo(new Product(42, "Product 42", new BigDecimal("0.42"), List.of("sample")));
    assertThat(context.getBean(ProductDatabase.class).queriesOf(42)).isEqualTo(1);
    assertThat(call("GET", "product:42")).isEqualTo("{\"id\":42,\"name\":\"Product 42\",\"price\":0.42,\"tags\":[\"sample\"]}");
    assertThat((Long) call("PTTL", "product:42")).as("the product cache's TTL, 10m").isBetween(590_000L, 600_000L);
    await("three reads of product:42 counted in Redis").atMost(Duration.ofSeconds(5)).until(() -> countedReads("product:42") == 3);
  }

  @Test
  void aValueTheServiceKeeps_isServedAsIs_andNotOverwritten() throws Exception {
    String json = "{\"id\":7,\"name\":\"Phone Pro\",\"price\":1099.00,\"tags\":[\"5g\"]}";
    call("SET", "product:7", json, "PX", "60000");
    long now = Long.parseLong(((List<?>) call("TIME")).get(0).toString()) * 1000;
    call("HSET", CacheKeys.metaKey("product:7"), "epoch", "3", "token", "9", "expiresAt", Long.toString(now + 60_000), "delta", "20");

    Product served = context.getBean(ProductCatalog.class).findProduct(7);
    context.getBean(CacheManager.class).getCache("product").put(7L, new Product(7, "stale", BigDecimal.ONE, List.of()));

    assertThat(served).isEqualTo(new Product(7, "Phone Pro", new BigDecimal("1099.00"), List.of("5g")));
    assertThat(context.getBean(ProductDatabase.class).queriesOf(7)).isZero();
    assertThat(call("GET", "product:7")).as("an application's put does not overwrite the service's fresh value").isEqualTo(json);
  }

  @Test
  void aKeyTheServiceKnowsAbsent_answersNull_withoutTheDatabase() throws Exception {
    // the service's not-found marker (docs/protocol.md, "Known absent"), before its expiry
    call("SET", "product:404", NotFoundMarker.VALUE, "PX", "60000");
    long now = Long.parseLong(((List<?>) call("TIME")).get(0).toString()) * 1000;
    call("HSET", CacheKeys.metaKey("product:404"), "epoch", "3", "token", "9", "expiresAt", Long.toString(now + 30_000), "delta", "5");

    Product served = context.getBean(ProductCatalog.class).findProduct(404);
    Cache.ValueWrapper wrapper = context.getBean(CacheManager.class).getCache("product").get(404L);

    assertThat(served).as("@Cacheable(sync = true): none, from the cache").isNull();
    assertThat(wrapper).as("Cache.get(key): a cached null, not a miss").isNotNull();
    assertThat(wrapper.get()).isNull();
    assertThat(context.getBean(ProductDatabase.class).queriesOf(404)).as("queries for a key known absent").isZero();
  }

  @Test
  void concurrentMisses_runTheLoaderOnce() throws Exception {
    ProductCatalog catalog = context.getBean(ProductCatalog.class);
    ExecutorService callers = Executors.newFixedThreadPool(20);
    try {
      List<Future<Product>> results = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        results.add(callers.submit(() -> catalog.findProduct(501)));
      }
      for (Future<Product> result : results) {
        assertThat(result.get().id()).isEqualTo(501);
      }
    } finally {
      callers.shutdownNow();
    }
    assertThat(context.getBean(ProductDatabase.class).queriesOf(501)).isEqualTo(1);
  }

  @Test
  void evict_deletesTheValue_andClearIsRefusedWithAReason() throws Exception {
    RefresherCache cache = (RefresherCache) context.getBean(CacheManager.class).getCache("product");
    context.getBean(ProductCatalog.class).findProduct(43);
    assertThat(call("EXISTS", "product:43")).isEqualTo(1L);

    cache.evict(43L);

    assertThat(call("EXISTS", "product:43")).isEqualTo(0L);
    assertThatThrownBy(cache::clear).isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("evict keys one by one");
  }

  @Test
  void aKeyOfSeveralParameters_isRefused_ratherThanCachedUnderAKeyNobodyCanRegister() {
    RefresherCache cache = (RefresherCache) context.getBean(CacheManager.class).getCache("product");
    Callable<String> loader = () -> "x";
    assertThatThrownBy(() -> cache.get(new org.springframework.cache.interceptor.SimpleKey("a", 1), loader))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name the key in the annotation");
  }

  @Test
  void theClientsMeters_andItsHealth_areRegistered() throws Exception {
    context.getBean(ProductCatalog.class).findProduct(44);
    io.micrometer.core.instrument.MeterRegistry meters = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
    await().atMost(Duration.ofSeconds(5)).until(() -> meters.find("refresher.client.reads.flushed").functionCounter().count() >= 1);
    assertThat(meters.find("refresher.client.reads").functionCounter().count()).isGreaterThanOrEqualTo(1);
    assertThat(meters.find("refresher.client.misses").functionCounter().count()).isGreaterThanOrEqualTo(1);
    assertThat(meters.find("refresher.client.loads").functionCounter().count()).isGreaterThanOrEqualTo(1);
    assertThat(meters.find("refresher.client.pending.keys").gauge()).isNotNull();

    RefresherHealthIndicator health = context.getBean(RefresherHealthIndicator.class);
    assertThat(health.health(true).getStatus().getCode()).isEqualTo("UP");
    assertThat(context.getBean(RefresherClient.class).stats().access().dropped()).isZero();
  }

  private long countedReads(String key) throws IOException {
    long sum = 0;
    try (RespConnection connection = RespConnection.open(redis.port(), Duration.ofSeconds(5))) {
      for (Object bucket : (List<?>) connection.call("KEYS", AccessProtocol.PREFIX + "*")) {
        Object count = connection.call("HGET", bucket.toString(), key);
        sum += count == null ? 0 : Long.parseLong(count.toString());
      }
    }
    return sum;
  }

  private Object call(String... args) throws IOException {
    try (RespConnection connection = RespConnection.open(redis.port(), Duration.ofSeconds(5))) {
      return connection.call(args);
    }
  }
}

package io.refresher.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.embedded.FreePorts;
import io.refresher.spring.sample.Product;
import io.refresher.spring.sample.ProductCatalog;
import io.refresher.spring.sample.ProductDatabase;
import io.refresher.spring.sample.SampleApplication;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With Redis unreachable, a cached method still answers (the loader runs, the cache being down
 * never fails a call), and the {@code refresher} health says the reads no longer reach Redis.
 */
class RedisDownIT {

  @Test
  void theMethodRuns_andTheHealthSaysReadsAreNotReported() {
    int nothingListens = FreePorts.next();
    try (ConfigurableApplicationContext context =
        new SpringApplication(SampleApplication.class)
            .run(
                "--spring.data.redis.port=" + nothingListens,
                "--spring.data.redis.timeout=500ms",
                "--spring.data.redis.connect-timeout=500ms",
                "--server.port=0",
                "--sample.load-time=0ms",
                "--refresher.client.flush-interval=100ms")) {
      ProductCatalog catalog = context.getBean(ProductCatalog.class);

      Product product = catalog.findProduct(5);

      assertThat(product.id()).isEqualTo(5);
      assertThat(context.getBean(ProductDatabase.class).queriesOf(5)).isEqualTo(1);
      RefresherHealthIndicator health = context.getBean(RefresherHealthIndicator.class);
      await("the failed flush shows in the health")
          .atMost(Duration.ofSeconds(10))
          .until(() -> health.health(true).getStatus().getCode().equals("DOWN"));
      assertThat(health.health(true).getDetails()).containsKeys("pendingKeys", "flushFailures");
    }
  }
}

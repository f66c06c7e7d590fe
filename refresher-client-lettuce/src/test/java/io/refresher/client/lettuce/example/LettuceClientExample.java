package io.refresher.client.lettuce.example;

import io.lettuce.core.RedisClient;
import io.refresher.client.RefresherClient;
import io.refresher.client.lettuce.LettuceDriver;
import java.time.Duration;

public class LettuceClientExample {

  public static String run(RedisClient redis) {
    // The application's Lettuce client (a RedisClusterClient works the same way).
    try (RefresherClient client = RefresherClient.builder(LettuceDriver.of(redis)).build()) {
      // A plain GET, counted so that the Refresher service can tell hot keys from cold ones.
      String banner = client.get("banner:home");

      // Cached for 5 minutes; on a miss, one caller across all processes runs the loader.
      String product = client.get("product:42", Duration.ofMinutes(5), () -> loadProduct(42));

      return "banner: " + banner + ", product: " + product;
    } // close() reports the pending reads and closes the driver's own connection, not redis.
  }

  /** Stands for the application's expensive query. */
  static String loadProduct(int id) {
    return "{\"id\":" + id + ",\"name\":\"Phone Pro\"}";
  }
}

package io.refresher.client.jedis.example;

import io.refresher.client.RefresherClient;
import io.refresher.client.jedis.JedisDriver;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

public class JedisClientExample {

  public static String run(UnifiedJedis redis) {
    // The application's Jedis client: a RedisClient (pooled), a RedisClusterClient, a JedisCluster.
    try (RefresherClient client = RefresherClient.builder(JedisDriver.of(redis)).build()) {
      // A plain GET, counted so that the Refresher service can tell hot keys from cold ones.
      String banner = client.get("banner:home");

      // Cached for 5 minutes; on a miss, one caller across all processes runs the loader.
      String product = client.get("product:42", Duration.ofMinutes(5), () -> loadProduct(42));

      return "banner: " + banner + ", product: " + product;
    } // close() reports the pending reads; redis, the application's, keeps running.
  }

  /** Stands for the application's expensive query. */
  static String loadProduct(int id) {
    return "{\"id\":" + id + ",\"name\":\"Phone Pro\"}";
  }
}

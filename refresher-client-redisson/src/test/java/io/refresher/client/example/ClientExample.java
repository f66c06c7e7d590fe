package io.refresher.client.example;

import io.refresher.client.RefresherClient;
import java.time.Duration;

public class ClientExample {

  public static void main(String[] args) {
    System.out.println(run(args.length > 0 ? args[0] : "redis://127.0.0.1:6379"));
  }

  public static String run(String redisUrl) {
    // Connects by itself; builder(RedissonDriver.of(redisson)) would reuse the application's client.
    try (RefresherClient client = RefresherClient.builder(redisUrl).build()) {
      // A plain GET, counted so that the Refresher service can tell hot keys from cold ones.
      String banner = client.get("banner:home");

      // Cached for 5 minutes. On a miss, one caller across all processes runs the loader and
      // the others get its value; a value near its expiry is recomputed early by one caller.
      String product = client.get("product:42", Duration.ofMinutes(5), () -> loadProduct(42));

      return "banner: " + banner + ", product: " + product;
    } // close() reports the reads still pending and stops the counter's thread.
  }

  /** Stands for the application's expensive query. */
  static String loadProduct(int id) {
    return "{\"id\":" + id + ",\"name\":\"Phone Pro\"}";
  }
}

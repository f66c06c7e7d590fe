package io.refresher.client.jedis.example;

import static org.assertj.core.api.Assertions.assertThat;

import redis.clients.jedis.RedisClient;
import io.refresher.client.ExampleCheck;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.RespConnection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Jedis example of docs/client.md, run against a real Redis. */
class JedisClientExampleIT {

  @Test
  void run_readsCachesAndReportsTheReads() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      try (RespConnection connection = RespConnection.open(redis.port(), Duration.ofSeconds(5))) {
        connection.call("SET", "banner:home", "Spring sale");
      }
      RedisClient jedis = RedisClient.create("127.0.0.1", redis.port());
      try {
        String expected = "banner: Spring sale, product: {\"id\":42,\"name\":\"Phone Pro\"}";
        assertThat(JedisClientExample.run(jedis)).isEqualTo(expected);
        assertThat(JedisClientExample.run(jedis)).as("the application's client still runs").isEqualTo(expected);
      } finally {
        jedis.close();
      }
      assertThat(ExampleCheck.accessCounts(redis.port())).isEqualTo(Map.of("banner:home", 2L, "product:42", 2L));
    }
  }

  @Test
  void docs_showTheExampleWordForWord() throws Exception {
    ExampleCheck.docsShowWordForWord("src/test/java/io/refresher/client/jedis/example/JedisClientExample.java");
  }
}

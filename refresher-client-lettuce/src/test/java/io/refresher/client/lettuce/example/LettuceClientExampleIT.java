package io.refresher.client.lettuce.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.refresher.client.ExampleCheck;
import io.refresher.embedded.EmbeddedRedis;
import io.refresher.embedded.RespConnection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Lettuce example of docs/client.md, run against a real Redis. */
class LettuceClientExampleIT {

  @Test
  void run_readsCachesAndReportsTheReads() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      try (RespConnection connection = RespConnection.open(redis.port(), Duration.ofSeconds(5))) {
        connection.call("SET", "banner:home", "Spring sale");
      }
      RedisClient lettuce = RedisClient.create(redis.url());
      try {
        String expected = "banner: Spring sale, product: {\"id\":42,\"name\":\"Phone Pro\"}";
        assertThat(LettuceClientExample.run(lettuce)).isEqualTo(expected);
        assertThat(LettuceClientExample.run(lettuce)).as("the application's client still runs").isEqualTo(expected);
      } finally {
        lettuce.shutdown();
      }
      assertThat(ExampleCheck.accessCounts(redis.port())).isEqualTo(Map.of("banner:home", 2L, "product:42", 2L));
    }
  }

  @Test
  void docs_showTheExampleWordForWord() throws Exception {
    ExampleCheck.docsShowWordForWord("src/test/java/io/refresher/client/lettuce/example/LettuceClientExample.java");
  }
}

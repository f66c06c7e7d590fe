package io.refresher.client.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.AccessProtocol;
import io.refresher.embedded.EmbeddedRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The example of {@code docs/client.md} and the README runs, and both show it as it is: the example
 * lives in its own package, so it can only use the public API, as an application would.
 */
class ClientExampleIT {

  private static EmbeddedRedis redis;
  private static RedissonClient redisson;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(redis.url());
    redisson = Redisson.create(config);
  }

  @AfterAll
  static void stopRedis() {
    if (redisson != null) {
      redisson.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void run_readsCachesAndReportsTheReads() {
    redisson.getBucket("banner:home").set("Spring sale");

    String first = ClientExample.run(redis.url());
    String second = ClientExample.run(redis.url());

    String expected = "banner: Spring sale, product: {\"id\":42,\"name\":\"Phone Pro\"}";
    assertThat(first).isEqualTo(expected);
    assertThat(second).isEqualTo(expected);
    assertThat(redisson.getBucket("product:42").get()).isEqualTo("{\"id\":42,\"name\":\"Phone Pro\"}");
    assertThat(accessCounts()).isEqualTo(Map.of("banner:home", 2L, "product:42", 2L));
  }

  @Test
  void docs_showTheExampleWordForWord() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/refresher/client/example/ClientExample.java"));
    String example = source.substring(source.indexOf("import "));

    assertThat(Files.readString(Path.of("../docs/client.md"))).contains(example);
    assertThat(Files.readString(Path.of("../README.md"))).contains(example);
  }

  private static Map<String, Long> accessCounts() {
    Map<String, Long> sums = new HashMap<>();
    redisson
        .getKeys()
        .getKeysStream(KeysScanOptions.defaults().pattern(AccessProtocol.PREFIX + "*"))
        .forEach(
            bucket ->
                redisson
                    .<String, String>getMap(bucket, StringCodec.INSTANCE)
                    .readAllMap()
                    .forEach((key, count) -> sums.merge(key, Long.parseLong(count), Long::sum)));
    return sums;
  }
}

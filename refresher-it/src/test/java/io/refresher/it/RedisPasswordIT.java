package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.config.RedisFactory;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;

/**
 * The service's Redis client authenticates with the password of {@code redis.url} exactly as
 * written: a real Redis with {@code requirepass} set to a password holding {@code +} (which a form
 * decoder turned into a space, so authentication failed).
 */
class RedisPasswordIT {

  private static final String PASSWORD = "s3cret+with+plus";

  @Test
  void build_passwordWithPlusInUrl_authenticates() throws Exception {
    try (TestRedis redis = RealServers.newRedis()) {
      RedissonClient setup = redis.connect();
      setup.getRedisNodes(RedisNodes.SINGLE).getInstance().setConfig("requirepass", PASSWORD);
      setup.shutdown();
      RedissonClient client = null;
      try {
        client = factory(redis.url().replace("redis://", "redis://:" + PASSWORD + "@")).build();

        client.getBucket("password-it", StringCodec.INSTANCE).set("ok");

        assertThat(client.<String>getBucket("password-it", StringCodec.INSTANCE).get()).isEqualTo("ok");
        assertThatThrownBy(() -> factory(redis.url().replace("redis://", "redis://:s3cret%20with%20plus@")).build().shutdown())
            .as("the password really is required")
            .isInstanceOf(RuntimeException.class);
      } finally {
        if (client != null) {
          client.getRedisNodes(RedisNodes.SINGLE).getInstance().setConfig("requirepass", "");
          client.shutdown();
        }
      }
    }
  }

  private static RedisFactory factory(String url) {
    RedisFactory factory = new RedisFactory();
    factory.setUrl(url);
    factory.setConnectionPoolSize(2);
    factory.setNettyThreads(2);
    return factory;
  }
}

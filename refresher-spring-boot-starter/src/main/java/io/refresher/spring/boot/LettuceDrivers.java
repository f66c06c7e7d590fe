package io.refresher.spring.boot;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.refresher.client.driver.RedisDriver;
import io.refresher.client.lettuce.LettuceDriver;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The driver on the application's Lettuce client: the connection factory's own {@link
 * RedisClient} or {@link RedisClusterClient} (its resources, options, TLS and credentials), on a
 * connection the driver opens from it.
 */
final class LettuceDrivers {

  private LettuceDrivers() {}

  static boolean handles(Object factory) {
    return factory instanceof LettuceConnectionFactory;
  }

  static RedisDriver of(Object factory) {
    AbstractRedisClient client = ((LettuceConnectionFactory) factory).getRequiredNativeClient();
    if (client instanceof RedisClusterClient cluster) {
      return LettuceDriver.of(cluster);
    }
    if (client instanceof RedisClient single) {
      return LettuceDriver.of(single);
    }
    throw new IllegalStateException("unknown Lettuce client " + client.getClass().getName());
  }
}

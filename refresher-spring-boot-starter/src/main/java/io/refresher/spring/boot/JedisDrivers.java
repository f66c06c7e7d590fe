package io.refresher.spring.boot;

import io.refresher.client.driver.RedisDriver;
import io.refresher.client.jedis.JedisDriver;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The driver on the application's Jedis connections: on a single server, connections lent by the
 * connection factory's pool for each call; on a cluster, the factory's own {@code JedisCluster}.
 */
final class JedisDrivers {

  private JedisDrivers() {}

  static boolean handles(Object factory) {
    return factory instanceof JedisConnectionFactory;
  }

  static RedisDriver of(Object connectionFactory) {
    JedisConnectionFactory factory = (JedisConnectionFactory) connectionFactory;
    if (factory.isRedisClusterAware()) {
      RedisClusterConnection connection = factory.getClusterConnection();
      return JedisDriver.of((UnifiedJedis) connection.getNativeConnection());
    }
    return JedisDriver.lending(() -> lease(factory));
  }

  private static JedisDriver.JedisLease lease(JedisConnectionFactory factory) {
    RedisConnection connection;
    try {
      connection = factory.getConnection();
    } catch (DataAccessException e) {
      // The driver tells Redis's failures by Jedis's exceptions, not Spring's.
      throw new JedisConnectionException("no connection from the JedisConnectionFactory", e);
    }
    Jedis jedis = (Jedis) connection.getNativeConnection();
    return new JedisDriver.JedisLease() {
      @Override
      public Jedis jedis() {
        return jedis;
      }

      @Override
      public void close() {
        connection.close();
      }
    };
  }
}

package io.refresher.testing;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** A Redis server for one test class. */
public interface TestRedis extends AutoCloseable {

  String url();

  /**
   * A new client that reads and writes plain strings, as applications do (never Redisson's
   * default codec). The caller shuts it down.
   */
  default RedissonClient connect() {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(url()).setConnectionPoolSize(16).setConnectionMinimumIdleSize(2);
    return Redisson.create(config);
  }

  /** Redis loses all its data (an embedded server really restarts, empty, on the same port). */
  void loseData();

  @Override
  void close();
}

package io.refresher.client.jedis;

import io.refresher.client.DriverContract;
import io.refresher.client.driver.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/** The driver contract on Jedis, a single server, on the application's classic JedisPool. */
class JedisPoolDriverIT extends DriverContract {

  private final List<JedisPool> pools = new ArrayList<>();

  @Override
  protected RedisDriver connect(int port) {
    JedisPool pool = new JedisPool(new JedisPoolConfig(), "127.0.0.1", port, (int) TIMEOUT.toMillis());
    pools.add(pool);
    return JedisDriver.of(pool);
  }

  @Override
  protected void disconnectAll() {
    pools.forEach(JedisPool::close);
    pools.clear();
  }
}

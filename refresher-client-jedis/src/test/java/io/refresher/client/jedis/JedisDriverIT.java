package io.refresher.client.jedis;

import io.refresher.client.DriverContract;
import io.refresher.client.driver.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/** The driver contract on Jedis, a single server, on the application's pooled RedisClient. */
class JedisDriverIT extends DriverContract {

  private final List<RedisClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(int port) {
    RedisClient client =
        RedisClient.builder()
            .hostAndPort("127.0.0.1", port)
            .clientConfig(
                DefaultJedisClientConfig.builder()
                    .socketTimeoutMillis((int) TIMEOUT.toMillis())
                    .connectionTimeoutMillis((int) TIMEOUT.toMillis())
                    .build())
            .build();
    clients.add(client);
    return JedisDriver.of(client);
  }

  @Override
  protected void disconnectAll() {
    clients.forEach(RedisClient::close);
    clients.clear();
  }
}

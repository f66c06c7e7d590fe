package io.refresher.client.redisson;

import io.refresher.client.DriverContract;
import io.refresher.client.driver.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The driver contract on Redisson, a single server, on the application's RedissonClient. */
class RedissonDriverIT extends DriverContract {

  private final List<RedissonClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(int port) {
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress("redis://127.0.0.1:" + port)
        .setTimeout((int) TIMEOUT.toMillis())
        .setConnectTimeout((int) TIMEOUT.toMillis())
        .setRetryAttempts(0);
    RedissonClient client = Redisson.create(config);
    clients.add(client);
    return RedissonDriver.of(client);
  }

  @Override
  protected void disconnectAll() {
    clients.forEach(RedissonClient::shutdown);
    clients.clear();
  }
}

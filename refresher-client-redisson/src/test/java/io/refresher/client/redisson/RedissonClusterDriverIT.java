package io.refresher.client.redisson;

import io.refresher.client.ClusterDriverContract;
import io.refresher.client.driver.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The cluster contract on Redisson's cluster servers. */
class RedissonClusterDriverIT extends ClusterDriverContract {

  private final List<RedissonClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(List<Integer> seedPorts) {
    Config config = new Config();
    seedPorts.forEach(port -> config.useClusterServers().addNodeAddress("redis://127.0.0.1:" + port));
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

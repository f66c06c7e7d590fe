package io.refresher.client.lettuce;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.refresher.client.ClusterDriverContract;
import io.refresher.client.driver.RedisDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The cluster contract on Lettuce's RedisClusterClient. */
class LettuceClusterDriverIT extends ClusterDriverContract {

  private final List<RedisClusterClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(List<Integer> seedPorts) {
    List<RedisURI> seeds = seedPorts.stream().map(port -> RedisURI.create("127.0.0.1", port)).toList();
    RedisClusterClient client = RedisClusterClient.create(seeds);
    clients.add(client);
    return LettuceDriver.of(client);
  }

  @Override
  protected void disconnectAll() {
    clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    clients.clear();
  }
}

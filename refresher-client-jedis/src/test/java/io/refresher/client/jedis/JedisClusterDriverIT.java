package io.refresher.client.jedis;

import io.refresher.client.ClusterDriverContract;
import io.refresher.client.driver.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/** The cluster contract on Jedis's RedisClusterClient. */
class JedisClusterDriverIT extends ClusterDriverContract {

  private final List<RedisClusterClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(List<Integer> seedPorts) {
    RedisClusterClient client =
        RedisClusterClient.builder()
            .nodes(seedPorts.stream().map(port -> new HostAndPort("127.0.0.1", port)).collect(Collectors.toSet()))
            .build();
    clients.add(client);
    return JedisDriver.of(client);
  }

  @Override
  protected void disconnectAll() {
    clients.forEach(RedisClusterClient::close);
    clients.clear();
  }
}

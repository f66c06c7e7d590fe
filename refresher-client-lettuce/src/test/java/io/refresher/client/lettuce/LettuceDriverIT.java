package io.refresher.client.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.refresher.client.DriverContract;
import io.refresher.client.driver.RedisDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The driver contract on Lettuce, a single server, through a connection opened from a RedisClient. */
class LettuceDriverIT extends DriverContract {

  private final List<RedisClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(int port) {
    RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT).build());
    clients.add(client);
    return LettuceDriver.of(client);
  }

  @Override
  protected void disconnectAll() {
    clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    clients.clear();
  }
}

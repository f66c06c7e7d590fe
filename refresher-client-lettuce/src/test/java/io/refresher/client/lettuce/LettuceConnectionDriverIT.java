package io.refresher.client.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.refresher.client.DriverContract;
import io.refresher.client.driver.RedisDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The driver contract on Lettuce on the application's own connection ({@code
 * LettuceDriver.of(StatefulRedisConnection)}), which the driver shares and leaves open.
 */
class LettuceConnectionDriverIT extends DriverContract {

  private final List<RedisClient> clients = new ArrayList<>();

  @Override
  protected RedisDriver connect(int port) {
    RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT).build());
    clients.add(client);
    StatefulRedisConnection<String, String> applications = client.connect();
    return LettuceDriver.of(applications);
  }

  @Override
  protected void disconnectAll() {
    // Shutting the client down closes the application's connections too.
    clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    clients.clear();
  }
}

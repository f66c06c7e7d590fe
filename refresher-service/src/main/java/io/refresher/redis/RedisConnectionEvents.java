package io.refresher.redis;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.redisson.connection.ConnectionListener;

/**
 * Redisson's connection events, relayed to the parts that care: a (re)connection to a Redis
 * node makes the epoch guard look at its markers at once, so that a Redis that came back empty is
 * noticed as soon as it accepts connections, not at the next periodic check. Handlers run on
 * Redisson's I/O threads: they must only hand work over.
 */
public final class RedisConnectionEvents implements ConnectionListener {

  private final List<Runnable> onConnect = new CopyOnWriteArrayList<>();

  public void onConnect(Runnable handler) {
    onConnect.add(handler);
  }

  @Override
  public void onConnect(InetSocketAddress address) {
    onConnect.forEach(Runnable::run);
  }

  @Override
  public void onDisconnect(InetSocketAddress address) {}
}

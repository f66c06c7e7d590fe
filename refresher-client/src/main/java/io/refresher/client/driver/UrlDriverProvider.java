package io.refresher.client.driver;

/**
 * Connects a driver of its own from a Redis URL, for {@code RefresherClient.builder(String)}.
 * Found through {@link java.util.ServiceLoader}: a driver module that can connect by itself
 * registers one in {@code META-INF/services/io.refresher.client.driver.UrlDriverProvider}.
 */
public interface UrlDriverProvider {

  /** The library's name, for messages. */
  String name();

  /** A driver that owns its connection: its {@link RedisDriver#close()} disconnects. */
  RedisDriver connect(String redisUrl);
}

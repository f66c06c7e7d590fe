package io.refresher.testing;

import io.refresher.embedded.RespConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;

/**
 * A short Redis pause, as a slow command or a fork makes one: {@code CLIENT PAUSE <ms> ALL}, after
 * which no other client's command runs until the pause ends (they queue and run then, in order).
 * Unlike {@code DEBUG SLEEP} on another connection, the pause is in force when this returns, so a
 * command sent next is known to wait for it. It ends by itself; {@link #end} ends it sooner.
 */
public final class RedisPause {

  private RedisPause() {}

  /** Pauses every client of {@code redis} for {@code pause}, from now. */
  public static void pauseAll(TestRedis redis, Duration pause) {
    call(redis, "CLIENT", "PAUSE", Long.toString(pause.toMillis()), "ALL");
  }

  /**
   * {@code DEBUG SLEEP}: the server itself stops for {@code pause} (no command, no expiry runs),
   * as a slow command or a long fork stops it. Returns when it has slept.
   */
  public static void debugSleep(TestRedis redis, Duration pause) {
    call(redis, "DEBUG", "SLEEP", Double.toString(pause.toMillis() / 1000.0));
  }

  /** Ends a pause now ({@code CLIENT UNPAUSE}); safe in a {@code finally}. */
  public static void end(TestRedis redis) {
    call(redis, "CLIENT", "UNPAUSE");
  }

  private static void call(TestRedis redis, String... command) {
    int port = URI.create(redis.url()).getPort();
    try (RespConnection connection = RespConnection.open(port, Duration.ofSeconds(5))) {
      connection.call(command);
    } catch (IOException e) {
      throw new UncheckedIOException("Redis " + redis.url() + " did not take " + String.join(" ", command), e);
    }
  }
}

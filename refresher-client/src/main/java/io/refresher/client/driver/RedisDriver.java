package io.refresher.client.driver;

import java.time.Duration;
import java.util.List;

/**
 * The few Redis operations the client needs, over one Redis client library (Redisson, Lettuce,
 * Jedis, or another). Values, keys and arguments are UTF-8 strings, as the service writes them.
 *
 * <p>A driver is built on the application's own client, which {@link #close()} leaves running; it
 * works on a single server and on a Redis Cluster (all the keys of one call share a slot, by the
 * protocol's hash tags). Failures of Redis or of the connection are thrown as the library's own
 * exceptions, which {@link #isRedisFailure} recognises: the client then falls back to the loader.
 */
public interface RedisDriver extends AutoCloseable {

  /** {@code GET key}; null when absent. */
  String get(String key);

  /**
   * {@code SET key value NX PX lease}: whether this call set it. A driver whose library re-sends a
   * command after a lost answer may find the value it set itself: the caller checks for that.
   */
  boolean setIfAbsent(String key, String value, Duration lease);

  /** {@code DEL key}: whether there was a key to delete. */
  boolean delete(String key);

  /**
   * Runs {@code script} on {@code keys} (one slot) with {@code args}: {@code EVALSHA}, and {@code
   * EVAL} when Redis does not have the script yet. The reply is a {@link Long} for an integer
   * reply, a {@link List} (elements as {@link String}, {@link Long} or null) for an array, null for
   * a nil.
   */
  Object eval(RedisScript script, List<String> keys, List<String> args);

  /**
   * Runs one script call per element of {@code calls} in one pipeline (one round trip per node),
   * and says what became of each. Never throws for a failure of Redis: each call's outcome says it.
   *
   * <p>Each call is sent at most once: neither the driver nor its library sends again a call whose
   * answer was lost (a response timeout, a connection closed before the answer), because Redis may
   * have run it. Such a call is {@link CallOutcome.Kind#UNKNOWN}. A call Redis surely did not run
   * (no connection, never written, an error reply given instead of running it) is {@link
   * CallOutcome.Kind#NOT_RUN}, and may be sent again by the caller.
   */
  List<CallOutcome> evalPipelined(RedisScript script, List<ScriptCall> calls);

  /** Whether {@code failure} came from Redis or the connection to it, rather than a bug. */
  boolean isRedisFailure(RuntimeException failure);

  /** Releases what the driver opened itself; the application's client keeps running. */
  @Override
  void close();
}

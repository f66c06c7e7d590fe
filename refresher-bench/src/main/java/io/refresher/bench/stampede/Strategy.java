package io.refresher.bench.stampede;

import java.util.Map;

/**
 * One way of reading a cached value whose computation is expensive. Every strategy reads its own
 * keys, through the same harness (reader threads, Redisson client, database pool): only what is
 * here differs.
 */
interface Strategy extends AutoCloseable {

  /**
   * The warm-up: writes every key's value as the strategy would have it, as if computed at {@code
   * writtenMicros}, each expiring at its {@code expiresMicros[rank]} (0: the key starts absent;
   * strategies without expiry get null and write every key).
   */
  void prefill(long writtenMicros, long[] expiresMicros) throws Exception;

  /** One read of the key of {@code rank}, by application instance {@code instance}: the source's value. */
  String read(int rank, int instance) throws Exception;

  /** What the strategy does, exactly, for the report. */
  String description();

  /** The strategy's own events (misses it saw, locks taken, early recomputations...). */
  Map<String, Long> counters();

  @Override
  default void close() throws Exception {}
}

package io.refresher.testing;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/** A Redis server for one test class. */
public interface TestRedis extends AutoCloseable {

  String url();

  /**
   * A new client that reads and writes plain strings, as applications do (never Redisson's
   * default codec). The caller shuts it down.
   */
  default RedissonClient connect() {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    // Few threads: tests that count the service's threads around a fault see the reader's too.
    config.setNettyThreads(2).setThreads(2);
    // Reconnects as fast as the service does, so that a test reading after a Redis restart
    // measures the service, not its own reader's backoff.
    config
        .useSingleServer()
        .setAddress(url())
        .setConnectionPoolSize(16)
        .setConnectionMinimumIdleSize(2)
        .setReconnectionDelay(
            new org.redisson.config.EqualJitterDelay(java.time.Duration.ofMillis(20), java.time.Duration.ofSeconds(1)));
    return Redisson.create(config);
  }

  /** Redis loses all its data (an embedded server really restarts, empty, on the same port). */
  void loseData();

  /**
   * Whether this Redis can suffer the process faults below: an embedded server can, the shared
   * Testcontainers Redis cannot. Tests that need them start with {@code
   * assumeTrue(redis.supportsProcessFaults())}.
   */
  default boolean supportsProcessFaults() {
    return false;
  }

  /**
   * SIGKILLs the Redis process (a crash, the OOM killer: no shutdown, no save) and returns once it
   * is gone and its port is free. Clients' connections break; new ones are refused until {@link
   * #startAgainEmpty()}.
   */
  default void killProcess() {
    throw noProcessFaults("killProcess");
  }

  /** After {@link #killProcess()}: a new, empty Redis process on the same port, so {@link #url()} stays valid. */
  default void startAgainEmpty() {
    throw noProcessFaults("startAgainEmpty");
  }

  /** {@link #killProcess()}, then {@link #startAgainEmpty()}: Redis crashed and came back without its data. */
  default void killAndRestartEmpty() {
    killProcess();
    startAgainEmpty();
  }

  /**
   * SIGSTOPs the Redis process: a stall (a long fork, swapping, a VM pause). Connections stay open
   * and new ones are still accepted, but nothing answers until {@link #thaw()}; commands sent
   * meanwhile run after the thaw. Always thaw in a {@code finally}.
   */
  default void freeze() {
    throw noProcessFaults("freeze");
  }

  /**
   * SIGCONTs a {@link #freeze() frozen} Redis process, which then answers what queued up. Does
   * nothing if it is not frozen, so it is safe in a {@code finally}.
   */
  default void thaw() {
    // Nothing can be frozen here.
  }

  /** Closes every client connection ({@code CLIENT KILL TYPE normal}); data and server stay. */
  default void killClientConnections() {
    throw noProcessFaults("killClientConnections");
  }

  /**
   * {@code SAVE}s, then SIGKILLs the process (a crash right after a snapshot): {@link
   * #startAgainWithData()} brings the data back. Only for a Redis from {@link
   * RealServers#newPersistentRedis()}.
   */
  default void saveAndKill() {
    throw noProcessFaults("saveAndKill");
  }

  /** After {@link #saveAndKill()}: a new process on the same port that loads the snapshot. */
  default void startAgainWithData() {
    throw noProcessFaults("startAgainWithData");
  }

  /**
   * A planned restart that keeps the data (a rolling upgrade): {@code SHUTDOWN SAVE}, then a new
   * process on the same port that loads the snapshot, keys and TTLs. Clients see their connections
   * closed. Only for a Redis from {@link RealServers#newPersistentRedis()}.
   */
  default void restartKeepingData() {
    throw noProcessFaults("restartKeepingData");
  }

  @Override
  void close();

  private UnsupportedOperationException noProcessFaults(String operation) {
    return new UnsupportedOperationException(
        operation
            + ": this Redis ("
            + getClass().getName()
            + ") cannot kill, freeze or restart its server process; check supportsProcessFaults()"
            + " (embedded servers can: -Drefresher.test.servers=embedded)");
  }
}

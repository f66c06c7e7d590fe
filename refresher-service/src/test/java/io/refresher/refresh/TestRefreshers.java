package io.refresher.refresh;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A real {@link Refresher} on in-memory parts for dispatcher tests: locks always granted (with
 * growing tokens), every write accepted, no load bound.
 */
final class TestRefreshers {

  /**
   * A fixed 5 s TTR, jitter 0 (the physical TTL is exact), retries from 500 ms doubling up to
   * 1 min: the settings the refresh tests share.
   */
  static final RefreshSettings SETTINGS =
      new RefreshSettings(
          TtrSettings.fixed(Duration.ofSeconds(5)),
          0.5,
          Duration.ofSeconds(30),
          Duration.ofMinutes(5),
          0.0,
          Duration.ofMillis(500),
          Duration.ofMinutes(1),
          16);

  private TestRefreshers() {}

  /**
   * @param loader computes each value (and may record what it was asked)
   * @param written told the key of every accepted write
   */
  static Refresher inMemory(RefreshSettings settings, ValueLoader loader, Consumer<String> written) {
    return inMemory(settings, loader, written, grantingLocks());
  }

  /** Locks that are always granted, with growing tokens. */
  static KeyLocks grantingLocks() {
    AtomicLong tokens = new AtomicLong();
    return
        (key, lease) ->
            Optional.of(
                new KeyLocks.HeldLock() {
                  private final long token = tokens.incrementAndGet();

                  @Override
                  public long token() {
                    return token;
                  }

                  @Override
                  public void release() {}
                });
  }

  /** Like {@link #inMemory(RefreshSettings, ValueLoader, Consumer)}, with the given locks. */
  static Refresher inMemory(RefreshSettings settings, ValueLoader loader, Consumer<String> written, KeyLocks locks) {
    CacheStore store =
        new CacheStore() {
          @Override
          public WriteResult write(
              String key,
              String value,
              Fence fence,
              long generation,
              ValueMeta meta,
              Duration ttl,
              int history,
              KeyLocks.HeldLock lock) {
            written.accept(key);
            return new WriteResult(WriteStatus.WRITTEN, 0, List.of(1L));
          }

          @Override
          public int recordFailure(String key, Fence fence, String kind, String error, Instant at, Duration ttl) {
            return 1;
          }

          @Override
          public Optional<Served> served(String key) {
            return Optional.empty();
          }

          @Override
          public Optional<KeyState> state(String key) {
            return Optional.empty();
          }

          @Override
          public void retire(String key, long generation, boolean evict, Duration tombstone) {}

          @Override
          public void supersede(String key, long generation, Duration tombstone) {}

          @Override
          public WriteResult extend(
              String key, Fence fence, long generation, Instant at, Instant expiresAt, Duration ttl, KeyLocks.HeldLock lock) {
            written.accept(key);
            return new WriteResult(WriteStatus.WRITTEN, 0, List.of(1L));
          }

          @Override
          public Optional<String> validator(String key) {
            return Optional.empty();
          }

          @Override
          public void evictValue(String key) {}
        };
    return new Refresher(
        loader,
        SourceLoad.UNBOUNDED,
        store,
        locks,
        () -> 1L,
        new RefreshPlanner(settings, new Random(1)),
        settings,
        (key, at) -> {},
        RefreshListener.NONE,
        new AdaptiveTtr(settings.ttr(), settings.maxTtrFraction(), settings.retryBase()),
        new LagTracker(),
        Heat.UNKNOWN,
        InstantSource.system());
  }
}

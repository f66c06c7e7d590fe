package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.cache.RedisCacheStore;
import io.refresher.cache.RedisKeyLocks;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.Fence;
import io.refresher.refresh.KeyLocks;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The fencing rule on a real Redis: the write script refuses a value whose fence (epoch, lock
 * token) is older than the stored one, so a refresher that stalled past its lock lease cannot
 * overwrite the newer value written by the next lock holder.
 */
class FencingIT {

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisCacheStore store;
  private static RedisKeyLocks locks;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
    store = new RedisCacheStore(redisson);
    locks = new RedisKeyLocks(redisson);
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @Test
  void write_olderTokenThanStored_isRefusedAndValueUnchanged() {
    String key = "fence:token";
    assertThat(write(key, "v10", new Fence(1, 10)).written()).isTrue();

    CacheStore.WriteResult older = write(key, "v9", new Fence(1, 9));

    assertThat(older.written()).isFalse();
    assertThat(value(key)).isEqualTo("v10");
    assertThat(meta(key)).containsEntry("token", "10").containsEntry("epoch", "1");
    assertThat(write(key, "v11", new Fence(1, 11)).written()).isTrue();
    assertThat(value(key)).isEqualTo("v11");
  }

  @Test
  void write_sameToken_isAccepted() {
    String key = "fence:same";
    assertThat(write(key, "a", new Fence(3, 5)).written()).isTrue();
    assertThat(write(key, "b", new Fence(3, 5)).written()).isTrue();
    assertThat(value(key)).isEqualTo("b");
  }

  @Test
  void write_olderEpochWithHigherToken_isRefused() {
    String key = "fence:epoch";
    assertThat(write(key, "old-epoch", new Fence(1, 500)).written()).isTrue();
    assertThat(write(key, "new-epoch", new Fence(2, 1)).written()).as("newer epoch, token reset").isTrue();

    assertThat(write(key, "stale", new Fence(1, 501)).written()).isFalse();
    assertThat(value(key)).isEqualTo("new-epoch");
  }

  @Test
  void recordFailure_olderFence_isIgnored() {
    String key = "fence:failure";
    assertThat(write(key, "good", new Fence(1, 7)).written()).isTrue();

    int failures = store.recordFailure(key, new Fence(1, 6), "ERROR", "late failure", Instant.now(), Duration.ofMinutes(1));

    assertThat(failures).isZero();
    assertThat(meta(key)).doesNotContainKey("error");
    assertThat(value(key)).isEqualTo("good");
  }

  @Test
  void holderPausedPastItsLease_lateWriteIsRefusedAfterNextHolderWrote() throws Exception {
    String key = "fence:lease";
    Duration lease = Duration.ofMillis(300);
    KeyLocks.HeldLock stalled = acquireOnOwnThread(key, lease).orElseThrow();

    assertThat(acquireOnOwnThread(key, lease)).as("lock held, no waiting").isEmpty();
    // The first holder "pauses"; its lease runs out and another refresher takes the lock.
    Optional<KeyLocks.HeldLock> next =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> acquireOnOwnThread(key, Duration.ofSeconds(5)), Optional::isPresent);
    assertThat(next.orElseThrow().token()).isGreaterThan(stalled.token());
    assertThat(write(key, "fresh", new Fence(1, next.get().token())).written()).isTrue();

    CacheStore.WriteResult late = write(key, "stale", new Fence(1, stalled.token()));

    assertThat(late.written()).isFalse();
    assertThat(value(key)).isEqualTo("fresh");
  }

  @Test
  void write_valueAndMetadata_sameSlotAndSameTtl() {
    String key = "user:{42}:cart";
    write(key, "{\"items\":3}", new Fence(1, 1));

    assertThat(CacheKeys.slot(CacheKeys.metaKey(key))).isEqualTo(CacheKeys.slot(key));
    long valueTtl = redisson.getBucket(key, StringCodec.INSTANCE).remainTimeToLive();
    long metaTtl = redisson.getBucket(CacheKeys.metaKey(key), StringCodec.INSTANCE).remainTimeToLive();
    assertThat(valueTtl).isBetween(55_000L, 60_000L);
    assertThat(Math.abs(valueTtl - metaTtl)).isLessThan(1_000L);
    assertThat(meta(key)).containsKeys("computedAt", "delta", "expiresAt", "size", "epoch", "token");
  }

  private static Optional<KeyLocks.HeldLock> acquireOnOwnThread(String key, Duration lease) {
    // Redisson locks are reentrant per thread; separate threads stand in for separate refreshers.
    return CompletableFuture.supplyAsync(() -> locks.tryAcquire(key, lease)).join();
  }

  private static CacheStore.WriteResult write(String key, String value, Fence fence) {
    Instant now = Instant.now();
    return store.write(
        key, value, fence, new CacheStore.ValueMeta(now, Duration.ofMillis(3), now.plusSeconds(30)), Duration.ofMinutes(1), 20);
  }

  private static String value(String key) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).readAllMap();
  }
}

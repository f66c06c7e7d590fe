package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.redis.RedisCacheStore;
import io.refresher.redis.RedisKeyLocks;
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
  void write_sameFenceAndComputedAt_otherValue_isWritten() {
    // Only a re-sent script is answered from what is stored: same fence, same computedAt and the
    // same value. A fast machine computes two values within one millisecond.
    String key = "fence:same-instant";
    Instant computedAt = Instant.now();
    assertThat(write(key, "a", new Fence(3, 5), 1, computedAt).written()).isTrue();

    CacheStore.WriteResult other = write(key, "b", new Fence(3, 5), 1, computedAt);

    assertThat(other.written()).isTrue();
    assertThat(value(key)).isEqualTo("b");
    assertThat(meta(key)).containsEntry("recent", "3,3");
  }

  @Test
  void write_resentScript_answersWrittenAndAddsNoSample() {
    String key = "fence:resent";
    Instant computedAt = Instant.now();
    assertThat(write(key, "a", new Fence(3, 6), 1, computedAt).written()).isTrue();

    CacheStore.WriteResult resent = write(key, "a", new Fence(3, 6), 1, computedAt);

    assertThat(resent.written()).isTrue();
    assertThat(meta(key)).containsEntry("recent", "3");
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

  @Test
  void recordFailure_newerThanStored_doesNotRaiseTheFence() {
    String key = "fence:failure-newer";
    assertThat(write(key, "v3", new Fence(1, 3)).written()).isTrue();

    assertThat(store.recordFailure(key, new Fence(1, 5), "ERROR", "boom", Instant.now(), Duration.ofMinutes(1)))
        .isEqualTo(1);

    assertThat(write(key, "v4", new Fence(1, 4)).written())
        .as("a successful value newer than the stored one, older than the failure")
        .isTrue();
    assertThat(value(key)).isEqualTo("v4");
    assertThat(meta(key)).containsEntry("token", "4").doesNotContainKey("error");
  }

  @Test
  void write_tokenCounterExpiresWithTheKey() throws Exception {
    String key = "fence:counter-ttl";
    KeyLocks.HeldLock held = acquireOnOwnThread(key, Duration.ofSeconds(5)).orElseThrow();
    assertThat(write(key, "v", new Fence(1, held.token())).written()).isTrue();

    long valueTtl = redisson.getBucket(key, StringCodec.INSTANCE).remainTimeToLive();
    long counterTtl = redisson.getBucket(RedisKeyLocks.tokenCounterName(key), StringCodec.INSTANCE).remainTimeToLive();
    assertThat(redisson.getKeys().countExists(RedisKeyLocks.tokenCounterName(key))).as("Redisson's counter").isEqualTo(1);
    assertThat(counterTtl).as("counter TTL").isPositive().isGreaterThanOrEqualTo(valueTtl - 1_000);
  }

  @Test
  void recordFailure_tokenCounterExpiresWithTheMetadata() {
    String key = "fence:counter-failure";
    KeyLocks.HeldLock held = acquireOnOwnThread(key, Duration.ofSeconds(5)).orElseThrow();

    store.recordFailure(key, new Fence(1, held.token()), "ERROR", "boom", Instant.now(), Duration.ofMinutes(2));

    long metaTtl = redisson.getBucket(CacheKeys.metaKey(key), StringCodec.INSTANCE).remainTimeToLive();
    long counterTtl = redisson.getBucket(RedisKeyLocks.tokenCounterName(key), StringCodec.INSTANCE).remainTimeToLive();
    assertThat(counterTtl).isPositive().isGreaterThanOrEqualTo(metaTtl - 1_000);
  }

  @Test
  void tokenCounterLost_writeRefusedOnce_counterRaisedAboveTheStoredToken() {
    String key = "fence:counter-lost";
    redisson.getBucket(RedisKeyLocks.tokenCounterName(key), StringCodec.INSTANCE).set("1000");
    KeyLocks.HeldLock first = acquireOnOwnThread(key, Duration.ofMillis(200)).orElseThrow();
    assertThat(first.token()).isEqualTo(1001);
    assertThat(write(key, "v1001", new Fence(1, first.token())).written()).isTrue();
    first.release();
    // Evicted, as an allkeys-* policy may do: the counter restarts below the stored token.
    redisson.getKeys().delete(RedisKeyLocks.tokenCounterName(key));
    KeyLocks.HeldLock restarted =
        await().atMost(Duration.ofSeconds(5)).until(() -> acquireOnOwnThread(key, Duration.ofMillis(200)), Optional::isPresent).orElseThrow();
    assertThat(restarted.token()).isEqualTo(1);

    CacheStore.WriteResult refused = write(key, "v1", new Fence(1, restarted.token()));

    assertThat(refused.written()).isFalse();
    assertThat(refused.status()).isEqualTo(CacheStore.WriteStatus.COUNTER_REPAIRED);
    restarted.release();
    KeyLocks.HeldLock next =
        await().atMost(Duration.ofSeconds(5)).until(() -> acquireOnOwnThread(key, Duration.ofMillis(200)), Optional::isPresent).orElseThrow();
    assertThat(next.token()).isGreaterThan(1001);
    assertThat(write(key, "v-next", new Fence(1, next.token())).written()).isTrue();
    assertThat(value(key)).isEqualTo("v-next");
  }

  @Test
  void supersede_refusesLateWritesOfTheReplacedGeneration_acceptsTheReplacement_neverLowers() {
    String key = "fence:superseded";
    assertThat(write(key, "gen7", new Fence(1, 1), 7).written()).isTrue();

    store.supersede(key, 8, Duration.ofMinutes(1));

    CacheStore.WriteResult late = write(key, "late", new Fence(1, 2), 7);
    assertThat(late.status()).isEqualTo(CacheStore.WriteStatus.REGISTRATION_REPLACED);
    assertThat(value(key)).as("the replaced generation's value is still served").isEqualTo("gen7");
    store.supersede(key, 6, Duration.ofMinutes(1));
    assertThat(write(key, "gen8", new Fence(1, 3), 8).written()).as("the replacement").isTrue();
    assertThat(value(key)).isEqualTo("gen8");
    assertThat(write(key, "gen7-again", new Fence(1, 4), 7).written()).as("a late supersede never lowers").isFalse();
  }

  @Test
  void supersede_ofAKeyWithNoMetadata_leavesARecordThatExpires() {
    String key = "fence:superseded-new";

    store.supersede(key, 3, Duration.ofMinutes(1));

    assertThat(redisson.getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).remainTimeToLive())
        .as("no record without a TTL")
        .isBetween(1L, Duration.ofMinutes(1).toMillis());
    assertThat(write(key, "older", new Fence(1, 1), 2).status()).isEqualTo(CacheStore.WriteStatus.REGISTRATION_REPLACED);
    assertThat(write(key, "gen3", new Fence(1, 2), 3).written()).isTrue();
  }

  @Test
  void retire_refusesLateWritesOfTheRetiredGeneration_acceptsNewerAndTemplateWrites() {
    String key = "fence:retired";
    assertThat(write(key, "gen7", new Fence(1, 1), 7).written()).isTrue();

    store.retire(key, 7, true, Duration.ofMinutes(1));

    assertThat(value(key)).as("evicted").isNull();
    CacheStore.WriteResult late = write(key, "late", new Fence(1, 2), 7);
    assertThat(late.status()).isEqualTo(CacheStore.WriteStatus.REGISTRATION_GONE);
    assertThat(write(key, "older", new Fence(1, 3), 6).written()).isFalse();
    assertThat(value(key)).isNull();
    assertThat(redisson.getKeys().countExists(RedisKeyLocks.tokenCounterName(key))).as("counter deleted").isZero();
    long tombstoneTtl = redisson.getBucket(CacheKeys.metaKey(key), StringCodec.INSTANCE).remainTimeToLive();
    assertThat(tombstoneTtl).as("the tombstone expires").isBetween(1L, 60_000L);

    assertThat(write(key, "template", new Fence(1, 4), 0).written()).as("a template's write").isTrue();
    assertThat(write(key, "late-again", new Fence(1, 5), 7).written()).as("still retired").isFalse();
    assertThat(write(key, "gen8", new Fence(1, 6), 8).written()).as("registered again").isTrue();
    assertThat(value(key)).isEqualTo("gen8");
    assertThat(write(key, "gen7-late", new Fence(1, 7), 7).written()).as("older registration").isFalse();
  }

  @Test
  void retire_withoutEvict_keepsTheValueButRefusesLateWrites() {
    String key = "fence:retired-kept";
    assertThat(write(key, "kept", new Fence(1, 1), 3).written()).isTrue();
    long valueTtl = redisson.getBucket(key, StringCodec.INSTANCE).remainTimeToLive();

    store.retire(key, 3, false, Duration.ofSeconds(5));

    assertThat(value(key)).isEqualTo("kept");
    assertThat(redisson.getBucket(key, StringCodec.INSTANCE).remainTimeToLive()).isLessThanOrEqualTo(valueTtl);
    assertThat(meta(key)).containsKeys("computedAt", "expiresAt");
    assertThat(write(key, "late", new Fence(1, 2), 3).written()).isFalse();
    assertThat(value(key)).isEqualTo("kept");
  }

  private static Optional<KeyLocks.HeldLock> acquireOnOwnThread(String key, Duration lease) {
    // Redisson locks are reentrant per thread; separate threads stand in for separate refreshers.
    return CompletableFuture.supplyAsync(() -> locks.tryAcquire(key, lease)).join();
  }

  private static CacheStore.WriteResult write(String key, String value, Fence fence) {
    return write(key, value, fence, 1);
  }

  private static CacheStore.WriteResult write(String key, String value, Fence fence, long generation) {
    return write(key, value, fence, generation, Instant.now());
  }

  private static CacheStore.WriteResult write(
      String key, String value, Fence fence, long generation, Instant now) {
    return store.write(
        key,
        value,
        fence,
        generation,
        new CacheStore.ValueMeta(now, Duration.ofMillis(3), now.plusSeconds(30)),
        Duration.ofMinutes(1),
        20,
        null);
  }

  private static String value(String key) {
    return redisson.<String>getBucket(key, StringCodec.INSTANCE).get();
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key), StringCodec.INSTANCE).readAllMap();
  }
}

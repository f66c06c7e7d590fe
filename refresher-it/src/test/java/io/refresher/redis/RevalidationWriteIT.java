package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.client.protocol.MetaFields;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.CacheStore.WriteStatus;
import io.refresher.refresh.Fence;
import io.refresher.refresh.KeyLocks;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The revalidation side of the write script on a real Redis: an extension moves the value's TTL,
 * its logical expiry and the fence, and nothing else; it is refused exactly when a write would be;
 * with no value to extend it changes nothing and keeps the lock, so the value can be computed
 * under it; a write stores its validator and forgets an old revalidation.
 */
class RevalidationWriteIT {

  private static final Duration LEASE = Duration.ofSeconds(10);

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisCacheStore store;
  private static RedisKeyLocks locks;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(redis.url());
    redisson = Redisson.create(config);
    store = new RedisCacheStore(redisson);
    locks = new RedisKeyLocks(redisson);
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @Test
  void extend_unchangedValue_movesTtlExpiryAndFence_keepsValueSizeDurationsAndValidator() {
    String key = "reval:extend";
    Instant computedAt = Instant.now().minusSeconds(50);
    write(key, "the value", "etag:\"v1\"", computedAt, Duration.ofSeconds(60));
    Map<String, String> before = meta(key);

    KeyLocks.HeldLock lock = locks.tryAcquire(key, LEASE).orElseThrow();
    Instant now = Instant.now();
    CacheStore.WriteResult result =
        store.extend(key, new Fence(1, lock.token()), 0, now, now.plusSeconds(300), Duration.ofSeconds(320), lock);

    assertThat(result.status()).isEqualTo(WriteStatus.WRITTEN);
    assertThat(result.recentDurations()).as("the stored durations, untouched").containsExactly(40L);
    assertThat(value(key)).isEqualTo("the value");
    assertThat(redisson.getBucket(key).remainTimeToLive()).as("value TTL ms").isGreaterThan(300_000L);
    Map<String, String> after = meta(key);
    assertThat(after)
        .containsEntry(MetaFields.EXPIRES_AT, Long.toString(now.plusSeconds(300).toEpochMilli()))
        .containsEntry(MetaFields.REVALIDATED_AT, Long.toString(now.toEpochMilli()))
        .containsEntry(MetaFields.TOKEN, Long.toString(lock.token()))
        .containsEntry(MetaFields.COMPUTED_AT, before.get(MetaFields.COMPUTED_AT))
        .containsEntry(MetaFields.DELTA, before.get(MetaFields.DELTA))
        .containsEntry(MetaFields.SIZE, before.get(MetaFields.SIZE))
        .containsEntry(MetaFields.VALIDATOR, "etag:\"v1\"");
    assertThat(redisson.getMap(CacheKeys.metaKey(key)).remainTimeToLive()).isGreaterThan(300_000L);
    assertThat(redisson.getBucket(CacheKeys.lockName(key)).isExists()).as("lock released by the script").isFalse();
    assertThat(store.state(key).orElseThrow().revalidatedAt()).isEqualTo(Instant.ofEpochMilli(now.toEpochMilli()));
  }

  @Test
  void extend_olderFenceThanStored_isRefusedAndChangesNothing() {
    String key = "reval:older";
    write(key, "newer", "etag:\"n\"", Instant.now(), Duration.ofSeconds(60));
    Map<String, String> before = meta(key);
    long pttl = redisson.getBucket(key).remainTimeToLive();

    CacheStore.WriteResult result =
        store.extend(key, new Fence(0, 999), 0, Instant.now(), Instant.now().plusSeconds(600), Duration.ofSeconds(620), null);

    assertThat(result.status()).isEqualTo(WriteStatus.NEWER_STORED);
    assertThat(meta(key)).isEqualTo(before);
    assertThat(redisson.getBucket(key).remainTimeToLive()).isLessThanOrEqualTo(pttl);
  }

  @Test
  void extend_valueGone_changesNothingAndKeepsTheLock() {
    String key = "reval:gone";
    write(key, "soon gone", "etag:\"g\"", Instant.now(), Duration.ofSeconds(60));
    redisson.getBucket(key).delete();
    Map<String, String> before = meta(key);

    KeyLocks.HeldLock lock = locks.tryAcquire(key, LEASE).orElseThrow();
    CacheStore.WriteResult result =
        store.extend(key, new Fence(1, lock.token()), 0, Instant.now(), Instant.now().plusSeconds(60), Duration.ofSeconds(70), lock);

    assertThat(result.status()).isEqualTo(WriteStatus.VALUE_GONE);
    assertThat(meta(key)).isEqualTo(before);
    assertThat(redisson.getBucket(key).isExists()).isFalse();
    assertThat(locks.tryAcquire(key, LEASE)).as("still held by the revalidating refresh").isEmpty();

    CacheStore.WriteResult computed =
        store.write(
            key,
            "computed again",
            new Fence(1, lock.token()),
            0,
            new CacheStore.ValueMeta(Instant.now(), Duration.ofMillis(5), Instant.now().plusSeconds(60), "etag:\"h\""),
            Duration.ofSeconds(70),
            8,
            lock);
    assertThat(computed.status()).isEqualTo(WriteStatus.WRITTEN);
    assertThat(value(key)).isEqualTo("computed again");
    assertThat(locks.tryAcquire(key, LEASE)).as("released by the write").isPresent();
  }

  @Test
  void write_afterARevalidation_storesItsValidatorAndForgetsTheRevalidation() {
    String key = "reval:rewrite";
    write(key, "first", "version:1", Instant.now(), Duration.ofSeconds(60));
    KeyLocks.HeldLock lock = locks.tryAcquire(key, LEASE).orElseThrow();
    store.extend(key, new Fence(1, lock.token()), 0, Instant.now(), Instant.now().plusSeconds(60), Duration.ofSeconds(70), lock);
    assertThat(meta(key)).containsKey(MetaFields.REVALIDATED_AT);

    write(key, "second", "version:2", Instant.now(), Duration.ofSeconds(60));
    assertThat(meta(key)).doesNotContainKey(MetaFields.REVALIDATED_AT).containsEntry(MetaFields.VALIDATOR, "version:2");
    assertThat(store.validator(key)).contains("version:2");

    write(key, "third", null, Instant.now(), Duration.ofSeconds(60));
    assertThat(meta(key)).as("a value without a validator leaves none behind").doesNotContainKey(MetaFields.VALIDATOR);
    assertThat(store.validator(key)).isEmpty();
  }

  @Test
  void validator_withoutAValue_isEmpty_soTheValueIsComputed() {
    String key = "reval:novalue";
    write(key, "v", "etag:\"x\"", Instant.now(), Duration.ofSeconds(60));
    assertThat(store.validator(key)).contains("etag:\"x\"");

    redisson.getBucket(key).delete();

    assertThat(store.validator(key)).isEmpty();
  }

  private static void write(String key, String value, String validator, Instant computedAt, Duration ttl) {
    KeyLocks.HeldLock lock = locks.tryAcquire(key, LEASE).orElseThrow();
    CacheStore.WriteResult result =
        store.write(
            key,
            value,
            new Fence(1, lock.token()),
            0,
            new CacheStore.ValueMeta(computedAt, Duration.ofMillis(40), computedAt.plus(ttl), validator),
            ttl.plusSeconds(10),
            8,
            lock);
    assertThat(result.status()).isEqualTo(WriteStatus.WRITTEN);
  }

  private static String value(String key) {
    return redisson.<String>getBucket(key).get();
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key)).readAllMap();
  }
}

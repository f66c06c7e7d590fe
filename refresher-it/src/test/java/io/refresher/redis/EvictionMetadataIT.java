package io.refresher.redis;

import io.refresher.client.redisson.RedissonDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.client.RefresherClient;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * What an eviction leaves in the metadata, seen by the client library that caches the key next
 * (issue 18, points 5 and 8), on a real Redis: the fence and the tombstone the service's next write
 * is checked against stay for as long as they are needed, and nothing that says "a fresh value is
 * here" stays once the value is gone.
 */
class EvictionMetadataIT {

  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration TTL = Duration.ofHours(1);
  private static final long GENERATION = 7;

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisCacheStore store;
  private static RedisKeyLocks locks;
  private static RefresherClient client;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
    store = new RedisCacheStore(redisson);
    locks = new RedisKeyLocks(redisson);
    client = RefresherClient.builder(RedissonDriver.of(redisson)).build();
  }

  @AfterAll
  static void stop() {
    client.close();
    redisson.shutdown();
    redis.close();
  }

  /** {@code ChangeRefresh}'s eviction of a key nobody keeps fresh: the next reader caches it. */
  @Test
  void evictValue_theClientCachesTheKeyAgain_andTheFenceStillRefusesOlderWrites() {
    String key = "evict:change";
    long token = writeFresh(key, "from-service", "etag:\"v1\"");
    KeyLocks.HeldLock evicting = locks.tryAcquire(key, LEASE).orElseThrow();

    store.evictValue(key);
    evicting.release();

    AtomicInteger runs = new AtomicInteger();
    assertThat(client.get(key, Duration.ofMinutes(5), () -> "loaded-" + runs.incrementAndGet())).isEqualTo("loaded-1");
    assertThat(client.get(key, Duration.ofMinutes(5), () -> "loaded-" + runs.incrementAndGet())).isEqualTo("loaded-1");
    assertThat(runs).as("loader runs after the eviction").hasValue(1);

    CacheStore.WriteResult older = write(key, "older", new Fence(1, token - 1), GENERATION);
    assertThat(older.status()).as("a write older than the evicted value's").isEqualTo(WriteStatus.NEWER_STORED);
    KeyLocks.HeldLock next = locks.tryAcquire(key, LEASE).orElseThrow();
    CacheStore.WriteResult newer = write(key, "newer", new Fence(1, next.token()), GENERATION);
    assertThat(newer.status()).isEqualTo(WriteStatus.WRITTEN);
    assertThat(redisson.getBucket(key).get()).isEqualTo("newer");
  }

  /**
   * Freshness fields go with the value; fence, generation and compute history stay (the service's
   * next write compares against the first two and plans with the third).
   */
  @Test
  void evictValue_leavesOnlyWhatTheNextWriteNeeds() {
    String key = "evict:fields";
    long token = writeFresh(key, "from-service", "etag:\"v1\"");

    store.evictValue(key);

    assertThat(redisson.getBucket(key).isExists()).isFalse();
    Map<String, String> meta = meta(key);
    assertThat(meta)
        .as("what an eviction leaves")
        .containsOnlyKeys(MetaFields.EPOCH, MetaFields.TOKEN, "generation", MetaFields.RECENT)
        .containsEntry(MetaFields.EPOCH, "1")
        .containsEntry(MetaFields.TOKEN, Long.toString(token))
        .containsEntry("generation", Long.toString(GENERATION));
    assertThat(store.state(key).orElseThrow().expiresAt()).isNull();
  }

  /**
   * {@code DELETE ?evict=true}, then an application caches the key for a second with the client:
   * the tombstone keeps refusing a late write of the deleted registration after that second.
   */
  @Test
  void deleteWithEvict_aClientCachesTheKeyBriefly_theTombstoneStillRefusesTheDeletedGeneration() {
    String key = "evict:deleted";
    writeFresh(key, "from-service", null);
    KeyLocks.HeldLock inFlight = locks.tryAcquire(key, LEASE).orElseThrow();
    store.retire(key, GENERATION, true, Duration.ofMinutes(10));

    assertThat(client.get(key, Duration.ofSeconds(1), () -> "from-client")).isEqualTo("from-client");
    await("the client's value expires")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !redisson.getBucket(key).isExists());

    CacheStore.WriteResult late = write(key, "deleted value", new Fence(1, inFlight.token()), GENERATION);
    assertThat(late.status()).as("the late write of the deleted registration").isEqualTo(WriteStatus.REGISTRATION_GONE);
    assertThat(redisson.getBucket(key).isExists()).isFalse();
  }

  /**
   * A template that covers a deleted key writes it with its own, shorter TTL: the tombstone it
   * keeps keeps its own TTL too (a tombstone's TTL only grows).
   */
  @Test
  void deleteThenATemplateWritesTheKey_theTombstoneKeepsItsTtl() {
    String key = "evict:template";
    writeFresh(key, "from-service", null);
    store.retire(key, GENERATION, true, Duration.ofMinutes(10));

    KeyLocks.HeldLock template = locks.tryAcquire(key, LEASE).orElseThrow();
    Instant now = Instant.now();
    CacheStore.WriteResult written =
        store.write(
            key,
            "from-template",
            new Fence(1, template.token()),
            0,
            new CacheStore.ValueMeta(now, Duration.ofMillis(5), now.plusSeconds(1)),
            Duration.ofSeconds(2),
            8,
            template);

    assertThat(written.status()).isEqualTo(WriteStatus.WRITTEN);
    assertThat(meta(key)).containsEntry("generation", Long.toString(GENERATION)).containsEntry("retired", "1");
    assertThat(redisson.getBucket(CacheKeys.metaKey(key)).remainTimeToLive())
        .as("the tombstone's TTL, ms")
        .isGreaterThan(Duration.ofMinutes(9).toMillis());
    assertThat(redisson.getBucket(RedisKeyLocks.tokenCounterName(key)).remainTimeToLive())
        .as("the token counter outlives the metadata holding its last token, ms")
        .isGreaterThan(Duration.ofMinutes(10).toMillis());
  }

  /** A value as a refresh writes it, with a compute history and a validator; returns its token. */
  private static long writeFresh(String key, String value, String validator) {
    KeyLocks.HeldLock lock = locks.tryAcquire(key, LEASE).orElseThrow();
    Instant now = Instant.now();
    CacheStore.WriteResult result =
        store.write(
            key,
            value,
            new Fence(1, lock.token()),
            GENERATION,
            new CacheStore.ValueMeta(now, Duration.ofMillis(40), now.plus(TTL), validator),
            TTL.plusMinutes(5),
            8,
            lock);
    assertThat(result.status()).isEqualTo(WriteStatus.WRITTEN);
    return lock.token();
  }

  private static CacheStore.WriteResult write(String key, String value, Fence fence, long generation) {
    Instant now = Instant.now();
    return store.write(
        key, value, fence, generation, new CacheStore.ValueMeta(now, Duration.ofMillis(40), now.plus(TTL)), TTL, 8, null);
  }

  private static Map<String, String> meta(String key) {
    return redisson.<String, String>getMap(CacheKeys.metaKey(key)).readAllMap();
  }
}

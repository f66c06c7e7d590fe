package io.refresher.it;

import java.time.InstantSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.Gauge;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.redis.RedisEvictionPolicy;
import io.refresher.redis.RedisKeyLocks;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;

/**
 * Redis under memory pressure and eviction: the service's lock token counters live and die with
 * their keys (none without a TTL; a deleted key's expires at most a minute after its tombstone), a counter evicted while its key's
 * metadata survives does not wedge the key, and the eviction policy is read and shown.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisMemoryPressureIT {

  private static final TestApp APP =
      TestApp.create("memory_pressure", List.of(), "refresh.deletedTombstone", "2s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @Test
  void tokenCounterEvicted_keyIsNotWedged_refreshesGoOn() {
    String key = "pressure:wedge";
    // A key refreshed a thousand times before: its stored token is far above a restarted counter.
    APP.reader().getBucket(RedisKeyLocks.tokenCounterName(key), StringCodec.INSTANCE).set("1000");
    register(key);
    long firstComputed = computedAt(key);
    assertThat(Long.parseLong(APP.meta(key).get("token"))).isGreaterThan(1000);

    APP.reader().getKeys().delete(RedisKeyLocks.tokenCounterName(key));

    await("refreshes go on after the counter was lost")
        .atMost(Duration.ofSeconds(15))
        .until(() -> computedAt(key) > firstComputed + 2_000);
    assertThat(APP.get(key)).as("never absent").isNotNull();
  }

  @Test
  void refreshedKeys_everyTokenCounterHasATtl() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      keys.add("pressure:ttl:" + i);
      register(keys.get(i));
    }
    await("a few refresh cycles")
        .atMost(Duration.ofSeconds(15))
        .until(() -> keys.stream().allMatch(key -> Long.parseLong(APP.meta(key).get("token")) >= 3));

    for (String key : keys) {
      long counterTtl =
          APP.reader().getBucket(RedisKeyLocks.tokenCounterName(key), StringCodec.INSTANCE).remainTimeToLive();
      assertThat(counterTtl).as("TTL of the token counter of %s", key).isPositive();
    }
    List<String> withoutTtl = new ArrayList<>();
    for (String counter : APP.reader().getKeys().getKeys(KeysScanOptions.defaults().pattern("redisson_lock_token:*"))) {
      if (APP.reader().getBucket(counter, StringCodec.INSTANCE).remainTimeToLive() == -1) {
        withoutTtl.add(counter);
      }
    }
    assertThat(withoutTtl).as("token counters that would stay forever").isEmpty();
  }

  @Test
  void deletedAndEvicted_nothingOfTheKeyIsLeftOnceItsTombstoneExpired() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      keys.add("pressure:gone:" + i);
      register(keys.get(i));
    }
    for (String key : keys) {
      try (Response deleted = APP.deleteKey(key, true)) {
        assertThat(deleted.getStatus()).isEqualTo(204);
      }
    }

    // A refresh claimed before a delete may take the key's lock after the eviction: that recreates
    // the lock token counter, and its refused write gives the counter the tombstone's TTL plus a
    // minute (the counter outlives the metadata, so that tokens never go backwards while it lasts).
    // So the value, the metadata and the tombstone are gone once the tombstone expires, and what a
    // refresh in flight left is a counter on its way out, never one without an expiry.
    await("nothing of the deleted keys is left in Redis but counters about to expire")
        .atMost(Duration.ofSeconds(15))
        .until(() -> leftBehind("*pressure:gone:*").stream().filter(name -> !isExpiringCounter(name)).toList(), List::isEmpty);
  }

  private static boolean isExpiringCounter(String name) {
    if (!name.startsWith("redisson_lock_token:")) {
      return false;
    }
    long ttl = APP.reader().getBucket(name, StringCodec.INSTANCE).remainTimeToLive();
    return ttl > 0 && ttl <= Duration.ofSeconds(2 + 60 + 5).toMillis(); // tombstone + counter margin (+ a refresh's lease)
  }

  @Test
  void evictionPolicy_readAndClassified_shownInTheMetric() {
    assertThat(gauge("refresher.redis.eviction-policy-safe")).as("embedded Redis: noeviction").isEqualTo(1);
    RedisEvictionPolicy policy = RedisEvictionPolicy.of(APP.reader(), false, InstantSource.system());
    assertThat(policy.check()).isEqualTo(RedisEvictionPolicy.Safety.SAFE);

    APP.reader().getRedisNodes(org.redisson.api.redisnode.RedisNodes.SINGLE).getInstance().setConfig("maxmemory-policy", "allkeys-lru");
    try {
      assertThat(policy.check()).isEqualTo(RedisEvictionPolicy.Safety.EVICTS_BOOKKEEPING);
      assertThat(policy.policies()).containsExactly("allkeys-lru");
    } finally {
      APP.reader().getRedisNodes(org.redisson.api.redisnode.RedisNodes.SINGLE).getInstance().setConfig("maxmemory-policy", "noeviction");
    }
  }

  private static List<String> leftBehind(String pattern) {
    List<String> found = new ArrayList<>();
    APP.reader().getKeys().getKeys(KeysScanOptions.defaults().pattern(pattern)).forEach(found::add);
    return found;
  }

  private static int gauge(String name) {
    Gauge<?> gauge = EXTENSION.getEnvironment().metrics().getGauges().get(name);
    assertThat(gauge).as(name).isNotNull();
    return ((Number) gauge.getValue()).intValue();
  }

  private static long computedAt(String key) {
    return Long.parseLong(APP.meta(key).get("computedAt"));
  }

  private static void register(String key) {
    try (Response response =
        APP.putKey(key, "{\"source\":\"counted\",\"ttl\":\"PT1S\",\"policy\":\"always\"}")) {
      assertThat(response.getStatus()).isIn(200, 201);
    }
    assertThat(APP.get(key)).startsWith("counted-");
  }
}

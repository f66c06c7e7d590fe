package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.redis.RedisDueIndex;
import io.refresher.embedded.EmbeddedRedisCluster;
import io.refresher.refresh.DueIndex;
import io.refresher.testing.ClusterTestRedis;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.redisson.api.RedissonClient;

/**
 * {@code scheduler.dueShards} changed between two starts, and two replicas running with different
 * counts during a rolling change: every key is still refreshed on its cycle, and its due entry is
 * in its shard for the count in use, once. (Before, a shard beyond the new count was never claimed
 * again, and an entry in a shard it no longer belonged to was claimed but never rescheduled: it
 * came back only at the end of each claim lease.)
 */
class DueShardsChangeIT {

  private static final int KEYS = 40;

  @ParameterizedTest(name = "{0} shards, then {1}")
  @CsvSource({"5, 2", "2, 5"})
  void restartWithAnotherShardCount_everyKeyStillRefreshedAndDueInItsShard(int before, int after) throws Exception {
    TestDatabase database = RealServers.newDatabase("due_shards_" + before + "_to_" + after);
    try (TestRedis redis = RealServers.newRedis()) {
      List<String> keys = keys("restart:");
      TestApp first = TestApp.on("due-shards-before", database, redis, "scheduler.dueShards", Integer.toString(before));
      first.extension().before();
      try {
        keys.forEach(key -> register(first, key));
        awaitRefreshedTwice(first, keys);
      } finally {
        first.extension().after();
      }

      TestApp second = TestApp.on("due-shards-after", database, redis, "scheduler.dueShards", Integer.toString(after));
      second.extension().before();
      try {
        awaitRefreshedTwice(second, keys);
        assertEveryKeyDueOnceInItsShard(second, keys, after);

        String deleted = keys.remove(0);
        try (Response response = second.deleteKey(deleted, false)) {
          assertThat(response.getStatus()).isEqualTo(204);
        }
        assertEveryKeyDueOnceInItsShard(second, keys, after);
      } finally {
        second.extension().after();
      }
    }
  }

  /**
   * A replica on the old count keeps running while one on the new count starts, and keys are
   * registered through both meanwhile; then the new one stops. The old one follows the recorded
   * count, so nothing it or the new one wrote is left in a shard it does not claim.
   */
  @Test
  void replicasWithDifferentCountsAtOnce_newOneStops_noKeyStranded() throws Exception {
    TestDatabase database = RealServers.newDatabase("due_shards_rolling");
    try (TestRedis redis = RealServers.newRedis()) {
      List<String> early = keys("early:");
      List<String> late = keys("late:");
      List<String> viaNew = keys("new:");
      TestApp old = TestApp.on("due-shards-old", database, redis, "scheduler.dueShards", "3");
      old.extension().before();
      try {
        early.forEach(key -> register(old, key));
        TestApp fresh = TestApp.replicaOf(old, "due-shards-new", "scheduler.dueShards", "5");
        fresh.extension().before();
        try {
          late.forEach(key -> register(old, key));
          viaNew.forEach(key -> register(fresh, key));
          await("the old replica follows the recorded count")
              .atMost(Duration.ofSeconds(10))
              .until(() -> dueIndex(old).shards() == 5);
        } finally {
          fresh.extension().after();
        }
        List<String> all = new ArrayList<>(early);
        all.addAll(late);
        all.addAll(viaNew);
        awaitRefreshedTwice(old, all);
        assertEveryKeyDueOnceInItsShard(old, all, 5);
      } finally {
        old.extension().after();
      }
    }
  }

  /**
   * On Redis Cluster every shard, its planned-times hash and its marker share a slot of their own,
   * so the move copies between slots with one script per shard: every entry arrives with its time
   * and first planned time.
   */
  @Test
  void onRedisCluster_anotherShardCount_everyEntryMovedAcrossSlotsWithItsTimes() {
    EmbeddedRedisCluster cluster = ClusterTestRedis.startCluster();
    RedissonClient redisson = ClusterTestRedis.of(cluster).connect();
    try {
      RedisDueIndex old = new RedisDueIndex(redisson, 6);
      old.adoptConfiguredLayout();
      for (int i = 0; i < 200; i++) {
        old.schedule("cluster:" + i, 1_000 + i);
      }
      double lease = 90_000 + 7 / 1024.0;
      List<DueIndex.DueKey> claimed = old.claim(1_100, 30, lease);

      RedisDueIndex changed = new RedisDueIndex(redisson, 4);
      assertThat(changed.adoptConfiguredLayout()).isPositive();

      List<String> claimedKeys = claimed.stream().map(DueIndex.DueKey::key).toList();
      for (int i = 0; i < 200; i++) {
        String key = "cluster:" + i;
        assertThat(changed.plannedAt(key)).as(key).hasValue(claimedKeys.contains(key) ? 90_000 : 1_000 + i);
      }
      assertThat(changed.claimedWith(lease)).containsExactlyInAnyOrderElementsOf(claimed);
      assertThat(changed.size()).isEqualTo(200);
      assertThat(redisson.getKeys().countExists("refresher:due:{4}", "refresher:due:{5}")).isZero();
    } finally {
      redisson.shutdown();
    }
  }

  private static List<String> keys(String prefix) {
    List<String> keys = new ArrayList<>(KEYS);
    for (int i = 0; i < KEYS; i++) {
      keys.add(prefix + i);
    }
    return keys;
  }

  /**
   * Half the keys with policy {@code always}, half {@code hot} (in the hot set for the registration
   * grace). Before, the access sampling re-added hot keys to their new shard at its first run after
   * a start (leaving the old entry behind), but {@code always} keys only the reconciler did, every
   * {@code scheduler.reconcileInterval} (5 min by default, 1 h in tests).
   */
  private static void register(TestApp app, String key) {
    String policy = Math.floorMod(key.hashCode(), 2) == 0 ? "always" : "hot";
    try (Response response =
        app.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\",\"policy\":\"" + policy + "\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
  }

  /** Every key gets two new fence tokens (TTL 2 s, TTR 0.5 s: a refresh every 1.5 s). */
  private static void awaitRefreshedTwice(TestApp app, List<String> keys) {
    Map<String, Set<String>> tokens = new HashMap<>();
    keys.forEach(key -> tokens.put(key, new HashSet<>(Set.of(String.valueOf(app.meta(key).get("token"))))));
    // Generous: twice per key takes 3 s here, but this lane runs at the lowest CPU priority, and
    // beside a busy timed lane a run took over 25 s (a liveness check, not a bound of the service).
    await("every key refreshed twice")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              for (String key : keys) {
                tokens.get(key).add(String.valueOf(app.meta(key).get("token")));
              }
              return tokens.values().stream().allMatch(seen -> seen.size() >= 3);
            });
  }

  private static void assertEveryKeyDueOnceInItsShard(TestApp app, List<String> keys, int shards) {
    RedisDueIndex index = dueIndex(app);
    assertThat(index.shards()).isEqualTo(shards);
    for (String key : keys) {
      assertThat(index.plannedAt(key)).as("due entry of %s in its shard of %d", key, shards).isPresent();
    }
    long entries = 0;
    for (int shard = 0; shard < 256; shard++) {
      entries += app.reader().getScoredSortedSet("refresher:due:{" + shard + "}").size();
    }
    assertThat(entries).as("due entries in every shard there is: one per key").isEqualTo(keys.size());
  }

  private static RedisDueIndex dueIndex(TestApp app) {
    return app.parts().dueIndex();
  }
}

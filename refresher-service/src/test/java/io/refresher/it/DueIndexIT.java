package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.cache.RedisDueIndex;
import io.refresher.refresh.DueIndex;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The due index's claim, lease and repair semantics on a real Redis. */
class DueIndexIT {

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisDueIndex index;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
    index = new RedisDueIndex(redisson, 3);
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @BeforeEach
  void clear() {
    redisson.getKeys().flushdb();
  }

  @Test
  void claim_dueKeys_returnsEarliestFirstAndLeasesThem() {
    index.schedule("a", 1_000);
    index.schedule("b", 500);
    index.schedule("c", 5_000);

    List<DueIndex.DueKey> claimed = index.claim(2_000, 10, 60_000);

    assertThat(claimed).containsExactly(new DueIndex.DueKey("b", 500), new DueIndex.DueKey("a", 1_000));
    assertThat(index.plannedAt("a")).hasValue(60_000);
    assertThat(index.claim(2_000, 10, 70_000)).as("leased keys are not handed out twice").isEmpty();
    assertThat(index.claim(60_000, 10, 70_000))
        .as("leases run out")
        .extracting(DueIndex.DueKey::key)
        .containsExactly("c", "a", "b");
  }

  @Test
  void claim_limit_boundsTheBatch() {
    for (int i = 0; i < 30; i++) {
      index.schedule("k" + i, i);
    }
    List<DueIndex.DueKey> claimed = index.claim(1_000, 9, 60_000);
    assertThat(claimed).hasSizeLessThanOrEqualTo(9).isNotEmpty();
    assertThat(index.size()).isEqualTo(30);
  }

  @Test
  void reschedule_removedKey_staysRemoved() {
    index.schedule("kept", 100);
    index.schedule("deleted", 100);
    index.remove(List.of("deleted"));

    index.reschedule(Map.of("kept", 9_000L, "deleted", 9_000L));

    assertThat(index.plannedAt("kept")).hasValue(9_000);
    assertThat(index.plannedAt("deleted")).isEmpty();
  }

  @Test
  void addMissing_existingKeys_leavesTheirTimeAlone() {
    index.schedule("present", 7_000);

    int added = index.addMissing(List.of("present", "missing-1", "missing-2"), 100);

    assertThat(added).isEqualTo(2);
    assertThat(index.plannedAt("present")).hasValue(7_000);
    assertThat(index.plannedAt("missing-1")).hasValue(100);
    assertThat(index.size()).isEqualTo(3);
  }
}

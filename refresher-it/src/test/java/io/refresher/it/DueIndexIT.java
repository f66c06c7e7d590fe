package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.redis.RedisDueIndex;
import io.refresher.refresh.DueIndex;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** The due index's claim, lease, repair and shard-count change semantics on a real Redis. */
class DueIndexIT {

  private static TestRedis redis;
  private static RedissonClient redisson;
  private RedisDueIndex index;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @BeforeEach
  void clear() {
    redisson.getKeys().flushdb();
    index = new RedisDueIndex(redisson, 3);
    index.adoptConfiguredLayout();
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

  @Test
  void claimWithLeaseScore_claimedAgainAfterTheLease_reportsTheFirstPlannedTime() {
    index.schedule("k", 1_000);

    List<DueIndex.DueKey> first = index.claim(2_000, 10, 5_000 + 7 / 1024.0);
    List<DueIndex.DueKey> again = index.claim(6_000, 10, 9_000 + 3 / 1024.0);

    assertThat(first).containsExactly(new DueIndex.DueKey("k", 1_000));
    assertThat(again).as("lag is measured from the plan, not from the lease").containsExactly(new DueIndex.DueKey("k", 1_000));
  }

  @Test
  void claimWithLeaseScore_rescheduledKey_startsANewPlan() {
    index.schedule("k", 1_000);
    index.claim(2_000, 10, 5_000.5);

    index.reschedule(Map.of("k", 20_000L));

    assertThat(index.claim(30_000, 10, 40_000.5)).containsExactly(new DueIndex.DueKey("k", 20_000));
  }

  @Test
  void renew_keepsOnlyClaimsStillHeld() {
    index.schedule("mine", 100);
    index.schedule("taken", 100);
    index.schedule("rescheduled", 100);
    double score = 5_000 + 11 / 1024.0;
    assertThat(index.claim(1_000, 10, score)).hasSize(3);
    index.schedule("taken", 9_000); // as if another replica claimed it after the lease ran out
    index.reschedule(Map.of("rescheduled", 50_000L));

    java.util.Set<String> lost = index.renew(Map.of("mine", score, "taken", score, "rescheduled", score), 8_000 + 5 / 1024.0);

    assertThat(lost).containsExactlyInAnyOrder("taken", "rescheduled");
    assertThat(index.plannedAt("mine")).hasValue(8_000);
    assertThat(index.plannedAt("taken")).hasValue(9_000);
    assertThat(index.plannedAt("rescheduled")).hasValue(50_000);
  }

  @Test
  void claimedWith_findsExactlyTheKeysOfOneClaim() {
    for (int i = 0; i < 6; i++) {
      index.schedule("k" + i, i);
    }
    double lost = 5_000 + 100 / 1024.0;
    List<String> taken = index.claim(1_000, 3, lost).stream().map(DueIndex.DueKey::key).toList();
    index.claim(1_000, 10, 5_000 + 101 / 1024.0);

    assertThat(index.claimedWith(lost)).extracting(DueIndex.DueKey::key).containsExactlyInAnyOrderElementsOf(taken);
  }

  @Test
  void scheduleEarliest_movesOnlyToAnEarlierTime_addsMissing() {
    index.schedule("later", 9_000);
    index.schedule("earlier", 100);

    index.scheduleEarliest(Map.of("later", 1_000.0, "earlier", 1_000.0, "missing", 1_000.0));

    assertThat(index.plannedAt("later")).hasValue(1_000);
    assertThat(index.plannedAt("earlier")).hasValue(100);
    assertThat(index.plannedAt("missing")).hasValue(1_000);
  }

  @Test
  void scheduleIfMissing_eachAtItsOwnTime_existingUntouched() {
    index.schedule("present", 9_000);

    index.scheduleIfMissing(Map.of("present", 1.0, "a", 2_000.0, "b", 3_000.0));

    assertThat(index.plannedAt("present")).hasValue(9_000);
    assertThat(index.plannedAt("a")).hasValue(2_000);
    assertThat(index.plannedAt("b")).hasValue(3_000);
  }

  @Test
  void claim_afterRedisRestartedEmptyOnTheSameAddress_stillWorks() {
    org.assertj.core.api.Assumptions.assumeThat(redis.supportsProcessFaults()).isTrue();
    index.schedule("before", 100);
    assertThat(index.claim(1_000, 10, 5_000.5)).hasSize(1); // the scripts are now in Redisson's cache

    redis.killAndRestartEmpty();

    // The client reconnects by itself; until then claims fail as unavailable. What must not stay is
    // NOSCRIPT: Redisson believing the new, empty server has the scripts.
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(() -> {
          index.schedule("after", 100);
          return index.claim(1_000, 10, 6_000.5).size() == 1;
        });
    assertThat(index.renew(Map.of("after", 6_000.5), 7_000.5)).isEmpty();
  }

  @Test
  void everyBatchedScript_afterRedisLostItsScriptCache_stillWorks() {
    index.schedule("k", 100);
    assertThat(index.claim(1_000, 10, 5_000.5)).hasSize(1); // Redisson now believes Redis has the scripts
    index.renew(Map.of("k", 5_000.5), 5_500.5);
    index.claimedWith(5_500.5);
    index.scheduleEarliest(Map.of("other", 1.0));

    redisson.getScript().scriptFlush(); // as after a failover to a node that never loaded them

    index.reschedule(Map.of("k", 100L));
    assertThat(index.claim(1_000, 10, 6_000.5)).extracting(DueIndex.DueKey::key).containsExactlyInAnyOrder("k", "other");
    redisson.getScript().scriptFlush();
    assertThat(index.renew(Map.of("k", 6_000.5), 7_000.5)).isEmpty();
    redisson.getScript().scriptFlush();
    assertThat(index.claimedWith(7_000.5)).extracting(DueIndex.DueKey::key).contains("k");
    redisson.getScript().scriptFlush();
    assertThat(index.scheduleIfMissing(Map.of("new", 1.0))).isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------
  // A change of scheduler.dueShards: entries move to their shard for the new count.

  @ParameterizedTest(name = "{0} shards, then {1}")
  @CsvSource({"5, 2", "2, 7", "3, 3"})
  void adoptConfiguredLayout_anotherCount_everyEntryMovedWithItsTimeAndFirstPlannedTime(int before, int after) {
    RedisDueIndex old = new RedisDueIndex(redisson, before);
    old.adoptConfiguredLayout();
    Map<String, Long> due = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      old.schedule("k" + i, 1_000 + i);
      due.put("k" + i, 1_000L + i);
    }
    double lease = 90_000 + 5 / 1024.0;
    List<DueIndex.DueKey> claimed = old.claim(1_050, 40, lease);
    assertThat(claimed).isNotEmpty();

    RedisDueIndex changed = new RedisDueIndex(redisson, after);
    long moved = changed.adoptConfiguredLayout();

    assertThat(changed.shards()).isEqualTo(after);
    List<String> claimedKeys = claimed.stream().map(DueIndex.DueKey::key).toList();
    for (Map.Entry<String, Long> entry : due.entrySet()) {
      long expected = claimedKeys.contains(entry.getKey()) ? 90_000 : entry.getValue();
      assertThat(changed.plannedAt(entry.getKey())).as(entry.getKey()).hasValue(expected);
    }
    assertThat(changed.claimedWith(lease))
        .as("claimed keys keep their lease score and their first planned time")
        .containsExactlyInAnyOrderElementsOf(claimed);
    assertThat(entriesInEveryShard()).isEqualTo(300);
    for (int shard = after; shard < 256; shard++) {
      assertThat(redisson.getKeys().countExists("refresher:due:{" + shard + "}", "refresher:due:{" + shard + "}:planned"))
          .as("shard %d is gone", shard)
          .isZero();
    }
    if (before == after) {
      assertThat(moved).isZero();
    } else {
      long misplaced = due.keySet().stream().filter(key -> Math.floorMod(key.hashCode(), before) != Math.floorMod(key.hashCode(), after)).count();
      assertThat(moved).isEqualTo(misplaced);
    }
    assertThat(redisson.getBucket("refresher:due:{0}:shards", StringCodec.INSTANCE).get()).isEqualTo(Integer.toString(after));
  }

  @Test
  void writesOfAReplicaStillOnTheOldCount_refusedAndRedoneWithTheRecordedCount() {
    new RedisDueIndex(redisson, 5).adoptConfiguredLayout();
    new RedisDueIndex(redisson, 5).schedule("rescheduled", 100);
    new RedisDueIndex(redisson, 5).schedule("removed", 100);
    RedisDueIndex current = new RedisDueIndex(redisson, 2);
    current.adoptConfiguredLayout();

    RedisDueIndex stale = new RedisDueIndex(redisson, 5);
    stale.schedule("scheduled", 300);
    assertThat(stale.shards()).as("followed the recorded count").isEqualTo(2);
    new RedisDueIndex(redisson, 5).reschedule(Map.of("rescheduled", 700L));
    new RedisDueIndex(redisson, 5).remove(List.of("removed"));
    assertThat(new RedisDueIndex(redisson, 5).addMissing(List.of("added"), 900)).isEqualTo(1);
    new RedisDueIndex(redisson, 5).scheduleEarliest(Map.of("earliest", 1_100.0));

    assertThat(current.plannedAt("scheduled")).hasValue(300);
    assertThat(current.plannedAt("rescheduled")).hasValue(700);
    assertThat(current.plannedAt("removed")).isEmpty();
    assertThat(current.plannedAt("added")).hasValue(900);
    assertThat(current.plannedAt("earliest")).hasValue(1_100);
    assertThat(entriesInEveryShard()).isEqualTo(4);
  }

  @Test
  void claim_countRecordedByAnotherReplica_followedFromThatClaim() {
    RedisDueIndex stale = new RedisDueIndex(redisson, 5);
    new RedisDueIndex(redisson, 2).adoptConfiguredLayout();

    stale.claim(1_000, 10, 5_000.5);

    assertThat(stale.shards()).isEqualTo(2);
  }

  @Test
  void claim_recordLostWithEntriesOfAnotherCount_recordsItsCountAndMovesThem() {
    redisson.getKeys().flushdb(); // no record: as Redis after a data loss, or before the record existed
    RedisDueIndex unrecorded = new RedisDueIndex(redisson, 5);
    IntStream.range(0, 100).forEach(i -> unrecorded.schedule("k" + i, 1_000 + i));
    RedisDueIndex running = new RedisDueIndex(redisson, 2);

    running.claim(0, 10, 5_000.5);

    awaitEveryKeyDueIn(running, 100);
    assertThat(redisson.getBucket("refresher:due:{0}:shards", StringCodec.INSTANCE).get()).isEqualTo("2");
  }

  @Test
  void claim_moveLeftUnfinished_completedByTheNextReplicaThatClaims() {
    // As if the replica moving entries to 2 shards died after recording its intent: the markers
    // say 2, some entries are still placed for 5.
    redisson.getKeys().flushdb();
    RedisDueIndex unrecorded = new RedisDueIndex(redisson, 5);
    IntStream.range(0, 100).forEach(i -> unrecorded.schedule("k" + i, 1_000 + i));
    redisson.getBucket("refresher:due:shards:pending", StringCodec.INSTANCE).set("2");
    for (int shard = 0; shard < 256; shard++) {
      redisson.getBucket("refresher:due:{" + shard + "}:shards", StringCodec.INSTANCE).set("2");
    }
    RedisDueIndex running = new RedisDueIndex(redisson, 2);

    running.claim(0, 10, 5_000.5);

    awaitEveryKeyDueIn(running, 100);
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !redisson.getBucket("refresher:due:shards:pending").isExists());
  }

  private static void awaitEveryKeyDueIn(RedisDueIndex index, int keys) {
    org.awaitility.Awaitility.await("every entry moved to its shard")
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> IntStream.range(0, keys).allMatch(i -> index.plannedAt("k" + i).equals(java.util.OptionalLong.of(1_000 + i)))
                && entriesInEveryShard() == keys);
  }

  private static long entriesInEveryShard() {
    List<String> shards = new ArrayList<>();
    for (int shard = 0; shard < 256; shard++) {
      shards.add("refresher:due:{" + shard + "}");
    }
    long total = 0;
    for (String shard : shards) {
      total += redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).size();
    }
    return total;
  }
}

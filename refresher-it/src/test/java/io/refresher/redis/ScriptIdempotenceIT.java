package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Each script that Redisson may send twice (see {@code RedissonResendIT}), run twice with the same
 * arguments on a real Redis, as a resend after a late reply runs it: the second run must answer
 * as the first did and leave Redis as the first left it. Before these scripts carried their own
 * idempotence, a claim run twice answered none of the keys it took (they then waited out the claim
 * lease), a renewal reported every key lost, a lock answered "held" to its own owner, a write added
 * its compute duration twice and a failure counted twice. The retirement is sent without resend
 * instead ({@link RedisScripts}); the table is in {@code docs/protocol.md}, "Script idempotence".
 */
class ScriptIdempotenceIT {

  private static TestRedis redis;
  private static RedissonClient redisson;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    redisson = redis.connect();
  }

  @AfterAll
  static void stop() {
    if (redisson != null) {
      redisson.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void empty() {
    redisson.getKeys().flushall();
  }

  @Test
  void claim_runTwiceWithTheSameLeaseScore_answersTheKeysTheFirstRunTook() {
    String shard = RedisDueIndex.shardKey(0);
    redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).addAll(Map.of("a", 1000.0, "b", 2000.0, "c", 3000.0));
    List<Object> args = List.of("5000", "2", "90000.5");

    List<Object> first = run(RedisDueIndex.CLAIM_TAGGED, List.of(shard, RedisDueIndex.plannedKey(0)), args);
    List<Object> second = run(RedisDueIndex.CLAIM_TAGGED, List.of(shard, RedisDueIndex.plannedKey(0)), args);

    assertThat(first).containsExactly("a", "1000", "b", "2000");
    assertThat(second).isEqualTo(first);
    // The key the claim did not take is still due for the next claim.
    assertThat(redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).getScore("c")).isEqualTo(3000.0);
  }

  @Test
  void claim_ofAnotherScore_takesOtherKeys() {
    String shard = RedisDueIndex.shardKey(0);
    redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).addAll(Map.of("a", 1000.0, "b", 2000.0));
    List<Object> keys = List.of(shard, RedisDueIndex.plannedKey(0));

    List<Object> first = run(RedisDueIndex.CLAIM_TAGGED, keys, List.of("5000", "1", "90000.5"));
    List<Object> next = run(RedisDueIndex.CLAIM_TAGGED, keys, List.of("5000", "1", "90000.25"));

    assertThat(first).containsExactly("a", "1000");
    assertThat(next).containsExactly("b", "2000");
  }

  @Test
  void renew_runTwice_answersNoKeyLost() {
    String shard = RedisDueIndex.shardKey(0);
    redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).addAll(Map.of("a", 90000.5, "b", 90000.5));
    List<Object> args = List.of("120000.75", "a", "90000.5", "b", "90000.5");

    List<Object> first = run(RedisDueIndex.RENEW, List.of(shard), args);
    List<Object> second = run(RedisDueIndex.RENEW, List.of(shard), args);

    assertThat(first).isEmpty();
    assertThat(second).isEmpty();
    assertThat(redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).getScore("a")).isEqualTo(120000.75);
  }

  @Test
  void renew_ofAKeyTakenOver_answersItLost() {
    String shard = RedisDueIndex.shardKey(0);
    redisson.getScoredSortedSet(shard, StringCodec.INSTANCE).add(95000.25, "a");

    assertThat(run(RedisDueIndex.RENEW, List.of(shard), List.of("120000.75", "a", "90000.5"))).containsExactly("a");
  }

  @Test
  void acquire_runTwiceForTheSameOwner_answersTheSameToken() {
    List<Object> keys = List.of("lock:k", "counter:k");
    List<Object> args = List.of("30000", "owner-1", "");

    List<Object> first = run(RedisKeyLocks.ACQUIRE, keys, args);
    List<Object> second = run(RedisKeyLocks.ACQUIRE, keys, args);

    assertThat(first).containsExactly(1L);
    assertThat(second).isEqualTo(first);
    // Another owner still finds it held.
    assertThat(run(RedisKeyLocks.ACQUIRE, keys, List.of("30000", "owner-2", ""))).containsExactly(-1L);
  }

  @Test
  void write_runTwice_answersWrittenAndRecordsOneComputation() {
    List<Object> keys = List.of("k", "meta:k", "counter:k", "lock:k");
    redisson.getMap("lock:k", StringCodec.INSTANCE).put("owner-1", "1");
    List<Object> args =
        List.of("v1", "60000", "1", "7", "1000000", "40", "1060000", "8", "0", "60000", "owner-1", "w", "");

    List<Object> first = run(RedisCacheStore.WRITE, keys, args);
    Map<Object, Object> afterFirst = redisson.getMap("meta:k", StringCodec.INSTANCE).readAllMap();
    List<Object> second = run(RedisCacheStore.WRITE, keys, args);

    assertThat(first).containsExactly(1L, 0L, "40");
    assertThat(second).isEqualTo(first);
    assertThat(redisson.getMap("meta:k", StringCodec.INSTANCE).readAllMap()).isEqualTo(afterFirst);
    assertThat(redisson.getBucket("k", StringCodec.INSTANCE).get()).isEqualTo("v1");
  }

  @Test
  void write_ofANewComputationUnderTheSameFence_addsItsDuration() {
    List<Object> keys = List.of("k", "meta:k", "counter:k", "lock:k");
    run(RedisCacheStore.WRITE, keys, List.of("v1", "60000", "1", "7", "1000000", "40", "1060000", "8", "0", "60000", "", "w", ""));

    List<Object> next =
        run(RedisCacheStore.WRITE, keys, List.of("v2", "60000", "1", "7", "1000500", "30", "1060500", "8", "0", "60000", "", "w", ""));

    assertThat(next).containsExactly(1L, 0L, "40,30");
  }

  @Test
  void recordFailure_runTwice_countsOnce() {
    List<Object> keys = List.of("meta:k", "counter:k");
    List<Object> args = List.of("1", "7", "source", "timed out", "1000000", "60000", "60000");

    Object first = redisson.getScript(StringCodec.INSTANCE).eval("meta:k", RScript.Mode.READ_WRITE, RedisCacheStore.RECORD_FAILURE, RScript.ReturnType.INTEGER, keys, args.toArray());
    Object second = redisson.getScript(StringCodec.INSTANCE).eval("meta:k", RScript.Mode.READ_WRITE, RedisCacheStore.RECORD_FAILURE, RScript.ReturnType.INTEGER, keys, args.toArray());

    assertThat(first).isEqualTo(1L);
    assertThat(second).isEqualTo(1L);
    assertThat(redisson.getMap("meta:k", StringCodec.INSTANCE).get("failures")).isEqualTo("1");
  }

  @Test
  void supersede_runTwice_leavesWhatTheFirstLeft() {
    List<Object> keys = List.of("k", "meta:k", "counter:k");
    List<Object> args = List.of("5", "0", "60000", "60000", "supersede");
    redisson.getMap("meta:k", StringCodec.INSTANCE).putAll(Map.of("generation", "4", "epoch", "1", "token", "3"));

    eval(RedisCacheStore.MARK_GENERATION, keys, args);
    Map<Object, Object> afterFirst = redisson.getMap("meta:k", StringCodec.INSTANCE).readAllMap();
    eval(RedisCacheStore.MARK_GENERATION, keys, args);

    assertThat(afterFirst).containsEntry("generation", "5");
    assertThat(redisson.getMap("meta:k", StringCodec.INSTANCE).readAllMap()).isEqualTo(afterFirst);
  }

  private static List<Object> run(String script, List<Object> keys, List<Object> args) {
    List<?> reply =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(String.valueOf(keys.get(0)), RScript.Mode.READ_WRITE, script, RScript.ReturnType.MULTI, keys, args.toArray());
    return new ArrayList<>(reply);
  }

  private static void eval(String script, List<Object> keys, List<Object> args) {
    redisson
        .getScript(StringCodec.INSTANCE)
        .eval(String.valueOf(keys.get(0)), RScript.Mode.READ_WRITE, script, RScript.ReturnType.INTEGER, keys, args.toArray());
  }
}

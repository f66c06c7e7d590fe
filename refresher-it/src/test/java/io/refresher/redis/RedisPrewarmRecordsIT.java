package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jackson.Jackson;
import io.refresher.prewarm.PrewarmStatus;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The shared prewarm record on a real Redis is fenced by epoch, leader and start (issue 18,
 * point 2): an older epoch's running record never refuses a newer epoch's refill, and a leader
 * that is no longer current never rewrites the record of the one that is. Both scripts may run
 * twice (a resend after a late reply) with the same answer.
 */
class RedisPrewarmRecordsIT {

  private static final long STALE_AFTER = 15_000;
  private static final ObjectMapper JSON = Jackson.newObjectMapper();

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisPrewarmRecords records;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(redis.url());
    redisson = Redisson.create(config);
    records = new RedisPrewarmRecords(redisson, JSON);
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  @BeforeEach
  void empty() {
    redisson.getKeys().delete(RedisPrewarmRecords.KEY);
  }

  @Test
  void tryStart_olderEpochRunningWithFreshHeartbeat_newerEpochStarts() {
    Instant now = Instant.now();
    assertThat(records.tryStart(running("a", 5, now, now), STALE_AFTER)).isTrue();

    assertThat(records.tryStart(running("b", 6, now.plusMillis(10), now.plusMillis(10)), STALE_AFTER))
        .as("a newer epoch's refill is not refused by an older epoch's record")
        .isTrue();
    assertThat(records.load().orElseThrow().leader()).isEqualTo("b");
  }

  @Test
  void tryStart_sameEpochRunningUnderAnotherLeader_refused_untilItsHeartbeatIsStale() {
    Instant now = Instant.now();
    assertThat(records.tryStart(running("a", 5, now, now), STALE_AFTER)).isTrue();

    assertThat(records.tryStart(running("b", 5, now.plusMillis(10), now.plusMillis(10)), STALE_AFTER)).isFalse();
    Instant later = now.plusMillis(STALE_AFTER + 1);
    assertThat(records.tryStart(running("b", 5, later, later), STALE_AFTER)).as("a leader that stopped sending heartbeats").isTrue();
  }

  @Test
  void tryStart_newerEpochsRecord_olderEpochRefused() {
    Instant now = Instant.now();
    assertThat(records.tryStart(finished("b", 6, now, now), STALE_AFTER)).isTrue();

    assertThat(records.tryStart(running("a", 5, now.plusMillis(10), now.plusMillis(10)), STALE_AFTER)).isFalse();
    assertThat(records.load().orElseThrow().epoch()).isEqualTo(6);
  }

  @Test
  void save_newerEpochTookOver_refused_recordKept() {
    Instant now = Instant.now();
    records.tryStart(running("a", 5, now, now), STALE_AFTER);
    records.tryStart(running("b", 6, now.plusMillis(5), now.plusMillis(5)), STALE_AFTER);

    assertThat(records.save(running("a", 5, now, now.plusMillis(500)))).as("the old epoch's leader").isFalse();
    assertThat(records.save(finished("a", 5, now, now.plusMillis(600)))).isFalse();
    PrewarmStatus stored = records.load().orElseThrow();
    assertThat(stored.leader()).isEqualTo("b");
    assertThat(stored.running()).isTrue();
  }

  @Test
  void save_olderStartOfTheSameLeader_refused() {
    Instant first = Instant.now();
    Instant second = first.plusMillis(100);
    records.tryStart(running("a", 5, first, first), STALE_AFTER);
    records.tryStart(running("a", 5, second, second), STALE_AFTER);

    assertThat(records.save(running("a", 5, first, second.plusMillis(500)))).isFalse();
    assertThat(records.save(running("a", 5, second, second.plusMillis(500)))).isTrue();
    assertThat(records.load().orElseThrow().startedAt()).isEqualTo(second);
  }

  @Test
  void save_recordLostWithRedisData_refused_nothingWritten() {
    Instant now = Instant.now();
    records.tryStart(running("a", 5, now, now), STALE_AFTER);
    redisson.getKeys().delete(RedisPrewarmRecords.KEY);

    assertThat(records.save(running("a", 5, now, now.plusMillis(500)))).isFalse();
    assertThat(redisson.getKeys().countExists(RedisPrewarmRecords.KEY)).isZero();
  }

  @Test
  void tryStartAndSave_sentTwice_sameAnswer_skippedCountsKept() {
    Instant now = Instant.now();
    PrewarmStatus start = running("a", 5, now, now);
    assertThat(records.tryStart(start, STALE_AFTER)).isTrue();
    assertThat(records.tryStart(start, STALE_AFTER)).as("the same start, resent").isTrue();

    PrewarmStatus progress =
        new PrewarmStatus(PrewarmStatus.RUNNING, "data-loss", 5, 10, 4, 0, 3, Map.of(PrewarmStatus.NOT_COVERED, 3L), 3, 10, 2.0,
            Map.of("default", 20), now, null, now, now.plusMillis(500), "a");
    assertThat(records.save(progress)).isTrue();
    assertThat(records.save(progress)).as("the same save, resent").isTrue();
    PrewarmStatus stored = records.load().orElseThrow();
    assertThat(stored.skipped()).isEqualTo(3);
    assertThat(stored.skippedByReason()).containsExactly(Map.entry(PrewarmStatus.NOT_COVERED, 3L));
  }

  @Test
  void load_recordOfAnOlderVersion_readWithNoSkipped() {
    redisson.<String, String>getMap(RedisPrewarmRecords.KEY, StringCodec.INSTANCE)
        .put("status",
            "{\"state\":\"finished\",\"trigger\":\"manual\",\"epoch\":3,\"total\":2,\"done\":2,\"failed\":0,\"left\":0,"
                + "\"hotKeys\":0,\"keysPerSecond\":0.0,\"queriesPerSecondBound\":{},\"startedAt\":\"2026-12-01T10:00:00Z\","
                + "\"finishedAt\":\"2026-12-01T10:00:01Z\",\"estimatedEndAt\":null,\"updatedAt\":\"2026-12-01T10:00:01Z\",\"leader\":\"a\"}");

    PrewarmStatus stored = records.load().orElseThrow();

    assertThat(stored.done()).isEqualTo(2);
    assertThat(stored.skipped()).isZero();
    assertThat(stored.skippedByReason()).isEmpty();
  }

  private static PrewarmStatus running(String leader, long epoch, Instant startedAt, Instant updatedAt) {
    return status(PrewarmStatus.RUNNING, leader, epoch, startedAt, updatedAt);
  }

  private static PrewarmStatus finished(String leader, long epoch, Instant startedAt, Instant updatedAt) {
    return status(PrewarmStatus.FINISHED, leader, epoch, startedAt, updatedAt);
  }

  private static PrewarmStatus status(String state, String leader, long epoch, Instant startedAt, Instant updatedAt) {
    return new PrewarmStatus(state, "data-loss", epoch, 10, 0, 0, 0, Map.of(), 10, 10, 0, Map.of("default", 20), startedAt,
        PrewarmStatus.FINISHED.equals(state) ? updatedAt : null, updatedAt, updatedAt, leader);
  }
}

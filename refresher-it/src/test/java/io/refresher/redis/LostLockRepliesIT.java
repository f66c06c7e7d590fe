package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.refresher.client.protocol.CacheKeys;
import io.refresher.refresh.CacheStore;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.Fence;
import io.refresher.refresh.KeyLocks;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Lock calls whose reply was lost, on a real Redis that is killed under them: none may leave a key
 * locked for a whole lease by an owner that gave up on it, since every refresh of that key would
 * be skipped as locked until the lease ends (30 s in production; a key with a shorter TTL expires
 * meanwhile). {@code RedisStallIT} once saw every key fresh 30.2 s after a 15 s freeze, on a machine
 * starved of CPU: an acquisition that ran after the release meant to undo it had found the lock
 * free, and the owner was no longer suspected.
 */
class LostLockRepliesIT {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private static TestRedis redis;
  private static RedissonClient redisson;
  private static RedisCacheStore store;
  private static RedisKeyLocks locks;

  @BeforeAll
  static void start() {
    redis = RealServers.newPersistentRedis();
    // Calls fail fast while Redis is down, and are never retried by the client.
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(redis.url()).setTimeout(300).setRetryAttempts(0);
    redisson = Redisson.create(config);
    store = new RedisCacheStore(redisson);
    locks = new RedisKeyLocks(redisson);
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
  void needsProcessFaults() {
    assumeThat(redis.supportsProcessFaults()).as("needs an embedded Redis to kill").isTrue();
  }

  @AfterEach
  void running() {
    if (redis.supportsProcessFaults() && !answers()) {
      redis.startAgainEmpty();
    }
  }

  @Test
  void anAcquisitionThatRunsAfterTheReleaseMeantToUndoIt_isStillReleased() {
    String key = "lost:acquire";
    redis.killProcess();
    assertThatThrownBy(() -> locks.tryAcquire(key, LEASE)).isInstanceOf(CacheUnavailableException.class);
    String owner = locks.suspectedOwner(key).orElseThrow();
    redis.startAgainEmpty();
    // A first release round, answered: the lock is free, the lost acquisition has not run yet.
    await("a release round answered")
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .until(() -> locks.releaseSuspects(System.currentTimeMillis()).join() == null);
    assertThat(lockHeld(key)).as("lock before the lost call runs").isFalse();

    // The lost call runs only now, as a client starved of CPU writes a command to the wire after
    // its caller gave up on it.
    runAcquisition(key, owner);
    assertThat(lockHeld(key)).as("lock after the lost call ran").isTrue();

    await("the suspect's lock released")
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              locks.releaseSuspects(System.currentTimeMillis()).join();
              return !lockHeld(key);
            });
    assertThat(locks.releasedSuspects()).isEqualTo(1);
    assertThat(locks.suspectedOwner(key)).as("suspect once its lock was released").isEmpty();
    assertThat(locks.tryAcquire(key, LEASE)).as("the key's next refresh gets the lock").isPresent();
  }

  @Test
  void aReleaseWhoseReplyWasLost_doesNotLockOutTheKeysRetry() {
    String key = "lost:release";
    KeyLocks.HeldLock held = locks.tryAcquire(key, LEASE).orElseThrow();
    redis.saveAndKill();
    held.release();
    await("the release failed").atMost(Duration.ofSeconds(10)).until(() -> locks.suspectedOwner(key).isPresent());
    redis.startAgainWithData();
    await("Redis answers").atMost(Duration.ofSeconds(20)).until(LostLockRepliesIT::answers);
    assertThat(lockHeld(key)).as("the lock the release never reached").isTrue();

    assertThat(locks.tryAcquire(key, LEASE)).as("the key's retry gets the lock").isPresent();
  }

  @Test
  void aWriteWhoseReplyWasLost_doesNotLockOutTheKeysRetry() {
    String key = "lost:write";
    KeyLocks.HeldLock held = locks.tryAcquire(key, LEASE).orElseThrow();
    redis.saveAndKill();
    Instant now = Instant.now();
    assertThatThrownBy(
            () ->
                store.write(
                    key,
                    "v",
                    new Fence(1, held.token()),
                    0,
                    new CacheStore.ValueMeta(now, Duration.ofMillis(3), now.plusSeconds(30)),
                    Duration.ofMinutes(1),
                    20,
                    held))
        .isInstanceOf(CacheUnavailableException.class);
    held.release(); // what the refresher does after any outcome: nothing to send after a write
    redis.startAgainWithData();
    await("Redis answers").atMost(Duration.ofSeconds(20)).until(LostLockRepliesIT::answers);
    assertThat(lockHeld(key)).as("the lock the write never released").isTrue();

    assertThat(locks.tryAcquire(key, LEASE)).as("the key's retry gets the lock").isPresent();
    assertThat(locks.suspectedOwner(key)).as("still suspected: its lost call could run yet").isPresent();
  }

  /** Runs the acquisition script for {@code owner}, exactly as the lost call would. */
  private static void runAcquisition(String key, String owner) {
    List<Object> tokens =
        redisson
            .getScript(StringCodec.INSTANCE)
            .eval(
                RScript.Mode.READ_WRITE,
                RedisKeyLocks.ACQUIRE,
                RScript.ReturnType.MULTI,
                List.of(CacheKeys.lockName(key), RedisKeyLocks.tokenCounterName(key)),
                Long.toString(LEASE.toMillis()),
                owner,
                "");
    assertThat(((Number) tokens.get(0)).longValue()).as("token of the late acquisition").isPositive();
  }

  private static boolean lockHeld(String key) {
    return redisson.getKeys().countExists(CacheKeys.lockName(key)) == 1;
  }

  private static boolean answers() {
    try {
      redisson.getKeys().countExists("lost:ping");
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}

package io.refresher.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The process faults of {@link TestRedis}, seen by a plain Redisson client with a 500 ms command
 * timeout and no retries, as the service's Redis clients would see them.
 */
class RedisProcessFaultsIT {

  private static final Duration RECOVERY = Duration.ofSeconds(10);

  private static TestRedis redis;
  private static TestRedis persistentRedis;
  private static RedissonClient client;
  private static RedissonClient persistentClient;

  @BeforeAll
  static void startRedis() {
    redis = RealServers.newRedis();
    persistentRedis = RealServers.newPersistentRedis();
    client = connect(redis);
    persistentClient = connect(persistentRedis);
  }

  @AfterAll
  static void stopRedis() {
    client.shutdown();
    persistentClient.shutdown();
    redis.close();
    persistentRedis.close();
  }

  @BeforeEach
  void needsProcessFaults() {
    assumeTrue(redis.supportsProcessFaults(), "this backend's Redis cannot be killed, frozen or restarted");
  }

  private static RedissonClient connect(TestRedis target) {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config
        .useSingleServer()
        .setAddress(target.url())
        .setTimeout(500)
        .setRetryAttempts(0)
        .setConnectionPoolSize(2)
        .setConnectionMinimumIdleSize(1);
    return Redisson.create(config);
  }

  @Test
  void killAndRestartEmpty_theKeyIsGoneAndTheSameClientWorksAgain() {
    client.<String>getBucket("faults:kill").set("before");

    redis.killAndRestartEmpty();

    await()
        .atMost(RECOVERY)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(client.<String>getBucket("faults:kill").get()).isNull());
    client.<String>getBucket("faults:kill").set("after");
    assertThat(client.<String>getBucket("faults:kill").get()).isEqualTo("after");
  }

  @Test
  void frozen_commandsTimeOut_thawed_theSameClientWorksAndTheDataIsThere() {
    client.<String>getBucket("faults:freeze").set("kept");

    redis.freeze();
    try {
      long started = System.nanoTime();
      assertThatThrownBy(() -> client.<String>getBucket("faults:freeze").get())
          .isInstanceOf(RedisTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    } finally {
      redis.thaw();
    }

    await()
        .atMost(RECOVERY)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(client.<String>getBucket("faults:freeze").get()).isEqualTo("kept"));
    redis.thaw(); // Not frozen any more: nothing happens.
  }

  @Test
  void restartKeepingData_keepsTheKeyAndItsTtl() {
    persistentClient.<String>getBucket("faults:persist").set("kept", Duration.ofMinutes(10));

    persistentRedis.restartKeepingData();

    await()
        .atMost(RECOVERY)
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(persistentClient.<String>getBucket("faults:persist").get()).isEqualTo("kept"));
    assertThat(persistentClient.getBucket("faults:persist").remainTimeToLive()).isPositive();
  }

  @Test
  void restartKeepingData_needsAPersistentRedis() {
    assertThatThrownBy(redis::restartKeepingData)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("newPersistentRedis");
  }
}

package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import io.refresher.wiring.Threads;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * A busy client is not an outage. The epoch guard's probe is what closes the fail-fast gate
 * ({@link RedisReachability}); it once did so at the first probe that timed out, and a service
 * whose own client was starved (a saturated Netty thread, a JVM without CPU) then refused its own
 * refreshes with "Redis unavailable" while Redis answered everyone else. Here the client's only
 * Netty thread is held busy, the way a saturated client's is, while Redis is up; and for contrast,
 * Redis really goes away.
 */
class EpochGuardBusyClientIT {

  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(300);

  private static TestRedis redis;
  private static EventLoopGroup netty;
  private static RedissonClient redisson;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    // One Netty thread, the test's to hold: every reply of this client waits while it is busy.
    netty = new NioEventLoopGroup(1);
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.setEventLoopGroup(netty);
    config
        .useSingleServer()
        .setAddress(redis.url())
        .setConnectionPoolSize(2)
        .setConnectionMinimumIdleSize(1)
        .setRetryAttempts(0);
    redisson = Redisson.create(config);
  }

  @AfterEach
  void thaw() {
    redis.thaw();
  }

  @AfterAll
  static void stop() {
    if (redisson != null) {
      redisson.shutdown();
    }
    if (netty != null) {
      netty.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void clientBusyLongerThanOneProbe_redisUp_commandsKeepBeingSent() throws Exception {
    RedisReachability reachability = new RedisReachability(InstantSource.system());
    RedisEpochGuard guard = guard(reachability);
    answeredCheck(guard);
    long missedBefore = guard.missedChecks();

    // The client's Netty thread held busy until the check made meanwhile has given up waiting
    // for its reply (a probe timeout later); released right after it.
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    netty.next().execute(() -> hold(busy, release));
    assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
    try {
      guard.check();
    } finally {
      release.countDown();
    }

    assertThat(guard.missedChecks() - missedBefore).as("checks that got no answer").isEqualTo(1);
    assertThat(reachability.reachable()).as("Redis reachable after one check the busy client missed").isTrue();
    answeredCheck(guard);
    assertThat(reachability.reachable()).isTrue();
  }

  @Test
  void redisFrozen_unreachableAfterTheThirdCheckInARow_andSinceTheFirst() {
    // Fails rather than skips: CI runs on embedded servers, whose Redis can be frozen.
    assertThat(redis.supportsProcessFaults()).as("an embedded Redis process to freeze (-Drefresher.test.servers=embedded)").isTrue();
    RedisReachability reachability = new RedisReachability(InstantSource.system());
    RedisEpochGuard guard = guard(reachability);
    answeredCheck(guard);

    redis.freeze();
    long frozenAt = System.currentTimeMillis();
    guard.check();
    guard.check();
    assertThat(reachability.reachable()).as("after two checks without an answer").isTrue();
    guard.check();
    assertThat(reachability.reachable()).as("after the third").isFalse();

    // The outage is dated from the first check that went unanswered, not from the third.
    AtomicLong sinceMillis = new AtomicLong();
    try {
      reachability.require("a command");
    } catch (io.refresher.failure.CacheUnavailableException e) {
      sinceMillis.set(Long.parseLong(e.getMessage().replaceAll(".*unavailable for (\\d+) ms.*", "$1")));
    }
    assertThat(sinceMillis.get()).isGreaterThanOrEqualTo(3 * PROBE_TIMEOUT.toMillis() - 50).isLessThanOrEqualTo(System.currentTimeMillis() - frozenAt);

    redis.thaw();
    answeredCheck(guard);
    assertThat(reachability.reachable()).as("one answered check opens the gate again").isTrue();
  }

  private static RedisEpochGuard guard(RedisReachability reachability) {
    RedisEpochGuard guard =
        new RedisEpochGuard(
            redisson,
            EpochMarkers.single(),
            () -> 1,
            Duration.ofMinutes(10),
            reachability,
            new RedisProbe(PROBE_TIMEOUT, 3),
            RedisTopology.untracked(),
            Threads.scheduler("test-epoch-guard-", 1),
            InstantSource.system());
    return guard;
  }

  /**
   * Checks until one is answered: a check made right after the client's thread was held may still
   * meet the replies that queued up meanwhile.
   */
  private static void answeredCheck(RedisEpochGuard guard) {
    await("an answered check")
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              long missed = guard.missedChecks();
              guard.check();
              return guard.missedChecks() == missed;
            });
  }

  /** Keeps the calling (Netty) thread busy from {@code started} until {@code release}, at most 10 s. */
  private static void hold(CountDownLatch started, CountDownLatch release) {
    started.countDown();
    try {
      release.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

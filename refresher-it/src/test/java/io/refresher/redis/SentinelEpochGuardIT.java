package io.refresher.redis;

import java.time.InstantSource;
import io.refresher.wiring.Threads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.config.RedisFactory;
import io.refresher.embedded.EmbeddedRedisSentinelGroup;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.Fence;
import io.refresher.refresh.KeyLocks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The epoch guard behind a real Sentinel failover whose promoted replica missed the old primary's
 * last writes (asynchronous replication). The lock token counter is among the lost writes, so the
 * new primary hands out a token again that a refresh still running from before the failover holds.
 * Before the guard tracked the primary's run_id, the epoch stayed the same across the failover:
 * the late refresh's fence tied with the newer write's and its older value replaced the newer one.
 */
class SentinelEpochGuardIT {

  private EmbeddedRedisSentinelGroup group;
  private RedissonClient redisson;
  private RedisEpochGuard guard;
  private final AtomicLong sequence = new AtomicLong(10);
  private final List<Long> losses = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    group = EmbeddedRedisSentinelGroup.start(1, Duration.ofMillis(1000));
    RedisFactory factory = new RedisFactory();
    factory.setMode(RedisFactory.Mode.SENTINEL);
    factory.setMasterName(EmbeddedRedisSentinelGroup.MASTER_NAME);
    factory.setSentinels(group.sentinelAddresses());
    factory.setTimeout(io.dropwizard.util.Duration.seconds(1));
    RedisConnectionEvents connections = new RedisConnectionEvents();
    redisson = factory.build(connections);
    guard =
        new RedisEpochGuard(
            redisson,
            EpochMarkers.single(),
            sequence::incrementAndGet,
            Duration.ofSeconds(1),
            new RedisReachability(InstantSource.system()),
            factory.probe(),
            RedisTopology.sentinel(redisson, factory.probeTimeout()),
            Threads.scheduler("test-epoch-guard-", 1),
            InstantSource.system());
    guard.onDataLoss(losses::add);
    connections.onConnect(guard::checkSoon);
  }

  @AfterEach
  void stop() {
    if (guard != null) {
      guard.stop();
    }
    if (redisson != null) {
      redisson.shutdown();
    }
    if (group != null) {
      group.close(); // kills every process, frozen ones too, whatever the test did
    }
  }

  @Test
  void failoverToAReplicaThatMissedTheLastWrites_newEpoch_aRefreshFromBeforeCannotOverwriteANewerValue() {
    RedisCacheStore store = new RedisCacheStore(redisson);
    RedisKeyLocks locks = new RedisKeyLocks(redisson);
    guard.start();
    long before = guard.currentEpoch();
    assertThat(before).isEqualTo(11);
    String key = "sentinel:fenced";
    KeyLocks.HeldLock first = acquire(locks, key).orElseThrow();
    assertThat(write(store, key, "v0", new Fence(before, first.token())).written()).isTrue();
    first.release();
    int oldPrimary = group.primaryPort();
    group.call(oldPrimary, "WAIT", "1", "5000");

    // A refresh takes the lock after the replica's link is cut: the token is a write the replica misses.
    List<Integer> replicas = group.replicaPorts();
    replicas.forEach(group::freeze);
    KeyLocks.HeldLock late;
    long killedAt;
    try {
      group.cutReplicationLinks(oldPrimary);
      late = acquire(locks, key).orElseThrow();
      killedAt = System.nanoTime();
      group.kill(oldPrimary);
    } finally {
      replicas.forEach(group::thaw);
    }
    Fence lateFence = new Fence(before, late.token()); // taken before the failover, as a refresh does
    group.awaitFailover(oldPrimary, Duration.ofSeconds(30));

    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> guard.currentEpoch() > before);
    long noticedMillis = (System.nanoTime() - killedAt) / 1_000_000;
    System.out.printf("failover noticed %d ms after the primary was killed (down-after 1000 ms)%n", noticedMillis);
    assertThat(guard.failoversHandled()).isEqualTo(1);
    assertThat(losses).as("the markers survived: no refill after the first start's").containsExactly(11L);

    // The lock went with the lost writes; the next refresh gets the late one's token again.
    KeyLocks.HeldLock next =
        await().atMost(Duration.ofSeconds(10)).until(() -> acquire(locks, key), Optional::isPresent).orElseThrow();
    assertThat(next.token()).as("a token handed out before the failover, handed out again").isEqualTo(late.token());
    assertThat(write(store, key, "v2", new Fence(guard.currentEpoch(), next.token())).written()).isTrue();

    CacheStore.WriteResult stale = write(store, key, "v1", lateFence);

    assertThat(stale.written()).as("the late refresh's older value").isFalse();
    assertThat(redisson.getBucket(key, StringCodec.INSTANCE).get()).isEqualTo("v2");
  }

  @Test
  void failoverToAReplicaWithoutTheEpochMarker_aDataLoss() {
    int oldPrimary = group.primaryPort();
    List<Integer> replicas = group.replicaPorts();
    replicas.forEach(group::freeze);
    try {
      group.cutReplicationLinks(oldPrimary);
      guard.check(); // the marker is set on the primary only
      assertThat(guard.currentEpoch()).isEqualTo(11);
      group.kill(oldPrimary);
    } finally {
      replicas.forEach(group::thaw);
    }
    group.awaitFailover(oldPrimary, Duration.ofSeconds(30));
    guard.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> losses.size() == 2);
    guard.check();
    guard.check();

    assertThat(losses).containsExactly(11L, 12L);
    assertThat(guard.currentEpoch()).isEqualTo(12);
    assertThat(guard.failoversHandled()).as("the data loss already took the new epoch").isZero();
    assertThat(redisson.getBucket(RedisEpochGuard.MARKER, StringCodec.INSTANCE).get()).isEqualTo("12");
  }

  private static Optional<KeyLocks.HeldLock> acquire(RedisKeyLocks locks, String key) {
    // Redisson locks are reentrant per thread; separate threads stand in for separate refreshers.
    return CompletableFuture.supplyAsync(() -> locks.tryAcquire(key, Duration.ofSeconds(30))).join();
  }

  private static CacheStore.WriteResult write(RedisCacheStore store, String key, String value, Fence fence) {
    Instant now = Instant.now();
    return store.write(
        key, value, fence, 1, new CacheStore.ValueMeta(now, Duration.ofMillis(3), now.plusSeconds(30)), Duration.ofMinutes(1), 20, null);
  }
}

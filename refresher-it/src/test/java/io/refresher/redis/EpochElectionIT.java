package io.refresher.redis;

import java.time.InstantSource;
import io.refresher.wiring.Threads;
import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.refresh.EpochStore;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * The data-loss election with several marker keys, as on a cluster (here on one real Redis: the
 * election's race does not depend on where the markers live). Before, a replica that read the
 * markers after another had won the first missing one, but before it had set the others, won a
 * second one: two leaders, and the first winner's late write of its lower epoch over every marker
 * was then adopted by the second, whose epoch went backwards.
 */
class EpochElectionIT {

  private static final List<String> MARKERS =
      List.of("test:epoch", "test:epoch:{e1}", "test:epoch:{e2}", "test:epoch:{e3}", "test:epoch:{e4}", "test:epoch:{e5}");

  private static TestRedis redis;
  private static RedissonClient redisson;

  @BeforeAll
  static void start() {
    redis = RealServers.newRedis();
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.useSingleServer().setAddress(redis.url()).setConnectionPoolSize(16).setConnectionMinimumIdleSize(4);
    redisson = Redisson.create(config);
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

  @Test
  void markersLoweredByALateElectionWrite_epochNeverGoesBackwards() {
    clearMarkers();
    AtomicLong sequence = new AtomicLong(10);
    RedisEpochGuard guard = guard(sequence::incrementAndGet, new CopyOnWriteArrayList<>());
    guard.check();
    assertThat(guard.currentEpoch()).isEqualTo(11);

    // What a winner of an older election that paused between its win and its marker writes did.
    MARKERS.forEach(marker -> redisson.getBucket(marker, StringCodec.INSTANCE).set("7"));
    guard.check();

    assertThat(guard.currentEpoch()).as("the epoch after the markers were lowered").isEqualTo(11);
  }

  @Test
  void replicasNoticingOneLossTogether_oneLeaderAndOneEpoch() throws Exception {
    int replicas = 4;
    int rounds = 150;
    AtomicLong sequence = new AtomicLong(100);
    List<Long> leaders = new CopyOnWriteArrayList<>();
    List<RedisEpochGuard> guards = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      guards.add(guard(sequence::incrementAndGet, leaders));
    }
    ExecutorService threads = Executors.newFixedThreadPool(replicas);
    int roundsWithTwoLeaders = 0;
    int roundsWithMixedEpochs = 0;
    try {
      for (int round = 0; round < rounds; round++) {
        clearMarkers();
        leaders.clear();
        CyclicBarrier together = new CyclicBarrier(replicas);
        List<Future<?>> checks = new ArrayList<>();
        for (RedisEpochGuard guard : guards) {
          checks.add(
              threads.submit(
                  () -> {
                    together.await(10, TimeUnit.SECONDS);
                    guard.check();
                    return null;
                  }));
        }
        for (Future<?> check : checks) {
          check.get(30, TimeUnit.SECONDS);
        }
        guards.forEach(RedisEpochGuard::check); // the next periodic check of every replica
        if (leaders.size() != 1) {
          roundsWithTwoLeaders++;
        }
        long markerEpochs = MARKERS.stream().map(m -> redisson.getBucket(m, StringCodec.INSTANCE).get()).distinct().count();
        long replicaEpochs = guards.stream().map(RedisEpochGuard::currentEpoch).distinct().count();
        if (markerEpochs != 1 || replicaEpochs != 1) {
          roundsWithMixedEpochs++;
        }
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(roundsWithTwoLeaders).as("rounds of %d whose loss had other than one leader", rounds).isZero();
    assertThat(roundsWithMixedEpochs).as("rounds of %d that ended with replicas or markers on different epochs", rounds).isZero();
  }

  private static RedisEpochGuard guard(EpochStore store, List<Long> leaders) {
    RedisEpochGuard guard =
        new RedisEpochGuard(
            redisson,
            MARKERS,
            store,
            Duration.ofMinutes(10),
            RedisReachability.assumed(),
            new RedisProbe(Duration.ofSeconds(3), 3),
            RedisTopology.untracked(),
            Threads.scheduler("test-epoch-guard-", 1),
            InstantSource.system());
    guard.onDataLoss(leaders::add);
    return guard;
  }

  private static void clearMarkers() {
    redisson.getKeys().delete(MARKERS.toArray(String[]::new));
  }
}

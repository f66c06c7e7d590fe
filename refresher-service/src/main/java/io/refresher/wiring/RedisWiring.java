package io.refresher.wiring;

import com.codahale.metrics.Gauge;
import io.dropwizard.core.setup.Environment;
import io.refresher.config.RedisFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.redis.RedisAlignedClock;
import io.refresher.redis.RedisConnectionEvents;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisReachability;
import java.time.InstantSource;
import org.redisson.api.RedissonClient;

/**
 * The cache's Redis: the client (with its health check, built by {@link RedisFactory}), the clock
 * the service runs on, and the due index every refresh is planned in.
 *
 * @param connections tells the epoch guard of every reconnection
 * @param reachability marked by the epoch guard's probes; while Redis is known to be away the
 *     adapters fail at once
 * @param clock this machine's clock moved to Redis's time: every replica plans on the same time
 * @param cluster Redis Cluster: the adapters place related keys in one hash slot
 */
record RedisWiring(
    RedissonClient redisson,
    RedisConnectionEvents connections,
    RedisReachability reachability,
    RedisAlignedClock clock,
    boolean cluster,
    RedisDueIndex dueIndex) {

  static RedisWiring wire(RefresherConfiguration config, Environment environment, InstantSource localClock) {
    RedisFactory factory = config.getRedis();
    boolean cluster = factory.getMode() == RedisFactory.Mode.CLUSTER;
    RedisConnectionEvents connections = new RedisConnectionEvents();
    RedisReachability reachability = new RedisReachability(localClock);
    RedissonClient redisson = factory.build(environment, connections, reachability, localClock);

    RedisAlignedClock clock = RedisAlignedClock.of(redisson, cluster, localClock);
    clock.start(environment.lifecycle().scheduledExecutorService("redis-clock-%d").threads(1).build());
    environment.metrics().register("refresher.clock.offset-ms", (Gauge<Long>) clock::offsetMillis);

    RedisDueIndex dueIndex =
        new RedisDueIndex(
            redisson,
            config.getScheduler().getDueShards(),
            reachability,
            // A move is rare: its thread ends when idle, as the thread per move it replaces did, and
            // is a daemon, so that a long move still running at stop does not keep the JVM up. Idle
            // means 100 ms, well under the 1 s between attempts: while a move cannot take the lock
            // (held up to its 30 s lease by an attempt that failed with Redis), claims try again every
            // second, and a longer keep-alive kept the thread up all that time (RedisFaultsIT's leak
            // check saw it 20 s after a restart of Redis on a loaded machine).
            environment.lifecycle()
                .executorService("due-index-shards-%d")
                .minThreads(1)
                .maxThreads(1)
                .allowCoreThreadTimeOut(true)
                .keepAliveTime(io.dropwizard.util.Duration.milliseconds(100))
                .threadFactory(Threads.named("due-index-shards-"))
                .build(),
            localClock,
            // the dispatcher's round trips wait no longer than a probe: see RedisDueIndex
            factory.probeTimeout());
    // Before anything of this replica claims or writes due entries in bulk: entries placed for
    // another scheduler.dueShards are moved to this one's (RedisDueIndex, DueShardLayout).
    environment.lifecycle().manage(Lifecycles.atStart("due index shard layout", dueIndex::adoptConfiguredLayout));
    return new RedisWiring(redisson, connections, reachability, clock, cluster, dueIndex);
  }
}

package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.access.HotSetAdmission;
import io.refresher.config.RedisFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.persistence.JdbiEpochStore;
import io.refresher.prewarm.Prewarmer;
import io.refresher.prewarm.RefillPlanner;
import io.refresher.redis.EpochMarkers;
import io.refresher.redis.RedisEpochGuard;
import io.refresher.redis.RedisPrewarmRecords;
import io.refresher.redis.RedisTopology;
import io.refresher.redis.RedisValuePresence;
import io.refresher.refresh.RefreshSettings;
import java.util.UUID;

/**
 * What a data loss sets off: the epoch guard that notices Redis lost its data (or, behind
 * Sentinel, that another server holds it) and the refill of the popular keys, hottest first,
 * within the sources' load bounds.
 */
record PrewarmWiring(RedisEpochGuard epochGuard, Prewarmer prewarmer) {

  static PrewarmWiring wire(
      RefresherConfiguration config,
      Environment environment,
      RefreshSettings refresh,
      DatabaseWiring database,
      RedisWiring redis,
      RegistryWiring registry,
      AccessWiring access,
      SourcesWiring sources) {
    RedisFactory redisConfig = config.getRedis();
    RedisEpochGuard epochGuard =
        new RedisEpochGuard(
            redis.redisson(),
            redis.cluster() ? EpochMarkers.cluster() : EpochMarkers.single(),
            new JdbiEpochStore(database.registry()),
            config.getScheduler().getEpochCheckInterval().toJavaDuration(),
            redis.reachability(),
            redisConfig.probe(),
            redisConfig.getMode() == RedisFactory.Mode.SENTINEL
                ? RedisTopology.sentinel(redis.redisson(), redisConfig.probeTimeout())
                : RedisTopology.untracked(),
            environment.lifecycle().scheduledExecutorService("redis-epoch-guard-%d").threads(1).build(),
            redis.clock());
    redis.connections().onConnect(epochGuard::checkSoon);

    Prewarmer prewarmer =
        new Prewarmer(
            access.archive(),
            access.popularity(),
            registry.repository(),
            registry.resolver(),
            new RedisValuePresence(redis.redisson()),
            redis.dueIndex(),
            access.hotSetStore(),
            new RedisPrewarmRecords(redis.redisson(), environment.getObjectMapper(), redis.reachability()),
            access.settings(),
            HotSetAdmission.registrationGrace(access.settings()),
            refresh.ttr().initial(),
            sources.queriesPerSecond(),
            source ->
                sources.catalog()
                    .find(source)
                    .map(found -> new RefillPlanner.SourcePlace(found.datasource(), found.batch() == null ? 1 : found.batch().maxBatch()))
                    .orElse(null),
            replicaId(),
            epochGuard,
            // The guard hands it a loss on this executor, so the epoch check never waits for a refill.
            environment.lifecycle().scheduledExecutorService("prewarm-%d").threads(1).build(),
            redis.clock());
    epochGuard.onDataLoss(prewarmer::onDataLoss);
    // Before Quartz and the dispatcher: nothing refreshes before the epoch is known.
    environment.lifecycle().manage(Lifecycles.managed("Redis epoch guard", epochGuard::start, epochGuard::stop));
    return new PrewarmWiring(epochGuard, prewarmer);
  }

  /** This replica's name in logs and in the prewarm record: the pod name on Kubernetes. */
  private static String replicaId() {
    String host = System.getenv("HOSTNAME");
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    return host == null || host.isBlank() ? "replica-" + suffix : host + "-" + suffix;
  }
}

package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.access.AccessSettings;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetView;
import io.refresher.access.PopularityKeeper;
import io.refresher.config.RefresherConfiguration;
import io.refresher.metrics.HotSetMetrics;
import io.refresher.persistence.JdbiPopularityArchive;
import io.refresher.redis.RedisAccessCounts;
import io.refresher.redis.RedisHotSetStore;
import io.refresher.redis.RedisUncoveredKeys;
import io.refresher.access.HotSetListener;
import io.refresher.access.UncoveredKeys;
import io.refresher.redis.RedisPopularityStore;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which keys are hot: the read counters applications increment, the hot set every replica shares
 * in Redis, this replica's view of it (rates for the TTR, the {@code /v1/hot} list), and the
 * popularity saved to PostgreSQL for the refill after a data loss.
 *
 * @param refreshView re-reads the view, logging a streak of failures; run every sample interval
 *     here and after each sample
 */
record AccessWiring(
    AccessSettings settings,
    RedisHotSetStore hotSetStore,
    HotSetView hotSet,
    HotKeyTracker hotKeys,
    JdbiPopularityArchive archive,
    PopularityKeeper popularity,
    Runnable refreshView,
    UncoveredKeys uncovered) {

  private static final Logger LOG = LoggerFactory.getLogger(AccessWiring.class);

  static AccessWiring wire(
      RefresherConfiguration config,
      Environment environment,
      DatabaseWiring database,
      RedisWiring redis,
      RegistryWiring registry) {
    AccessSettings settings = config.getAccess().build();
    RedisPopularityStore popularityStore = new RedisPopularityStore(redis.redisson());
    RedisHotSetStore hotSetStore = new RedisHotSetStore(redis.redisson(), redis.reachability());
    HotSetView hotSet = new HotSetView(hotSetStore, popularityStore, settings, redis.clock());
    RedisUncoveredKeys uncovered = new RedisUncoveredKeys(redis.redisson(), redis.reachability());
    HotKeyTracker hotKeys =
        new HotKeyTracker(
            new RedisAccessCounts(redis.redisson()),
            popularityStore,
            hotSetStore,
            registry.resolver(),
            redis.dueIndex(),
            settings,
            HotSetListener.all(
                new HotSetMetrics(environment.metrics(), hotSet, config.getAccess().getMaxHotKeys()),
                keepUncovered(uncovered, settings)),
            redis.clock());
    JdbiPopularityArchive archive = new JdbiPopularityArchive(database.registry());
    PopularityKeeper popularity = new PopularityKeeper(popularityStore, archive, settings, redis.clock());

    // Every replica keeps its own copy of the hot set.
    Runnable refreshView =
        new FailureStreakLog(LOG, "hot set view refresh", FailureStreakLog.REPEAT, redis.clock()).around(hotSet::refresh);
    ScheduledExecutorService views =
        environment.lifecycle().scheduledExecutorService("hot-set-view-%d").threads(1).build();
    long every = settings.sampleInterval().toMillis();
    environment.lifecycle().manage(
        Lifecycles.atStart(
            "hot set view", () -> views.scheduleWithFixedDelay(refreshView, 0, every, TimeUnit.MILLISECONDS)));
    return new AccessWiring(settings, hotSetStore, hotSet, hotKeys, archive, popularity, refreshView, uncovered);
  }

  /**
   * Each sampling's hottest uncovered keys, for every replica to answer {@code GET
   * /v1/hot/uncovered}; kept three sampling intervals (at least a minute), so a list no sampling
   * replaces goes. A failure to write it is logged and costs only this list.
   */
  private static HotSetListener keepUncovered(UncoveredKeys uncovered, AccessSettings settings) {
    java.time.Duration keep = java.time.Duration.ofMillis(Math.max(60_000, 3 * settings.sampleInterval().toMillis()));
    return report -> {
      try {
        uncovered.replace(report.uncovered(), keep);
      } catch (io.refresher.failure.TransientFailure e) {
        LOG.debug("uncovered hot keys not written: {}", e.getMessage());
      }
    };
  }
}

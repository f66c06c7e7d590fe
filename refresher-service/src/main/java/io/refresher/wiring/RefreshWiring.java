package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.access.HotSetAdmission;
import io.refresher.config.RefresherConfiguration;
import io.refresher.metrics.RefreshMetrics;
import io.refresher.redis.RedisCacheStore;
import io.refresher.redis.RedisKeyLocks;
import io.refresher.refresh.AdaptiveTtr;
import io.refresher.refresh.DispatchSettings;
import io.refresher.refresh.DueIndexReconciler;
import io.refresher.refresh.FreshnessSweep;
import io.refresher.refresh.LagTracker;
import io.refresher.refresh.RefreshDispatcher;
import io.refresher.refresh.RefreshListener;
import io.refresher.refresh.RefreshPlanner;
import io.refresher.refresh.RefreshService;
import io.refresher.refresh.RefreshSettings;
import io.refresher.refresh.Refresher;
import io.refresher.refresh.RescheduleBuffer;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one refresh path: the refresher (lock, fence, load, write, plan the next refresh), the
 * dispatcher that runs it for due keys, the service behind the admin API's refreshes and
 * deletions, and the reconciler that mends the due index. The dispatcher is started by {@link
 * #manageDispatcher} once everything it needs is registered.
 *
 * @param locks the fenced per-key locks (Redisson-compatible)
 */
record RefreshWiring(
    RedisCacheStore store,
    RedisKeyLocks locks,
    Refresher refresher,
    RefreshDispatcher dispatcher,
    RefreshService service,
    DueIndexReconciler reconciler,
    FreshnessSweep freshness,
    RefreshMetrics metrics) {

  private static final Logger LOG = LoggerFactory.getLogger(RefreshWiring.class);

  static RefreshWiring wire(
      RefresherConfiguration config,
      Environment environment,
      DispatchSettings dispatch,
      RefreshSettings refresh,
      RedisWiring redis,
      RegistryWiring registry,
      AccessWiring access,
      SourcesWiring sources,
      PrewarmWiring prewarm,
      TracingWiring traces,
      InstantSource localClock) {
    InstantSource clock = redis.clock();
    RedisCacheStore store = new RedisCacheStore(redis.redisson(), redis.reachability(), redis.cluster());
    RedisKeyLocks locks = new RedisKeyLocks(redis.redisson(), redis.reachability(), redis.cluster(), localClock);
    RescheduleBuffer reschedules = new RescheduleBuffer(redis.dueIndex());
    RefreshMetrics metrics =
        new RefreshMetrics(
            environment.metrics(), localClock, sources.catalog().all().stream().map(io.refresher.source.SourceDefinition::name).toList());
    LagTracker lag = new LagTracker();
    Refresher refresher =
        new Refresher(
            sources.loader(),
            sources.shares(),
            store,
            locks,
            prewarm.epochGuard(),
            new RefreshPlanner(refresh, RefreshPlanner.threadLocalRandom()),
            refresh,
            reschedules,
            // The refill hears of keys whose registration went while they were computed.
            RefreshListener.all(metrics, prewarm.prewarmer().refreshListener()),
            new AdaptiveTtr(refresh.ttr(), refresh.maxTtrFraction(), refresh.retryBase()),
            lag,
            access.hotSet(),
            clock,
            traces.refreshes());
    RefreshDispatcher dispatcher =
        new RefreshDispatcher(
            redis.dueIndex(),
            redis.dueIndex(),
            registry.resolver(),
            refresher,
            reschedules,
            dispatch,
            metrics,
            lag,
            clock,
            Threads::named);
    RefreshService service =
        new RefreshService(
            refresher,
            redis.dueIndex(),
            store,
            new HotSetAdmission(access.hotSetStore(), access.settings()),
            dispatch,
            config.getRefresh().getDeletedTombstone().toJavaDuration(),
            clock);
    // Keys registered while Redis was away get their due entries when it answers again.
    prewarm.epochGuard().onReachableAgain(() -> indexRegisteredDuringOutage(service));
    DueIndexReconciler reconciler =
        new DueIndexReconciler(
            registry.repository(), redis.dueIndex(), () -> access.hotSetStore().all().keySet(), clock);
    FreshnessSweep freshness =
        new FreshnessSweep(
            registry.repository(),
            () -> access.hotSetStore().all().keySet(),
            registry.resolver(),
            store,
            redis.dueIndex(),
            clock,
            // a planned refresh this late is a backlog, not the dispatcher's usual lag
            config.getRefresh().getLockLease().toJavaDuration());
    return new RefreshWiring(store, locks, refresher, dispatcher, service, reconciler, freshness, metrics);
  }

  /**
   * Registers the dispatcher with the lifecycle: last, so that it starts when everything it uses
   * runs and is the first to stop, giving its waiting keys back before their lease would run out.
   */
  static void manageDispatcher(Environment environment, RefreshWiring refresh, RefreshSettings settings) {
    RefreshDispatcher dispatcher = refresh.dispatcher();
    environment.lifecycle().manage(
        Lifecycles.managed("refresh dispatcher", dispatcher::start, () -> dispatcher.stop(settings.lockLease())));
  }

  private static void indexRegisteredDuringOutage(RefreshService service) {
    try {
      int added = service.indexRegisteredDuringOutage();
      if (added > 0) {
        LOG.info("{} keys registered while Redis was unreachable added to the due index", added);
      }
    } catch (RuntimeException e) {
      LOG.warn("keys registered during the Redis outage not indexed yet ({}); the periodic sweep adds them", e.getMessage());
    }
  }
}

package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetView;
import io.refresher.access.PopularityKeeper;
import io.refresher.config.RefresherConfiguration;
import io.refresher.redis.RedisAlignedClock;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisEpochGuard;
import io.refresher.refresh.DispatchSettings;
import io.refresher.refresh.DueIndexReconciler;
import io.refresher.refresh.RefreshDispatcher;
import io.refresher.refresh.RefreshService;
import io.refresher.refresh.RefreshSettings;
import io.refresher.registry.KeyResolver;
import io.refresher.registry.Registry;
import io.refresher.registry.TemplateCatalog;
import io.refresher.source.SourceCatalog;
import io.refresher.refresh.ChangeFeedsReport;
import java.time.InstantSource;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.redisson.api.RedissonClient;

/**
 * The composition root: builds the service by feature from its configuration. Each feature's
 * wiring registers what it builds with Dropwizard (managed objects, started in the order they are
 * registered and stopped in reverse; health checks; metrics); no logic lives here. The order below
 * is the start order: storage and clients, then what runs on them, the dispatcher last.
 */
public final class ServiceWiring {

  private ServiceWiring() {}

  /** The parts a running service is made of (the tests reach into them). */
  public record Parts(
      RedissonClient redisson,
      Jdbi registryJdbi,
      Registry registry,
      RefreshService refreshService,
      RefreshDispatcher dispatcher,
      RedisEpochGuard epochGuard,
      DueIndexReconciler reconciler,
      RedisDueIndex dueIndex,
      SourceCatalog sources,
      HotSetView hotSet,
      HotKeyTracker hotKeys,
      PopularityKeeper popularity,
      KeyResolver resolver,
      TemplateCatalog templates,
      RedisAlignedClock clock) {}

  public static Parts wire(RefresherConfiguration config, Environment environment) throws Exception {
    return wire(config, environment, InstantSource.system());
  }

  public static Parts wire(RefresherConfiguration config, Environment environment, InstantSource localClock)
      throws Exception {
    return wire(config, environment, localClock, config.getTracing().build(environment), config.getTracing().enabled());
  }

  /**
   * @param localClock this machine's clock: the adapters' timeouts and retries run on it, and the
   *     service plans on it moved to Redis's time
   */
  /**
   * @param telemetry where spans go (the application builds it from {@code tracing:}; tests give an
   *     in-memory one)
   * @param tracing whether to trace at all
   */
  public static Parts wire(
      RefresherConfiguration config, Environment environment, InstantSource localClock, io.opentelemetry.api.OpenTelemetry telemetry, boolean tracing)
      throws Exception {
    AdminApiWiring.installEdges(config, environment);
    TracingWiring traces = TracingWiring.wire(environment, telemetry, tracing);
    DispatchSettings dispatch = config.getScheduler().build();
    RefreshSettings refresh = config.getRefresh().build();

    DatabaseWiring database = DatabaseWiring.wire(config, environment, localClock);
    RedisWiring redis = RedisWiring.wire(config, environment, localClock);
    SourcesWiring sources = SourcesWiring.wire(config, environment, dispatch, refresh, redis, localClock);
    RegistryWiring registry = RegistryWiring.wire(config, environment, database, sources.catalog(), redis.clock());
    AccessWiring access = AccessWiring.wire(config, environment, database, redis, registry);
    PrewarmWiring prewarm =
        PrewarmWiring.wire(config, environment, refresh, database, redis, registry, access, sources);
    RefreshWiring refreshing =
        RefreshWiring.wire(config, environment, dispatch, refresh, redis, registry, access, sources, prewarm, traces, localClock);
    Supplier<ChangeFeedsReport> feeds =
        ChangesWiring.register(config, environment, database, sources, redis, registry, access, refreshing, localClock);
    AuditWiring audit = AuditWiring.wire(config, environment, redis, registry, access, sources, refreshing);
    SchedulingWiring.wire(config, environment, database, access, refreshing, audit, localClock);
    AuditWiring.manage(environment, audit);
    MetricsWiring.register(environment, redis, prewarm, refreshing, audit);
    OverviewWiring overview =
        OverviewWiring.wire(environment, config.getAccess().getMaxHotKeys(), database, redis, access, refreshing, localClock);
    AdminApiWiring.registerResources(config, environment, sources, registry, access, prewarm, refreshing, audit, feeds, overview);
    RefreshWiring.manageDispatcher(environment, refreshing, refresh);

    return new Parts(
        redis.redisson(),
        database.registry(),
        registry.registry(),
        refreshing.service(),
        refreshing.dispatcher(),
        prewarm.epochGuard(),
        refreshing.reconciler(),
        redis.dueIndex(),
        sources.catalog(),
        access.hotSet(),
        access.hotKeys(),
        access.popularity(),
        registry.resolver(),
        registry.templateCatalog(),
        redis.clock());
  }
}

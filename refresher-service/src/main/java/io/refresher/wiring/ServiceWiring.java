package io.refresher.wiring;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import io.refresher.access.AccessSettings;
import io.refresher.access.HotKeyTracker;
import io.refresher.access.HotSetAdmission;
import io.refresher.access.HotSetView;
import io.refresher.access.PopularityKeeper;
import io.refresher.api.AdminApiAuth;
import io.refresher.api.HttpEdges;
import io.refresher.api.KeyPaths;
import io.refresher.api.ErrorMappers;
import io.refresher.api.OpenApiDocument;
import io.refresher.api.OpenApiResource;
import io.refresher.api.HotResource;
import io.refresher.api.KeyResource;
import io.refresher.api.SourceResource;
import io.refresher.api.PrewarmResource;
import io.refresher.api.TemplateResource;
import io.refresher.redis.RedisAccessCounts;
import io.refresher.redis.RedisAlignedClock;
import io.refresher.redis.EpochMarkers;
import io.refresher.redis.RedisCacheStore;
import io.refresher.redis.RedisEvictionPolicy;
import io.refresher.redis.RedisConnectionEvents;
import io.refresher.redis.RedisHotSetStore;
import io.refresher.redis.RedisPopularityStore;
import io.refresher.redis.RedisPrewarmRecords;
import io.refresher.redis.RedisReachability;
import io.refresher.redis.RedisValuePresence;
import io.refresher.redis.RedisSourceLoad;
import io.refresher.redis.RedisDueIndex;
import io.refresher.redis.RedisEpochGuard;
import io.refresher.redis.RedisTopology;
import io.refresher.redis.RedisKeyLocks;
import io.refresher.wiring.ChangesWiring;
import io.refresher.config.DatabaseFactory;
import io.refresher.config.RedisFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.config.SourceFactory;
import io.refresher.metrics.HotSetMetrics;
import io.refresher.metrics.JvmGcMetrics;
import io.refresher.health.PostgresHealthCheck;
import io.refresher.metrics.PrewarmMetrics;
import io.refresher.metrics.PrometheusEndpoint;
import io.refresher.health.RedisHealthCheck;
import io.refresher.metrics.RefreshMetrics;
import io.refresher.health.SchedulerHealthCheck;
import io.refresher.metrics.SourceLoadMetrics;
import io.refresher.metrics.SuppliedCounter;
import io.refresher.persistence.DatabaseAvailability;
import io.refresher.persistence.DatabaseProbe;
import io.refresher.persistence.FailFastDataSource;
import io.refresher.persistence.JdbiEpochStore;
import io.refresher.prewarm.Prewarmer;
import io.refresher.persistence.JdbiPopularityArchive;
import io.refresher.persistence.JdbiTemplateRepository;
import io.refresher.persistence.JdbiRegistrationRepository;
import io.refresher.persistence.SchemaMigrator;
import io.refresher.refresh.AdaptiveTtr;
import io.refresher.refresh.DispatchSettings;
import io.refresher.refresh.DueIndexReconciler;
import io.refresher.refresh.LagTracker;
import io.refresher.refresh.LoadBound;
import io.refresher.refresh.RefreshDispatcher;
import io.refresher.refresh.RefreshListener;
import io.refresher.refresh.RefreshPlanner;
import io.refresher.refresh.RefreshService;
import io.refresher.refresh.SourceShares;
import io.refresher.refresh.RefreshSettings;
import io.refresher.refresh.Refresher;
import io.refresher.refresh.RescheduleBuffer;
import io.refresher.registry.KeyResolver;
import io.refresher.registry.RegistrationValidator;
import io.refresher.registry.Registration;
import io.refresher.registry.Registry;
import io.refresher.registry.TemplateCatalog;
import io.refresher.registry.Templates;
import io.refresher.scheduling.QuartzManager;
import io.refresher.scheduling.ReconcileDueIndexJob;
import io.refresher.scheduling.SampleAccessJob;
import io.refresher.scheduling.SnapshotPopularityJob;
import io.refresher.jdbc.JdbcValueLoader;
import io.refresher.http.HttpEndpointSettings;
import io.refresher.http.HttpEndpoints;
import io.refresher.http.HttpValueLoader;
import io.refresher.refresh.RoutedValueLoader;
import io.refresher.refresh.BulkRefresh;
import io.refresher.api.RefreshResource;
import java.util.concurrent.ExecutorService;
import io.refresher.refresh.ValueLoader;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the service's parts from its configuration and registers them with Dropwizard: pools and
 * clients as managed objects (started in order, stopped in reverse), health checks, metrics,
 * resources. No logic lives here.
 */
public final class ServiceWiring {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceWiring.class);

  private ServiceWiring() {}

  /** The parts a running service is made of. */
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

  /** @param localClock this machine's clock; the service runs on it moved to Redis's time */
  public static Parts wire(RefresherConfiguration config, Environment environment, InstantSource localClock)
      throws Exception {
    ObjectMapper json = environment.getObjectMapper();
    if (config.getServerFactory() instanceof AbstractServerFactory server) {
      // Every error, including Jersey's own, is rendered by ErrorMappers as JSON.
      server.setRegisterDefaultExceptionMappers(false);
    }
    KeyPaths.allowEncodedSlashes(config.getServerFactory(), environment.getApplicationContext());
    HttpEdges.install(
        environment.getApplicationContext(),
        environment.lifecycle(),
        environment.servlets(),
        environment.jersey(),
        json,
        config.getAdmin().getMaxBodySize().toBytes());

    DispatchSettings dispatch = config.getScheduler().build();
    RefreshSettings refreshSettings = config.getRefresh().build();
    AccessSettings accessSettings = config.getAccess().build();

    HikariDataSource registryPool = config.getDatabase()
            .build("refresher-registry", false, config.getDatabase().getMaxPoolSize(), SchemaMigrator.SCHEMA);
    environment.lifecycle().manage(closing(registryPool::close));
    // Each pool's gauges (<pool>.pool.ActiveConnections, TotalConnections, PendingConnections...)
    // are on /metrics: borrowed connections that never come back show there.
    registryPool.setMetricRegistry(environment.metrics());
    // migrateAtStart false: a separate `db migrate` (the Kubernetes migration Job) migrates, and a
    // replica only checks that it finds the schema its release needs, refusing to start otherwise.
    SchemaMigrator migrator = new SchemaMigrator(registryPool);
    if (config.getDatabase().isMigrateAtStart()) {
      migrator.migrate();
    } else {
      migrator.validate();
    }
    // Everything that reads or writes the registry goes through this data source: while the probe
    // knows PostgreSQL is down it refuses at once, instead of every request and dispatcher batch
    // waiting out the pool's connection timeout.
    DatabaseAvailability registryAvailability = new DatabaseAvailability(localClock);
    DatabaseProbe registryProbe =
        new DatabaseProbe(
            config.getDatabase()::openProbeConnection,
            registryAvailability,
            config.getDatabase().getProbeInterval().toJavaDuration(),
            localClock);
    environment.lifecycle().manage(new Managed() {
      @Override
      public void start() {
        registryProbe.start();
      }

      @Override
      public void stop() throws InterruptedException {
        registryProbe.stop();
      }
    });
    Jdbi registryJdbi = Jdbi.create(new FailFastDataSource(registryPool, registryAvailability));
    // Quartz holds connections for its row locks and cluster check-ins; on its own small pool it
    // can never make the dispatcher's per-batch registration lookups wait for a connection.
    int quartzConnections = config.getScheduler().getQuartzThreads() + 3;
    HikariDataSource quartzPool =
        config.getDatabase().build("refresher-quartz", false, quartzConnections, SchemaMigrator.SCHEMA);
    quartzPool.setMetricRegistry(environment.metrics());
    environment.lifecycle().manage(closing(quartzPool::close));

    SourceCatalog catalog = new SourceCatalog(sourceDefinitions(config));
    Map<String, DataSource> sourceDatasources = new LinkedHashMap<>();
    int defaultSourcePool = Math.max(2, dispatch.workers() + 2);
    HikariDataSource defaultSources =
        config.getDatabase().build("refresher-sources-default", true, defaultSourcePool);
    defaultSources.setMetricRegistry(environment.metrics());
    environment.lifecycle().manage(closing(defaultSources::close));
    sourceDatasources.put(SourceFactory.DEFAULT_DATASOURCE, defaultSources);
    for (Map.Entry<String, DatabaseFactory> extra : config.getDatasources().entrySet()) {
      HikariDataSource pool =
          extra.getValue().build("refresher-sources-" + extra.getKey(), true, extra.getValue().getMaxPoolSize());
      pool.setMetricRegistry(environment.metrics());
      environment.lifecycle().manage(closing(pool::close));
      sourceDatasources.put(extra.getKey(), pool);
    }

    RedisConnectionEvents connections = new RedisConnectionEvents();
    RedissonClient redisson = config.getRedis().build(connections);
    environment.lifecycle().manage(closing(redisson::shutdown));
    LOG.info("Redis at {}", config.getRedis().redactedUrl());
    RedisAlignedClock clock = RedisAlignedClock.of(redisson, config.getRedis().getMode() == RedisFactory.Mode.CLUSTER, localClock);
    clock.start(environment.lifecycle().scheduledExecutorService("redis-clock-%d").threads(1).build());
    environment.metrics().register("refresher.clock.offset-ms", (Gauge<Long>) clock::offsetMillis);

    JdbiRegistrationRepository repository = new JdbiRegistrationRepository(registryJdbi, json);
    // Marked by the epoch guard's probes; while Redis is known to be away the adapters fail fast.
    RedisReachability reachability = new RedisReachability();
    RedisDueIndex dueIndex = new RedisDueIndex(redisson, config.getScheduler().getDueShards(), reachability);
    boolean cluster = config.getRedis().getMode() == RedisFactory.Mode.CLUSTER;
    RedisCacheStore cacheStore = new RedisCacheStore(redisson, reachability, cluster);
    RescheduleBuffer reschedules = new RescheduleBuffer(dueIndex);
    RefreshPlanner planner = new RefreshPlanner(refreshSettings, RefreshPlanner.threadLocalRandom());
    RefreshMetrics metrics = new RefreshMetrics(environment.metrics());
    JdbiTemplateRepository templateRepository = new JdbiTemplateRepository(registryJdbi, json);
    TemplateCatalog templateCatalog = new TemplateCatalog(templateRepository, catalog);
    templateCatalog.reload();
    RegistrationValidator validator = new RegistrationValidator(catalog, config.getAdmin().registrationLimits());
    Templates templates = new Templates(templateRepository, validator, catalog, templateCatalog, clock);
    KeyResolver resolver =
        new KeyResolver(
            repository,
            new KeyResolver.TemplateMatcher() {
              @Override
              public Map<String, Registration> resolveAll(java.util.Collection<String> keys) {
                return templateCatalog.resolveAll(keys);
              }

              @Override
              public void reload() {
                templateCatalog.reload();
              }
            },
            clock);

    RedisPopularityStore popularityStore = new RedisPopularityStore(redisson);
    RedisHotSetStore hotSetStore = new RedisHotSetStore(redisson, reachability);
    DueIndexReconciler reconciler =
        new DueIndexReconciler(repository, dueIndex, () -> hotSetStore.all().keySet(), clock);
    HotSetView hotSet = new HotSetView(hotSetStore, popularityStore, accessSettings, clock);
    HotKeyTracker hotKeys =
        new HotKeyTracker(
            new RedisAccessCounts(redisson),
            popularityStore,
            hotSetStore,
            resolver,
            dueIndex,
            accessSettings,
            new HotSetMetrics(environment.metrics(), hotSet, config.getAccess().getMaxHotKeys()),
            clock);
    PopularityKeeper popularity =
        new PopularityKeeper(popularityStore, new JdbiPopularityArchive(registryJdbi), accessSettings, clock);

    // The refill after a data loss; the epoch guard hands it the loss on this executor, so the
    // epoch check itself never waits for a refill.
    ScheduledExecutorService prewarmExecutor =
        environment.lifecycle().scheduledExecutorService("prewarm-%d").threads(1).build();
    Map<String, Integer> queriesPerSecond = new LinkedHashMap<>();
    queriesPerSecond.put(SourceFactory.DEFAULT_DATASOURCE, config.getDatabase().getMaxQueriesPerSecond());
    config.getDatasources().forEach((name, datasource) -> queriesPerSecond.put(name, datasource.getMaxQueriesPerSecond()));
    config.getHttpEndpoints().forEach((name, endpoint) -> queriesPerSecond.put(name, endpoint.getMaxQueriesPerSecond()));
    RedisEpochGuard[] epochGuardHolder = new RedisEpochGuard[1];
    Prewarmer prewarmer =
        new Prewarmer(
            new JdbiPopularityArchive(registryJdbi),
            popularity,
            repository,
            resolver,
            new RedisValuePresence(redisson),
            dueIndex,
            hotSetStore,
            new RedisPrewarmRecords(redisson, json, reachability),
            accessSettings,
            HotSetAdmission.registrationGrace(accessSettings),
            refreshSettings.ttr().initial(),
            queriesPerSecond,
            source -> catalog.find(source).map(SourceDefinition::datasource).orElse(null),
            replicaId(),
            // The guard is built next (it hands losses to this refill): read through the holder.
            () -> epochGuardHolder[0].currentEpoch(),
            prewarmExecutor,
            clock);
    RefreshService[] refreshServiceHolder = new RefreshService[1];
    RedisEpochGuard epochGuard =
        new RedisEpochGuard(
            redisson,
            config.getRedis().getMode() == RedisFactory.Mode.CLUSTER
                ? EpochMarkers.cluster()
                : EpochMarkers.single(),
            new JdbiEpochStore(registryJdbi),
            prewarmer::onDataLoss,
            () -> indexRegisteredDuringOutage(refreshServiceHolder[0]),
            config.getScheduler().getEpochCheckInterval().toJavaDuration(),
            reachability,
            config.getRedis().probeTimeout(),
            config.getRedis().getMode() == RedisFactory.Mode.SENTINEL
                ? RedisTopology.sentinel(redisson, config.getRedis().probeTimeout())
                : RedisTopology.untracked());
    epochGuardHolder[0] = epochGuard;
    connections.onConnect(epochGuard::checkSoon);
    LagTracker lag = new LagTracker();
    List<LoadBound> loadBounds = new ArrayList<>();
    loadBounds.add(config.getDatabase().loadBound(SourceFactory.DEFAULT_DATASOURCE));
    config.getDatasources().forEach((name, datasource) -> loadBounds.add(datasource.loadBound(name)));
    config.getHttpEndpoints().forEach((name, endpoint) -> loadBounds.add(endpoint.loadBound(name)));
    SourceLoadMetrics loadMetrics = new SourceLoadMetrics(environment.metrics());
    RedisSourceLoad sourceLoad =
        new RedisSourceLoad(
            redisson,
            loadBounds,
            source -> catalog.find(source).map(SourceDefinition::datasource).orElse(null),
            loadMetrics,
            refreshSettings.lockLease(),
            reachability);
    loadMetrics.register(sourceLoad);
    sourceLoad.initialise();
    Map<String, Integer> shareSlots = sourceShareSlots(config, catalog, defaultSourcePool);
    SourceShares sourceShares =
        new SourceShares(
            sourceLoad,
            source -> shareSlots.getOrDefault(source, 0),
            source -> environment.metrics().counter("refresher.source." + source + ".share-full").inc());

    RedisKeyLocks keyLocks = new RedisKeyLocks(redisson, reachability, cluster);
    Refresher refresher =
        new Refresher(
            valueLoader(config, environment, catalog, sourceDatasources, json, refreshSettings.maxValueBytes()),
            sourceShares,
            cacheStore,
            keyLocks,
            epochGuard,
            planner,
            refreshSettings,
            reschedules,
            // The refill hears of keys whose registration went while they were computed.
            RefreshListener.all(metrics, prewarmer.refreshListener()),
            new AdaptiveTtr(refreshSettings.ttr(), refreshSettings.maxTtrFraction(), refreshSettings.retryBase()),
            lag,
            hotSet,
            clock);
    RefreshDispatcher dispatcher =
        new RefreshDispatcher(dueIndex, dueIndex, resolver, refresher, reschedules, dispatch, metrics, lag, clock);
    RefreshService refreshService =
        new RefreshService(
            refresher,
            dueIndex,
            cacheStore,
            new HotSetAdmission(hotSetStore, accessSettings),
            dispatch,
            config.getRefresh().getDeletedTombstone().toJavaDuration(),
            clock);
    refreshServiceHolder[0] = refreshService;
    // Refresh on change: sources' change feeds (PostgreSQL LISTEN/NOTIFY), see docs/sources.md.
    ChangesWiring.register(
        config,
        environment,
        new ChangesWiring.Parts(
            catalog,
            refresher,
            resolver,
            templateCatalog::templates,
            templateCatalog::resolveAll,
            hotSet::isHot,
            dueIndex,
            keyLocks,
            cacheStore,
            clock));
    Registry registry = new Registry(repository, validator, clock);

    FailureStreakLog viewLog = new FailureStreakLog(LOG, "hot set view refresh", FAILURE_REPEAT, clock);
    QuartzManager quartz =
        new QuartzManager(
            config.getScheduler().getQuartzName(),
            quartzPool,
            config.getScheduler().getQuartzThreads(),
            Map.of(
                ReconcileDueIndexJob.class, new ReconcileDueIndexJob(reconciler),
                SampleAccessJob.class, new SampleAccessJob(hotKeys, () -> refreshView(hotSet, viewLog)),
                SnapshotPopularityJob.class, new SnapshotPopularityJob(popularity)));

    // Before anything of this replica claims or writes due entries in bulk: entries placed for
    // another scheduler.dueShards are moved to this one's (RedisDueIndex, DueShardLayout).
    environment.lifecycle().manage(new Managed() {
      @Override
      public void start() {
        dueIndex.adoptConfiguredLayout();
      }

      @Override
      public void stop() {}
    });
    RedisEvictionPolicy evictionPolicy =
        RedisEvictionPolicy.of(redisson, config.getRedis().getMode() == RedisFactory.Mode.CLUSTER);
    environment.lifecycle().manage(new Managed() {
      @Override
      public void start() {
        evictionPolicy.check();
        epochGuard.start();
      }

      @Override
      public void stop() {
        epochGuard.stop();
      }
    });
    Duration reconcileEvery = config.getScheduler().getReconcileInterval().toJavaDuration();
    Duration sampleEvery = accessSettings.sampleInterval();
    Duration snapshotEvery = config.getAccess().getSnapshotInterval().toJavaDuration();
    environment.lifecycle().manage(new Managed() {
      @Override
      public void start() throws Exception {
        quartz.every("reconcile-due-index", ReconcileDueIndexJob.class, reconcileEvery, reconcileEvery);
        quartz.every("sample-access", SampleAccessJob.class, sampleEvery, sampleEvery);
        quartz.every("snapshot-popularity", SnapshotPopularityJob.class, snapshotEvery, snapshotEvery);
        quartz.start();
      }

      @Override
      public void stop() throws Exception {
        quartz.stop();
      }
    });
    // Every replica keeps its own copy of the hot set (rates for the TTR, the /v1/hot view).
    ScheduledExecutorService viewRefresher = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "hot-set-view");
      thread.setDaemon(true);
      return thread;
    });
    environment.lifecycle().manage(new Managed() {
      @Override
      public void start() {
        FailureStreakLog templatesLog = new FailureStreakLog(LOG, "template reload", FAILURE_REPEAT, clock);
        viewRefresher.scheduleWithFixedDelay(
            () -> refreshView(hotSet, viewLog), 0, sampleEvery.toMillis(), TimeUnit.MILLISECONDS);
        // Templates changed through another replica become visible here within this interval.
        viewRefresher.scheduleWithFixedDelay(
            () -> reloadTemplates(templateCatalog, templatesLog),
            TEMPLATE_RELOAD_MILLIS,
            TEMPLATE_RELOAD_MILLIS,
            TimeUnit.MILLISECONDS);
      }

      @Override
      public void stop() {
        viewRefresher.shutdownNow();
      }
    });
    environment.lifecycle().manage(new Managed() {
      @Override
      public void start() {
        dispatcher.start();
      }

      @Override
      public void stop() throws Exception {
        dispatcher.stop(refreshSettings.lockLease());
      }
    });

    environment.healthChecks().register(
        "redis", new RedisHealthCheck(redisson, config.getRedis().redactedUrl(), evictionPolicy, reachability));
    environment.metrics().register(
        "refresher.redis.eviction-policy-safe", (Gauge<Integer>) () -> evictionPolicy.safety().gauge());
    environment.healthChecks().register("postgres", new PostgresHealthCheck(registryAvailability, localClock));
    environment.healthChecks().register("scheduler", new SchedulerHealthCheck(dispatcher, quartz));

    environment.metrics().register("refresher.dispatch.in-flight", (Gauge<Integer>) dispatcher::inFlight);
    // Running totals since start are counters (<name>_total in Prometheus), so that increase()
    // and rate() over them survive a restart; docs/operations.md alerts on them.
    SuppliedCounter.register(environment.metrics(), "refresher.dispatch.claimed", dispatcher::claimedTotal);
    SuppliedCounter.register(environment.metrics(), "refresher.dispatch.dropped-claims", dispatcher::droppedClaims);
    SuppliedCounter.register(environment.metrics(), "refresher.dispatch.recovered-claims", dispatcher::adoptedClaims);
    environment.metrics().register("refresher.redis.epoch", (Gauge<Long>) epochGuard::currentEpoch);
    SuppliedCounter.register(environment.metrics(), "refresher.redis.data-losses", epochGuard::dataLossesHandled);
    SuppliedCounter.register(environment.metrics(), "refresher.redis.failovers", epochGuard::failoversHandled);
    SuppliedCounter.register(environment.metrics(), "refresher.redis.returns-with-data", epochGuard::returnsWithData);
    JvmGcMetrics.register(environment.metrics());
    environment.metrics().register("refresher.due.size", new CachedGauge<Long>(10, TimeUnit.SECONDS) {
      @Override
      protected Long loadValue() {
        try {
          return dueIndex.size();
        } catch (RuntimeException e) {
          return -1L;
        }
      }
    });

    PrometheusEndpoint.register(environment.metrics(), environment.admin());

    ErrorMappers.register(environment.jersey().getResourceConfig());
    AdminApiAuth.register(environment.jersey(), config.getAdmin().getToken(), config.getAdmin().getReadToken());
    environment.jersey().register(new KeyResource(registry, refreshService, resolver, hotSet));
    environment.jersey().register(new RefreshResource(bulkRefresh(environment, resolver, refresher), templates, registry));
    environment.jersey().register(new HotResource(hotSet, resolver, refreshService));
    environment.jersey().register(new SourceResource(catalog));
    environment.jersey().register(new TemplateResource(templates));
    environment.jersey().register(
        new PrewarmResource(prewarmer, epochGuard, () -> SourceLoadMetrics.view(environment.metrics(), sourceLoad)));
    environment.jersey().register(new OpenApiResource(() -> OpenApiDocument.json(config.getAdmin().getMaxParamLength())));
    PrewarmMetrics.register(environment.metrics(), prewarmer);

    return new Parts(
        redisson,
        registryJdbi,
        registry,
        refreshService,
        dispatcher,
        epochGuard,
        reconciler,
        dueIndex,
        catalog,
        hotSet,
        hotKeys,
        popularity,
        resolver,
        templateCatalog,
        clock);
  }

  /**
   * The concurrent queries each source may run on this replica: its datasource's
   * {@code sourceShare} of the pool, for sources that share a datasource with others (a source
   * alone on its datasource has no share to keep).
   */
  private static Map<String, Integer> sourceShareSlots(
      RefresherConfiguration config, SourceCatalog catalog, int defaultPoolSize) {
    Map<String, List<String>> sourcesByDatasource = new LinkedHashMap<>();
    for (SourceDefinition source : catalog.all()) {
      sourcesByDatasource.computeIfAbsent(source.datasource(), name -> new ArrayList<>()).add(source.name());
    }
    Map<String, Integer> slots = new LinkedHashMap<>();
    sourcesByDatasource.forEach(
        (datasource, sources) -> {
          if (sources.size() < 2) {
            return;
          }
          DatabaseFactory factory =
              SourceFactory.DEFAULT_DATASOURCE.equals(datasource) ? config.getDatabase() : config.getDatasources().get(datasource);
          if (factory == null || factory.getSourceShare() >= 1.0) {
            return;
          }
          int pool = SourceFactory.DEFAULT_DATASOURCE.equals(datasource) ? defaultPoolSize : factory.getMaxPoolSize();
          int each = SourceShares.slots(factory.getSourceShare(), pool);
          sources.forEach(source -> slots.put(source, each));
        });
    return slots;
  }

  /**
   * Refreshes asked for through {@code POST /v1/refresh}, a few at a time per request, on threads
   * of their own: the load bound protects the database, the threads only overlap the waits.
   */
  private static BulkRefresh bulkRefresh(Environment environment, KeyResolver resolver, Refresher refresher) {
    ExecutorService threads =
        environment.lifecycle().executorService("bulk-refresh-%d").minThreads(BULK_REFRESH_THREADS)
            .maxThreads(BULK_REFRESH_THREADS).build();
    return new BulkRefresh(resolver, refresher, threads, BULK_REFRESH_THREADS);
  }

  private static final int BULK_REFRESH_THREADS = 4;

  /** SQL sources on JDBC, HTTP sources through their endpoints' clients (closed at stop). */
  private static ValueLoader valueLoader(
      RefresherConfiguration config,
      Environment environment,
      SourceCatalog catalog,
      Map<String, DataSource> datasources,
      ObjectMapper json,
      long maxValueBytes) {
    JdbcValueLoader sql = new JdbcValueLoader(catalog, datasources, json, maxValueBytes);
    environment.lifecycle().manage(closing(sql::close));
    if (config.getHttpEndpoints().isEmpty()) {
      return sql;
    }
    Map<String, HttpEndpointSettings> settings = new LinkedHashMap<>();
    config.getHttpEndpoints().forEach((name, endpoint) -> settings.put(name, endpoint.settings(name)));
    HttpEndpoints endpoints = HttpEndpoints.create(settings, environment.metrics());
    environment.lifecycle().manage(closing(endpoints::close));
    ValueLoader http = new HttpValueLoader(catalog, endpoints, json, maxValueBytes);
    Map<String, ValueLoader> httpSources = new LinkedHashMap<>();
    catalog.all().stream().filter(SourceDefinition::isHttp).forEach(source -> httpSources.put(source.name(), http));
    return new RoutedValueLoader(httpSources, sql);
  }

  private static final long TEMPLATE_RELOAD_MILLIS = 2000;

  /** A background task that keeps failing is logged again this often (see {@link FailureStreakLog}). */
  private static final java.time.Duration FAILURE_REPEAT = java.time.Duration.ofMinutes(1);

  private static void reloadTemplates(TemplateCatalog templates, FailureStreakLog log) {
    try {
      templates.reload();
      log.succeeded();
    } catch (RuntimeException e) {
      // the previous templates stay in use
      log.failed(e);
    }
  }

  private static void refreshView(HotSetView view, FailureStreakLog log) {
    try {
      view.refresh();
      log.succeeded();
    } catch (RuntimeException e) {
      // the previous view stays in use
      log.failed(e);
    }
  }

  private static void indexRegisteredDuringOutage(RefreshService refreshService) {
    try {
      int added = refreshService.indexRegisteredDuringOutage();
      if (added > 0) {
        LOG.info("{} keys registered while Redis was unreachable added to the due index", added);
      }
    } catch (RuntimeException e) {
      LOG.warn("keys registered during the Redis outage not indexed yet ({}); the periodic sweep adds them", e.getMessage());
    }
  }

  /** This replica's name in logs and in the prewarm record: the pod name on Kubernetes. */
  private static String replicaId() {
    String host = System.getenv("HOSTNAME");
    String suffix = java.util.UUID.randomUUID().toString().substring(0, 8);
    return host == null || host.isBlank() ? "replica-" + suffix : host + "-" + suffix;
  }

  private static List<SourceDefinition> sourceDefinitions(RefresherConfiguration config) {
    List<SourceDefinition> sources = new ArrayList<>();
    config.getSources().forEach((name, factory) -> sources.add(factory.build(name)));
    return sources;
  }

  private static Managed closing(Runnable close) {
    return new Managed() {
      @Override
      public void stop() {
        close.run();
      }
    };
  }
}

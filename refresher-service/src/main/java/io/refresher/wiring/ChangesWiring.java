package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.config.ChangesFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.changes.ChangeFeeds;
import io.refresher.refresh.ChangeFeedState;
import io.refresher.refresh.ChangeFeedsReport;
import io.refresher.changes.ChangeListener;
import io.refresher.changes.ChangeMetrics;
import io.refresher.changes.LeaderLock;
import io.refresher.refresh.ChangeBatches;
import io.refresher.refresh.ChangeCoalescer;
import io.refresher.refresh.ChangeCoverage;
import io.refresher.refresh.ChangeHandler;
import io.refresher.refresh.ChangeKeys;
import io.refresher.refresh.ChangeRefresh;
import io.refresher.refresh.DelayedTasks;
import io.refresher.source.SourceCatalog;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds "refresh on change" from the configuration (sources' {@code changes:} and the top-level
 * {@code changes:} block) and hooks it into the service's lifecycle: the domain's handler,
 * coalescer and change refresh, a listener per datasource with feeds, their threads (Dropwizard's
 * lifecycle executors), and the {@code refresher.changes.*} metrics. Nothing is started, and no
 * connection opened, when no source has a feed. See {@code docs/sources.md}.
 */
final class ChangesWiring {

  private static final Logger LOG = LoggerFactory.getLogger(ChangesWiring.class);

  private ChangesWiring() {}

  /** How many datasources have change feeds: each needs one listener across the replicas. */
  private static int datasourcesWithFeeds(SourceCatalog sources) {
    return (int)
        sources.all().stream()
            .filter(source -> source.changes() != null && !source.isHttp())
            .map(io.refresher.source.SourceDefinition::datasource)
            .distinct()
            .count();
  }

  /**
   * Registers the change feeds with the service. They start once the server has started (a
   * refresh needs what the managed objects start, such as the Redis epoch) and stop as soon as it
   * begins to stop, before those.
   *
   * @return what {@code GET /v1/feeds} shows: {@link ChangeFeedsReport#NONE} without feeds
   */
  static Supplier<ChangeFeedsReport> register(
      RefresherConfiguration config,
      Environment environment,
      DatabaseWiring database,
      SourcesWiring sources,
      RedisWiring redis,
      RegistryWiring registry,
      AccessWiring access,
      RefreshWiring refresh,
      InstantSource localClock) {
    InstantSource clock = redis.clock();
    AtomicReference<ChangeFeeds> feeds = new AtomicReference<>();
    AtomicReference<ChangeCoalescer> pending = new AtomicReference<>();
    ChangeMetrics metrics =
        new ChangeMetrics(
            environment.metrics(),
            () -> feeds.get() == null ? 0 : feeds.get().listening(),
            () -> pending.get() == null ? 0 : pending.get().pendingKeys(),
            datasourcesWithFeeds(sources.catalog()));
    ChangesFactory settings = config.getChanges();
    boolean notificationFeeds = sources.catalog().all().stream().anyMatch(source -> source.changes() != null && !source.isHttp());
    boolean capture = CaptureWiring.anyCapture(config);
    if (!notificationFeeds && !capture) {
      return () -> ChangeFeedsReport.NONE;
    }
    ScheduledExecutorService workers =
        environment.lifecycle().scheduledExecutorService("change-refresh-%d").threads(settings.getThreads()).build();
    DelayedTasks tasks =
        (task, delay) -> {
          try {
            workers.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
          } catch (RejectedExecutionException e) {
            // stopping: the change is dropped, as one sent while stopped would be
          }
        };
    Duration lockLease = config.getRefresh().getLockLease().toJavaDuration();
    ChangeRefresh changeRefresh =
        new ChangeRefresh(
            registry.resolver(),
            access.hotSet()::isHot,
            redis.dueIndex(),
            refresh.refresher(),
            new ChangeBatches(refresh.refresher(), tasks),
            refresh.locks(),
            refresh.store(),
            lockLease,
            metrics,
            clock);
    ChangeCoalescer coalescer = coalescer(changeRefresh, tasks, clock, settings, lockLease, metrics);
    pending.set(coalescer);
    ChangeCoverage coverage =
        new ChangeCoverage(
            registry.templateCatalog(),
            registry.resolver(),
            // a flood's registry queries run this many at once: at most half the pool, and 4
            environment.lifecycle()
                .executorService("change-coverage-%d")
                .minThreads(coverageThreads(config))
                .maxThreads(coverageThreads(config))
                .build());
    CaptureWiring captures =
        capture
            ? CaptureWiring.wire(
                config,
                environment,
                database,
                sources,
                registry,
                coverage,
                coalescer,
                coalescer(changeRefresh.evictions(), tasks, clock, settings, lockLease, metrics),
                metrics,
                localClock)
            : CaptureWiring.NONE;
    ChangeHandler handler =
        new ChangeHandler(
            sources.catalog().all(),
            new ChangeKeys(registry.templateCatalog()::templates),
            coverage,
            coalescer,
            metrics,
            clock);
    Map<String, Set<String>> channels = handler.channelsByDatasource();

    List<ChangeListener> listeners = new ArrayList<>();
    Duration reconnectDelay = settings.getReconnectDelay().toJavaDuration();
    channels.forEach(
        (datasource, names) -> {
          listeners.add(
              new ChangeListener(
                  datasource,
                  names,
                  ListeningConnections.connector(config, datasource),
                  LeaderLock.of(config.getScheduler().getQuartzName(), datasource),
                  reconnectDelay,
                  notifications -> handler.onNotifications(datasource, notifications),
                  localClock));
        });
    feeds.set(
        new ChangeFeeds(
            listeners,
            coalescer,
            environment.lifecycle()
                .executorService("change-listener-%d")
                .minThreads(Math.max(1, listeners.size()))
                .maxThreads(Math.max(1, listeners.size()))
                .build()));
    environment.lifecycle().addEventListener(
        new LifeCycle.Listener() {
          @Override
          public void lifeCycleStarted(LifeCycle event) {
            captures.start();
            feeds.get().start();
          }

          @Override
          public void lifeCycleStopping(LifeCycle event) {
            try {
              // the log readers first: a batch being applied may finish while the coalescer still runs
              captures.stop();
              feeds.get().stop();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    Supplier<ChangeFeedsReport> report =
        () -> {
          List<ChangeFeedState> states = new ArrayList<>();
          for (ChangeListener listener : listeners) {
            states.add(ChangeFeedState.notify(listener.datasource(), listener.channels(), listener.isListening()));
          }
          states.addAll(captures.feeds());
          return new ChangeFeedsReport(states, coalescer.pendingKeys(), metrics.totals());
        };
    if (!channels.isEmpty()) {
      LOG.info(
          "refresh on change: channels {} (coalesce window {} ms, {} threads)",
          channels,
          settings.getCoalesceWindow().toMilliseconds(),
          settings.getThreads());
    }
    return report;
  }

  private static ChangeCoalescer coalescer(
      ChangeCoalescer.Action action,
      DelayedTasks tasks,
      InstantSource clock,
      ChangesFactory settings,
      Duration lockLease,
      ChangeMetrics metrics) {
    return new ChangeCoalescer(
        action,
        tasks,
        clock,
        settings.getCoalesceWindow().toJavaDuration(),
        settings.getMaxPendingKeys(),
        // a holder keeps a lock one lease at most, and a refresh that took it after that read the change
        lockLease.multipliedBy(2),
        metrics);
  }

  /** How many registry queries of one batch of notifications run at once. */
  static int coverageThreads(RefresherConfiguration config) {
    return Math.max(1, Math.min(4, config.getDatabase().getMaxPoolSize() / 2));
  }
}

package io.refresher.refresh;

import io.refresher.failure.RegistryUnavailableException;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where change notifications enter the domain: which channels to listen on, per datasource, and
 * what a batch of notifications on them means. A notification names keys ({@link ChangeKeys}) by
 * the feeds of the sources that declared its channel; the keys no registration or template covers
 * are set aside first ({@link ChangeCoverage}: templates in memory, one registry query per {@link
 * ChangeCoverage#LOOKUP_BATCH} keys), and each covered key goes to the coalescer, which refreshes or
 * evicts it ({@link ChangeRefresh}) at most once per window.
 *
 * <p><b>Backpressure.</b> Called on the listener's thread, which reads no notifications while it
 * runs: they wait in PostgreSQL's queue ({@code pg_notification_queue_usage()}). When the
 * coalescer's pending set is full, a covered key's change waits here for room (counted in {@code
 * refresher.changes.deferred}) instead of being dropped: a dropped change of a key the service
 * keeps would wait for the key's TTL. A change is not taken only when the change path is stopping
 * ({@code refresher.changes.dropped}). Waits and drops are logged with their true counts ({@link
 * BurstLog}).
 *
 * <p><b>Failures.</b> When the registry cannot be read, the batch's keys that no template covers
 * are not applied (counted in {@code refresher.changes.failed}, logged once per streak): their
 * changes are lost as ones sent while no replica listens are, and the keys' refresh cycles bound
 * the staleness. (Template keys are still applied.)
 *
 * <p>Thread-safe: the listeners of several datasources call it at once.
 */
public final class ChangeHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeHandler.class);
  /** Waits for room and drops are logged at most this often while they go on. */
  static final Duration BURST_LOG_EVERY = Duration.ofSeconds(10);

  /** Sources with a change feed, by datasource, then by channel. */
  private final Map<String, Map<String, List<SourceDefinition>>> feeds;
  private final ChangeKeys keys;
  private final ChangeCoverage coverage;
  private final ChangeCoalescer coalescer;
  private final ChangeEvents events;
  /** Sources whose unusable payloads were logged at WARN already (after that, DEBUG). */
  private final Set<String> warnedSources = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean registryFailing = new AtomicBoolean();
  private final BurstLog deferredLog;
  private final BurstLog droppedLog;
  private final InstantSource clock;

  public ChangeHandler(
      Collection<SourceDefinition> sources,
      ChangeKeys keys,
      ChangeCoverage coverage,
      ChangeCoalescer coalescer,
      ChangeEvents events,
      InstantSource clock) {
    Map<String, Map<String, List<SourceDefinition>>> byDatasource = new LinkedHashMap<>();
    for (SourceDefinition source : sources) {
      if (source.changes() == null || source.isHttp()) {
        continue;
      }
      byDatasource
          .computeIfAbsent(source.datasource(), datasource -> new LinkedHashMap<>())
          .computeIfAbsent(source.changes().channel(), channel -> new ArrayList<>())
          .add(source);
    }
    this.feeds = Collections.unmodifiableMap(byDatasource);
    this.keys = keys;
    this.coverage = coverage;
    this.coalescer = coalescer;
    this.events = events;
    this.clock = clock;
    this.deferredLog =
        new BurstLog(
            (count, waitedMillis) ->
                LOG.warn(
                    "{} changes waited {} ms in all for room: {} keys had a change refresh going on or planned (changes.maxPendingKeys);"
                        + " notifications were not read meanwhile, and none was dropped (refresher.changes.deferred)",
                    count,
                    waitedMillis,
                    coalescer.maxPendingKeys()),
            BURST_LOG_EVERY,
            clock);
    this.droppedLog =
        new BurstLog(
            (count, ignoredMillis) ->
                LOG.warn(
                    "{} changes dropped: the change path is stopping (refresher.changes.dropped); their keys get them at their next refresh",
                    count),
            BURST_LOG_EVERY,
            clock);
  }

  /** The channels to listen on, by datasource; empty when no source has a change feed. */
  public Map<String, Set<String>> channelsByDatasource() {
    Map<String, Set<String>> channels = new LinkedHashMap<>();
    feeds.forEach((datasource, byChannel) -> channels.put(datasource, new LinkedHashSet<>(byChannel.keySet())));
    return channels;
  }

  /** A notification arrived on {@code channel} of {@code datasource}. */
  public void onNotification(String datasource, String channel, String payload) {
    onNotifications(datasource, List.of(new ChangeNotification(channel, payload)));
  }

  /**
   * Notifications arrived on {@code datasource}, in the order they were sent; an empty batch means a
   * wait for notifications came back with none (what is left of a burst's counts is logged then).
   * Blocks while the pending set is full.
   */
  public void onNotifications(String datasource, List<ChangeNotification> notifications) {
    List<String> named = new ArrayList<>();
    for (ChangeNotification notification : notifications) {
      events.received();
      name(datasource, notification, named);
    }
    if (!named.isEmpty()) {
      apply(named);
    } else {
      deferredLog.flush();
      droppedLog.flush();
    }
  }

  /** Adds the keys {@code notification} names to {@code named}; counts and logs one that names none. */
  private void name(String datasource, ChangeNotification notification, List<String> named) {
    String channel = notification.channel();
    List<SourceDefinition> sources = feeds.getOrDefault(datasource, Map.of()).get(channel);
    if (sources == null) {
      events.ignored();
      LOG.debug("notification on channel '{}' of datasource '{}' ignored: no source listens to it", channel, datasource);
      return;
    }
    Set<String> found = new LinkedHashSet<>();
    String problem = null;
    for (SourceDefinition source : sources) {
      ChangeKeys.Named keysOfSource = keys.keysOf(source, notification.payload());
      found.addAll(keysOfSource.keys());
      if (keysOfSource.keys().isEmpty()) {
        problem = "source '" + source.name() + "': " + keysOfSource.problem();
      }
    }
    if (found.isEmpty()) {
      events.ignored();
      logUnusable(sources.get(0).name(), channel, notification.payload(), problem);
      return;
    }
    named.addAll(found);
  }

  /** Hands the covered ones of {@code named} (in order, repeats included) to the coalescer. */
  private void apply(List<String> named) {
    Set<String> covered;
    long started = clock.millis();
    try {
      covered = coverage.covered(named);
      if (registryFailing.compareAndSet(true, false)) {
        LOG.info("the registry answers again: changes of registered keys are applied again");
      }
    } catch (RegistryUnavailableException e) {
      coverageFailed(named, e);
      return;
    }
    long ignored = 0;
    for (String key : named) {
      if (covered.contains(key)) {
        offer(key);
      } else {
        ignored++;
      }
    }
    events.ignored(ignored);
    if (ignored > 0) {
      LOG.debug(
          "{} of {} keys named by notifications ignored: no registration or template covers them (checked in {} ms)",
          ignored,
          named.size(),
          clock.millis() - started);
    }
  }

  /** Gives the coalescer the change, waiting for room while its pending set is full. */
  private void offer(String key) {
    long waitStarted = -1;
    try {
      while (!coalescer.changed(key)) {
        if (coalescer.isClosed()) {
          events.dropped();
          droppedLog.add(1, 0);
          return;
        }
        if (waitStarted < 0) {
          events.deferred();
          waitStarted = clock.millis();
        }
        try {
          coalescer.awaitRoom();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          events.dropped();
          droppedLog.add(1, 0);
          return;
        }
      }
    } finally {
      if (waitStarted >= 0) {
        deferredLog.add(1, clock.millis() - waitStarted);
      }
    }
  }

  /** The registry could not be read: template keys are applied (no registry needed), the rest lost. */
  private void coverageFailed(List<String> named, RegistryUnavailableException e) {
    Set<String> templateKeys;
    try {
      templateKeys = coverage.coveredByTemplates(named);
    } catch (RuntimeException ignored) {
      templateKeys = Set.of();
    }
    long lost = 0;
    for (String key : named) {
      if (templateKeys.contains(key)) {
        offer(key);
      } else {
        lost++;
        events.failed();
      }
    }
    if (registryFailing.compareAndSet(false, true)) {
      LOG.warn(
          "{} changes not applied: the registry cannot be read ({}); changes of registered keys are lost until it answers again,"
              + " the keys' refresh cycles bring them (refresher.changes.failed)",
          lost,
          e.getMessage());
    } else {
      LOG.debug("{} changes not applied: the registry cannot be read ({})", lost, e.getMessage());
    }
  }

  private void logUnusable(String source, String channel, String payload, String problem) {
    String shown = payload == null ? "" : payload.length() > 200 ? payload.substring(0, 200) + "..." : payload;
    if (warnedSources.add(source)) {
      LOG.warn(
          "notification on channel '{}' names no key ({}); payload '{}'. Further ones of this source are logged at DEBUG, counted in refresher.changes.ignored",
          channel,
          problem,
          shown);
    } else {
      LOG.debug("notification on channel '{}' names no key ({}); payload '{}'", channel, problem, shown);
    }
  }
}

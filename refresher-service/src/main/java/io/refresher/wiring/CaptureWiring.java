package io.refresher.wiring;

import io.dropwizard.core.setup.Environment;
import io.refresher.changes.CaptureMetrics;
import io.refresher.changes.ChangeListener;
import io.refresher.changes.LeaderLock;
import io.refresher.refresh.ChangeFeedState;
import io.refresher.changes.LogCapture;
import io.refresher.changes.SlotLag;
import io.refresher.config.CaptureFactory;
import io.refresher.config.DatabaseFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.config.SourceFactory;
import io.refresher.persistence.JdbiCaptureOffsets;
import io.refresher.refresh.CaptureHandler;
import io.refresher.refresh.CaptureTable;
import io.refresher.refresh.ChangeCoalescer;
import io.refresher.refresh.ChangeCoverage;
import io.refresher.refresh.ChangeEvents;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.postgresql.Driver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds change capture from the datasources' {@code capture:} blocks: per datasource, the domain's
 * {@link CaptureHandler} (sharing the change path's coalescer and coverage with the notification
 * feeds), the log reader with its leader lock and offsets in the service's schema, the slot's lag
 * reader, and the {@code refresher_capture_*} metrics. See {@code docs/sources.md} ("Change
 * capture").
 */
final class CaptureWiring {

  private static final Logger LOG = LoggerFactory.getLogger(CaptureWiring.class);
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  /** No datasource captures. */
  static final CaptureWiring NONE = new CaptureWiring(List.of(), List.of(), null, null, null, null);

  private final List<LogCapture> captures;
  private final List<SlotLag> lags;
  private final ExecutorService loops;
  private final ScheduledExecutorService lagReaders;
  private final ChangeCoalescer evictions;
  private final Duration lagInterval;
  private final List<LogCapture> started = new ArrayList<>();

  private CaptureWiring(
      List<LogCapture> captures,
      List<SlotLag> lags,
      ExecutorService loops,
      ScheduledExecutorService lagReaders,
      ChangeCoalescer evictions,
      Duration lagInterval) {
    this.captures = captures;
    this.lags = lags;
    this.loops = loops;
    this.lagReaders = lagReaders;
    this.evictions = evictions;
    this.lagInterval = lagInterval;
  }

  /** Each captured datasource's log feed as this replica sees it. */
  List<ChangeFeedState> feeds() {
    List<ChangeFeedState> feeds = new ArrayList<>();
    for (int i = 0; i < captures.size(); i++) {
      LogCapture capture = captures.get(i);
      feeds.add(ChangeFeedState.log(capture.datasource(), capture.slot(), capture.isReading(), lags.get(i).active(), lags.get(i).bytes(), lags.get(i).seconds()));
    }
    return feeds;
  }

  /** Whether any datasource declares {@code capture:}. */
  static boolean anyCapture(RefresherConfiguration config) {
    return !captured(config).isEmpty();
  }

  /** The datasources with {@code capture:}, by name ({@value SourceFactory#DEFAULT_DATASOURCE} for the service's own). */
  static Map<String, DatabaseFactory> captured(RefresherConfiguration config) {
    Map<String, DatabaseFactory> captured = new LinkedHashMap<>();
    if (config.getDatabase().getCapture() != null) {
      captured.put(SourceFactory.DEFAULT_DATASOURCE, config.getDatabase());
    }
    config.getDatasources().forEach((name, datasource) -> {
      if (datasource.getCapture() != null) {
        captured.put(name, datasource);
      }
    });
    return captured;
  }

  static CaptureWiring wire(
      RefresherConfiguration config,
      Environment environment,
      DatabaseWiring database,
      SourcesWiring sources,
      RegistryWiring registry,
      ChangeCoverage coverage,
      ChangeCoalescer changes,
      ChangeCoalescer evictions,
      ChangeEvents events,
      InstantSource localClock) {
    Map<String, DatabaseFactory> captured = captured(config);
    String deployment = config.getScheduler().getQuartzName();
    Duration retryDelay = config.getChanges().getReconnectDelay().toJavaDuration();
    ExecutorService engineThreads =
        environment.lifecycle().executorService("capture-engine-%d").minThreads(captured.size()).maxThreads(captured.size()).build();
    List<LogCapture> captures = new ArrayList<>();
    List<SlotLag> lags = new ArrayList<>();
    Duration lagInterval = Duration.ofSeconds(5);
    for (Map.Entry<String, DatabaseFactory> entry : captured.entrySet()) {
      String datasource = entry.getKey();
      CaptureFactory capture = entry.getValue().getCapture();
      lagInterval = capture.getLagInterval().toJavaDuration();
      Map<String, CaptureTable> tables = tables(datasource, capture, sources);
      String slot = capture.slotName(datasource);
      ChangeListener.Connector connector = ListeningConnections.connector(config, datasource);
      SlotLag lag = new SlotLag(datasource, slot, connector, localClock);
      AtomicReference<LogCapture> reader = new AtomicReference<>();
      CaptureMetrics metrics =
          new CaptureMetrics(environment.metrics(), datasource, () -> reader.get() != null && reader.get().isReading(), lag);
      LogCapture logCapture =
          new LogCapture(
              datasource,
              slot,
              capture.getPublication(),
              connector,
              LeaderLock.ofCapture(deployment, datasource),
              engineProperties(datasource, entry.getValue(), capture, slot, tables),
              new JdbiCaptureOffsets(database.registry(), deployment, datasource),
              new CaptureHandler(datasource, tables, registry.templateCatalog()::templates, coverage, changes, evictions, events),
              retryDelay,
              engineThreads,
              metrics);
      reader.set(logCapture);
      captures.add(logCapture);
      lags.add(lag);
      LOG.info(
          "change capture on datasource '{}': publication '{}', slot '{}', tables {}",
          datasource,
          capture.getPublication(),
          slot,
          tables.keySet());
    }
    return new CaptureWiring(
        captures,
        lags,
        environment.lifecycle().executorService("change-capture-%d").minThreads(captures.size()).maxThreads(captures.size()).build(),
        environment.lifecycle().scheduledExecutorService("capture-lag-%d").threads(1).build(),
        evictions,
        lagInterval);
  }

  /** The captured tables of a datasource; refuses sources that do not exist. */
  private static Map<String, CaptureTable> tables(String datasource, CaptureFactory capture, SourcesWiring sources) {
    Map<String, CaptureTable> tables = new LinkedHashMap<>();
    capture.getTables().forEach((name, table) -> {
      for (String source : table.getSources()) {
        if (sources.catalog().find(source).isEmpty()) {
          throw new IllegalStateException(
              "datasources." + datasource + ".capture.tables." + name + ".sources names source '" + source + "', which is not configured");
        }
      }
      CaptureTable built = table.build(name);
      tables.put(built.table(), built);
    });
    return tables;
  }

  /**
   * The Debezium PostgreSQL connector's settings: where the database is (from the datasource's JDBC
   * URL and credentials), the slot and publication ({@code pgoutput}, never created by the
   * connector: an operator creates the publication), no initial snapshot (a cache has nothing to
   * copy: values are computed when read), numerics as text (so a key reads {@code 4.50} as the row
   * holds it), and heartbeats (so the slot advances while no captured table changes).
   */
  static Properties engineProperties(
      String datasource, DatabaseFactory database, CaptureFactory capture, String slot, Map<String, CaptureTable> tables) {
    Properties url = Driver.parseURL(database.getUrl(), null);
    if (url == null) {
      throw new IllegalStateException("datasource '" + datasource + "': its url is not a PostgreSQL JDBC URL");
    }
    String host = url.getProperty("PGHOST", "localhost").split(",")[0];
    String port = url.getProperty("PGPORT", "5432").split(",")[0];
    Properties properties = new Properties();
    properties.setProperty("name", "refresher-capture-" + datasource);
    properties.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    properties.setProperty("offset.flush.interval.ms", "0");
    properties.setProperty("offset.flush.timeout.ms", "10000");
    properties.setProperty("database.hostname", host);
    properties.setProperty("database.port", port);
    properties.setProperty("database.dbname", url.getProperty("PGDBNAME"));
    // a role of its own (with REPLICATION) when set; never logged (Debezium masks *.password)
    properties.setProperty("database.user", capture.getUser() != null ? capture.getUser() : database.getUser());
    properties.setProperty(
        "database.password",
        capture.getUser() != null ? (capture.getPassword() == null ? "" : capture.getPassword()) : database.getPassword());
    String sslmode = database.getProperties().getOrDefault("sslmode", url.getProperty("sslmode"));
    if (sslmode != null) {
      properties.setProperty("database.sslmode", sslmode);
    }
    properties.setProperty("database.tcpKeepAlive", "true");
    properties.setProperty("topic.prefix", "refresher");
    properties.setProperty("plugin.name", "pgoutput");
    properties.setProperty("slot.name", slot);
    properties.setProperty("publication.name", capture.getPublication());
    properties.setProperty("publication.autocreate.mode", "disabled");
    properties.setProperty("snapshot.mode", "no_data");
    properties.setProperty("decimal.handling.mode", "string");
    // a change alone waits at most 10 ms for its batch (the default 500 ms was half the latency);
    // a flood is read in batches of up to 8,192 rows, one registry query and one offset save each
    properties.setProperty("poll.interval.ms", "10");
    properties.setProperty("max.batch.size", "8192");
    properties.setProperty("max.queue.size", "32768");
    // the records go to one consumer in order: more threads only hand them between cores
    properties.setProperty("record.processing.threads", "1");
    // neither the records' extra headers nor tombstones after deletes are read here
    properties.setProperty("extended.headers.enabled", "false");
    properties.setProperty("tombstones.on.delete", "false");
    properties.setProperty("heartbeat.interval.ms", Long.toString(capture.getHeartbeatInterval().toMilliseconds()));
    properties.setProperty(
        "table.include.list", tables.keySet().stream().map(Pattern::quote).collect(Collectors.joining(",")));
    // the engine's own retries of a lost connection; the reader's loop starts it again after that
    properties.setProperty("errors.max.retries", "3");
    // A slot still active for the previous reader (its walsender not ended yet: a restart in one
    // JVM, a reader that just lost its lock) is tried again every 500 ms for a minute, not every
    // 10 s six times (Debezium's defaults): a restarted reader otherwise waited 10 s for nothing.
    // The minute covers wal_sender_timeout's default, after which PostgreSQL ends a dead reader's.
    properties.setProperty("slot.retry.delay.ms", "500");
    properties.setProperty("slot.max.retries", "120");
    return properties;
  }

  void start() {
    for (SlotLag lag : lags) {
      try {
        lagReaders.scheduleWithFixedDelay(lag::read, 0, lagInterval.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        return;
      }
    }
    for (LogCapture capture : captures) {
      try {
        loops.execute(capture);
        started.add(capture);
      } catch (RejectedExecutionException e) {
        LOG.warn("change capture of datasource '{}' not started: the service is stopping", capture.datasource());
      }
    }
  }

  void stop() throws InterruptedException {
    for (LogCapture capture : started) {
      capture.stop(STOP_GRACE);
    }
    started.clear();
    if (evictions != null) {
      evictions.close();
    }
    lags.forEach(SlotLag::close);
  }
}

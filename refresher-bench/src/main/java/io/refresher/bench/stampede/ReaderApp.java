package io.refresher.bench.stampede;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.refresher.embedded.EmbeddedPostgreSql;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * One strategy's application, as one would be deployed: its reader threads, one Redisson client
 * shared by them (its commands counted), one database pool (read-only, like the service's
 * sources), the strategy, and its open-loop schedule.
 */
final class ReaderApp implements AutoCloseable {

  /** The figures every application of a run shares. */
  record Setup(
      String run,
      String redisUrl,
      int redisDatabase,
      String jdbcUrl,
      StampedeSettings settings,
      TtlPolicy ttl,
      SourceCost cost,
      RunClock clock,
      ZipfKeys zipf) {}

  final StrategyKind kind;
  final CommandCounter commands = new CommandCounter();
  final RedissonClient redisson;
  final HikariDataSource pool;
  final WriteLog writes = new WriteLog();
  final StrategyContext context;
  final Strategy strategy;
  final OpenLoopReaders readers;

  /**
   * @param durationNanos how long its schedule lasts
   * @param seed its schedule's seed (each strategy its own, so their arrivals do not coincide)
   */
  ReaderApp(StrategyKind kind, Setup setup, long durationNanos, long seed) {
    this.kind = kind;
    StampedeSettings settings = setup.settings();
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    config.setThreads(2);
    config.setNettyThreads(4);
    config.setNettyHook(commands);
    config
        .useSingleServer()
        .setAddress(setup.redisUrl())
        .setDatabase(setup.redisDatabase())
        .setConnectionPoolSize(32)
        .setConnectionMinimumIdleSize(16)
        .setSubscriptionConnectionPoolSize(2)
        .setSubscriptionConnectionMinimumIdleSize(1)
        .setTimeout(5_000);
    this.redisson = Redisson.create(config);
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName("stampede-" + kind.id());
    hikari.setJdbcUrl(setup.jdbcUrl());
    hikari.setUsername(EmbeddedPostgreSql.USER);
    hikari.setPassword(EmbeddedPostgreSql.PASSWORD);
    // (a) never computes; the others open their whole pool at start, as a production pool would be warm.
    int poolSize = kind == StrategyKind.NEVER_EXPIRES ? 2 : settings.poolSize();
    hikari.setMaximumPoolSize(poolSize);
    hikari.setMinimumIdle(poolSize);
    hikari.setConnectionTimeout(TimeUnit.SECONDS.toMillis(10));
    hikari.setReadOnly(true);
    hikari.addDataSourceProperty("readOnlyMode", "always");
    hikari.addDataSourceProperty("ApplicationName", "stampede-" + kind.id());
    this.pool = new HikariDataSource(hikari);
    String label = kind == StrategyKind.REFRESHER ? kind.id() + "~client" : kind.id();
    this.context =
        new StrategyContext(
            kind,
            setup.run(),
            redisson,
            new SourceCall(pool, setup.run(), label, setup.cost()),
            setup.ttl(),
            writes,
            setup.cost(),
            settings.keys(),
            settings.instances());
    this.strategy = create(kind, context);
    Arrivals arrivals =
        Arrivals.poisson(settings.readsPerSecond(), durationNanos, setup.zipf(), settings.instances(), seed);
    this.readers = new OpenLoopReaders(kind.id(), arrivals, strategy::read, settings.readerThreads(), setup.clock());
  }

  private static Strategy create(StrategyKind kind, StrategyContext context) {
    return switch (kind) {
      case NEVER_EXPIRES -> new NeverExpires(context);
      case CACHE_ASIDE -> new CacheAside(context);
      case LOCK -> new LockedCacheAside(context);
      case XFETCH_1 -> new XFetch(context, 1.0);
      case XFETCH_15 -> new XFetch(context, 1.5);
      case CAFFEINE -> new CaffeineRefreshAhead(context);
      case REFRESHER -> new RefresherStrategy(context);
    };
  }

  @Override
  public void close() throws Exception {
    try {
      strategy.close();
    } finally {
      pool.close();
      redisson.shutdown(0, 5, TimeUnit.SECONDS);
    }
  }
}

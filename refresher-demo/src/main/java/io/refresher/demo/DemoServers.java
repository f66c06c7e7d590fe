package io.refresher.demo;

import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;
import java.io.PrintStream;

/**
 * The real servers a demo runs on, started from Maven artifacts: PostgreSQL with the demo's
 * database, and Redis. Shutdown hooks stop them however the demo ends (Ctrl-C included).
 */
record DemoServers(EmbeddedPostgreSql postgres, EmbeddedRedis redis, String dbUrl) implements AutoCloseable {

  static DemoServers start(PrintStream out) {
    return start(out, false);
  }

  /** @param logicalDecoding a PostgreSQL whose log carries logical changes, for change capture */
  static DemoServers start(PrintStream out, boolean logicalDecoding) {
    out.println("Starting embedded PostgreSQL and Redis (real servers from Maven artifacts)...");
    EmbeddedPostgreSql postgres = logicalDecoding ? EmbeddedPostgreSql.startWithLogicalDecoding() : EmbeddedPostgreSql.start();
    Runtime.getRuntime().addShutdownHook(new Thread(postgres::close, "demo-postgres-stop"));
    EmbeddedRedis redis = EmbeddedRedis.start();
    Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "demo-redis-stop"));
    return new DemoServers(postgres, redis, postgres.createDatabase("refresher_demo"));
  }

  /** Redis first, then PostgreSQL; each may be closed twice (the hooks close them again). */
  @Override
  public void close() {
    redis.close();
    postgres.close();
  }
}

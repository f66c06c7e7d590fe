package io.refresher.bench;

import io.refresher.embedded.EmbeddedPostgreSql;
import io.refresher.embedded.EmbeddedRedis;

/**
 * What every phase shares: the one Redis and PostgreSQL of the run (so the ceiling and the
 * service are measured on the same servers), and how long to run.
 *
 * @param quick the short mode ({@code --quick}: the whole run under 10 minutes on 2 cores)
 * @param tiny the CI smoke mode ({@code --tiny}): every phase on a toy configuration, seconds each
 */
public record BenchContext(EmbeddedRedis redis, EmbeddedPostgreSql postgres, boolean quick, boolean tiny) {

  /** A fresh database on the run's PostgreSQL; its JDBC URL. */
  public String newDatabase(String prefix) {
    return postgres.createDatabase(prefix);
  }

  /** Picks the figure for the run's mode. */
  public int pick(int full, int quickValue, int tinyValue) {
    return tiny ? tinyValue : quick ? quickValue : full;
  }
}

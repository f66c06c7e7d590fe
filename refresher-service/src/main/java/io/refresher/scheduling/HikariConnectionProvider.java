package io.refresher.scheduling;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.quartz.utils.ConnectionProvider;

/** Gives Quartz's job store connections from the service's own pool instead of a pool of its own. */
final class HikariConnectionProvider implements ConnectionProvider {

  private final DataSource dataSource;

  HikariConnectionProvider(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return dataSource.getConnection();
  }

  @Override
  public void shutdown() {
    // The pool belongs to the service and is closed by its own lifecycle.
  }

  @Override
  public void initialize() {
    // Nothing to set up: the pool exists already.
  }
}

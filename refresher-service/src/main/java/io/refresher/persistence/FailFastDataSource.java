package io.refresher.persistence;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The registry's pool, short-circuited while {@link DatabaseAvailability} knows of an outage: a
 * connection is then refused at once instead of after the pool's {@code connectionTimeout} (5 s by
 * default, for every admin request and every dispatcher batch while the outage lasts). The refusal
 * is a {@link SQLTransientConnectionException} with SQLState {@code 08001}, the class of "could not
 * connect", so it is reported exactly as a pool timeout would be: the registry is unavailable, 503
 * with {@code Retry-After}, nothing changed.
 */
public final class FailFastDataSource implements DataSource {

  /** SQLState class 08, connection exception: "sqlclient unable to establish sqlconnection". */
  static final String UNABLE_TO_CONNECT = "08001";

  private final DataSource pool;
  private final DatabaseAvailability availability;

  public FailFastDataSource(DataSource pool, DatabaseAvailability availability) {
    this.pool = pool;
    this.availability = availability;
  }

  @Override
  public Connection getConnection() throws SQLException {
    refuseDuringOutage();
    return pool.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    refuseDuringOutage();
    return pool.getConnection(username, password);
  }

  private void refuseDuringOutage() throws SQLTransientConnectionException {
    var outage = availability.outage();
    if (outage.isPresent()) {
      throw new SQLTransientConnectionException(
          "PostgreSQL unavailable since " + outage.get().since() + " (" + outage.get().cause() + ")",
          UNABLE_TO_CONNECT);
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return pool.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    pool.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    pool.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return pool.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return pool.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || pool.isWrapperFor(type);
  }
}

package io.refresher.wiring;

import io.refresher.changes.ChangeListener;
import io.refresher.config.DatabaseFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.config.SourceFactory;
import java.sql.DriverManager;
import java.util.Properties;

/**
 * The sessions the change feeds listen on: one per datasource with feeds, outside the pools (a
 * listening session is held for as long as it listens), opened with the datasource's settings.
 */
public final class ListeningConnections {

  /** Shown in {@code pg_stat_activity.application_name} for every listening (and standby) session. */
  public static final String APPLICATION_NAME = "refresher-changes";

  private ListeningConnections() {}

  /** Opens a listening session on the named datasource. */
  static ChangeListener.Connector connector(RefresherConfiguration config, String datasource) {
    DatabaseFactory database =
        SourceFactory.DEFAULT_DATASOURCE.equals(datasource) ? config.getDatabase() : config.getDatasources().get(datasource);
    if (database == null) {
      throw new IllegalStateException("change feed on unknown datasource '" + datasource + "'");
    }
    Properties properties = properties(database);
    return () -> DriverManager.getConnection(database.getUrl(), properties);
  }

  /**
   * The listening session's driver properties: the datasource's own, its credentials, and bounds on
   * connecting and on every reply (a keepalive or lock query on a dead connection fails instead of
   * blocking the listener), under an application name operators can find it by.
   */
  static Properties properties(DatabaseFactory datasource) {
    Properties properties = new Properties();
    properties.putAll(datasource.getProperties());
    properties.setProperty("user", datasource.getUser());
    properties.setProperty("password", datasource.getPassword());
    properties.setProperty("ApplicationName", APPLICATION_NAME);
    properties.setProperty("connectTimeout", Long.toString(DatabaseFactory.wholeSeconds(datasource.getConnectionTimeout())));
    properties.setProperty("socketTimeout", Long.toString(DatabaseFactory.wholeSeconds(datasource.getSocketTimeout())));
    properties.setProperty("tcpKeepAlive", "true");
    // a session of its own that only listens: not read-only, so that LISTEN is allowed whatever
    // the source pools enforce
    properties.remove("readOnlyMode");
    properties.remove("readOnly");
    return properties;
  }
}

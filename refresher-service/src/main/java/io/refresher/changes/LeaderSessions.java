package io.refresher.changes;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sessions that hold a leader lock (the notification listener's, the log reader's) have
 * in common: short TCP keepalives, a round trip that finds a silently dead connection, and a close
 * that cannot fail.
 */
final class LeaderSessions {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderSessions.class);

  /**
   * The server probes the session's client after 10 s of silence, every 5 s, 3 times: a leader
   * whose host or network is gone loses its session, and the lock, in about 25 s instead of the
   * operating system's default two hours. (A frozen process's kernel still answers probes.)
   */
  static final String KEEPALIVE_SETTINGS =
      "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3";

  private LeaderSessions() {}

  /** Sets {@link #KEEPALIVE_SETTINGS} on the session; a platform without them keeps the system's. */
  static void shortenKeepalives(Connection session, String what) {
    try (Statement statement = session.createStatement()) {
      statement.execute(KEEPALIVE_SETTINGS);
    } catch (SQLException e) {
      LOG.debug("keepalive settings of the {} session refused: {}", what, e.getMessage());
    }
  }

  /** A round trip, bounded by the connection's socket timeout: finds a connection that died silently. */
  static void keepalive(Connection session) throws SQLException {
    try (Statement statement = session.createStatement();
        ResultSet ignored = statement.executeQuery("SELECT 1")) {
      // nothing to read
    }
  }

  static void closeQuietly(Connection connection) {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException | RuntimeException e) {
      // it is being thrown away
    }
  }
}

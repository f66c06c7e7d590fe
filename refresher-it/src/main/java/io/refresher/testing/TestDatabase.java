package io.refresher.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** A database of its own on the shared test PostgreSQL server. */
public record TestDatabase(String url, String user, String password) {

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, password);
  }

  /** Runs statements (test data set-up), failing the test on error. */
  public void execute(String... sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("test SQL failed: " + e.getMessage(), e);
    }
  }

  /** A single long from a query. */
  public long queryLong(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        var rs = statement.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0L;
    } catch (SQLException e) {
      throw new IllegalStateException("test query failed: " + e.getMessage(), e);
    }
  }

  /** The first column of every row of a query, as text. */
  public java.util.List<String> queryStrings(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        var rs = statement.executeQuery(sql)) {
      java.util.List<String> values = new java.util.ArrayList<>();
      while (rs.next()) {
        values.add(rs.getString(1));
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException("test query failed: " + e.getMessage(), e);
    }
  }

  /**
   * How many times statements whose text contains {@code marker} ran in this database, from
   * pg_stat_statements (exact and immediate, unlike the cumulative statistics views).
   */
  public long executionsOf(String marker) {
    return queryLong(
        "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
            + "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            + "AND query LIKE '%" + marker.replace("'", "''") + "%' "
            + "AND query NOT LIKE '%pg_stat_statements%'");
  }
}

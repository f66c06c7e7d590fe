package io.refresher.bench.stampede;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** One application's way to run the source for a key: {@code SELECT bench_compute(...)} on its pool. */
final class SourceCall {

  private final DataSource pool;
  private final String run;
  private final String label;
  private final String cost;

  /**
   * @param label how the executions are labelled in the database's log: the strategy id, with
   *     {@code ~<caller>} when one strategy has several callers
   */
  SourceCall(DataSource pool, String run, String label, SourceCost cost) {
    this.pool = pool;
    this.run = run;
    this.label = label;
    this.cost = cost.argument();
  }

  String compute(int rank) throws SQLException {
    try (Connection connection = pool.getConnection();
        PreparedStatement call = connection.prepareStatement("SELECT bench_compute(?, ?, ?, ?)")) {
      call.setString(1, run);
      call.setString(2, label);
      call.setString(3, Integer.toString(rank));
      call.setString(4, cost);
      try (ResultSet rows = call.executeQuery()) {
        rows.next();
        return rows.getString(1);
      }
    }
  }
}

package io.refresher.refresh;

import java.util.Map;
import java.util.Objects;

/**
 * One row change read from a datasource's write-ahead log, its columns as text (a number as
 * PostgreSQL prints it, a string as is; {@code null} and values with no text form are left out).
 *
 * @param table {@code schema.table}
 * @param row the row after the change; for a delete, what the log has of the deleted row (its
 *     replica identity: the primary key by default, every column with {@code REPLICA IDENTITY FULL})
 * @param oldRow for an update, what the log has of the row before it (only with {@code REPLICA
 *     IDENTITY FULL}, or the primary key when the update changed it); otherwise empty
 */
public record RowChange(String table, Operation operation, Map<String, String> row, Map<String, String> oldRow) {

  /** What happened to the row. */
  public enum Operation {
    INSERT,
    UPDATE,
    DELETE
  }

  public RowChange {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(operation, "operation");
    row = Map.copyOf(row);
    oldRow = oldRow == null ? Map.of() : Map.copyOf(oldRow);
  }
}

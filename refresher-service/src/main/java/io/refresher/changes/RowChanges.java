package io.refresher.changes;

import io.refresher.refresh.RowChange;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads a row change out of one of Debezium's change records (its envelope: {@code op}, {@code
 * before}, {@code after}, {@code source.schema}, {@code source.table}). Heartbeats, tombstones and
 * anything else that is not a row change give none.
 */
final class RowChanges {

  private RowChanges() {}

  static Optional<RowChange> of(SourceRecord record) {
    Schema schema = record.valueSchema();
    if (!(record.value() instanceof Struct value) || schema == null || schema.name() == null || !schema.name().endsWith(".Envelope")) {
      return Optional.empty();
    }
    Struct source = value.getStruct("source");
    String table = source.getString("schema") + "." + source.getString("table");
    Struct before = value.getStruct("before");
    Struct after = value.getStruct("after");
    return switch (value.getString("op")) {
      case "c", "r" -> Optional.of(new RowChange(table, RowChange.Operation.INSERT, columns(after), Map.of()));
      case "u" -> Optional.of(new RowChange(table, RowChange.Operation.UPDATE, columns(after), columns(before)));
      case "d" -> Optional.of(new RowChange(table, RowChange.Operation.DELETE, columns(before), Map.of()));
      default -> Optional.empty();
    };
  }

  /** Whether the record is a truncation of a table (its rows' keys cannot be named). */
  static Optional<String> truncatedTable(SourceRecord record) {
    if (record.value() instanceof Struct value
        && record.valueSchema() != null
        && record.valueSchema().name() != null
        && record.valueSchema().name().endsWith(".Envelope")
        && "t".equals(value.getString("op"))) {
      Struct source = value.getStruct("source");
      return Optional.of(source.getString("schema") + "." + source.getString("table"));
    }
    return Optional.empty();
  }

  /** The row's columns with a text form: numbers as PostgreSQL prints them, strings, booleans, UUIDs. */
  static Map<String, String> columns(Struct row) {
    Map<String, String> columns = new LinkedHashMap<>();
    if (row == null) {
      return columns;
    }
    for (Field field : row.schema().fields()) {
      String text = text(row.get(field));
      if (text != null) {
        columns.put(field.name(), text);
      }
    }
    return columns;
  }

  private static String text(Object value) {
    if (value instanceof String || value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte
        || value instanceof Boolean || value instanceof UUID) {
      return value.toString();
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    return null;
  }
}

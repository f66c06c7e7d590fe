package io.refresher.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;

/**
 * Turns one result row into a JSON object keyed by column label. Numbers stay numbers, booleans
 * stay booleans, {@code json}/{@code jsonb} columns are embedded as JSON (not as quoted text), and
 * timestamps become ISO-8601 strings, so applications get a value they can parse without knowing
 * the SQL types.
 */
final class JsonRowMapper {

  private final ObjectMapper json;

  JsonRowMapper(ObjectMapper json) {
    this.json = json;
  }

  /** The current row as a JSON object. */
  ObjectNode row(ResultSet rs) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    ObjectNode row = json.createObjectNode();
    for (int column = 1; column <= meta.getColumnCount(); column++) {
      row.set(meta.getColumnLabel(column), value(rs, meta, column));
    }
    return row;
  }

  /** The first column of the current row as text: strings as-is, JSON as its text, others via JSON. */
  String scalarText(ResultSet rs) throws SQLException {
    return scalarText(rs, 1);
  }

  /** A column of the current row (1 is the first) as text, as {@link #scalarText(ResultSet)}. */
  String scalarText(ResultSet rs, int column) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    JsonNode node = value(rs, meta, column);
    if (node.isNull()) {
      return null;
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    return node.toString();
  }

  private JsonNode value(ResultSet rs, ResultSetMetaData meta, int column) throws SQLException {
    Object value = rs.getObject(column);
    if (value == null) {
      return json.nullNode();
    }
    String typeName = meta.getColumnTypeName(column);
    if ("json".equalsIgnoreCase(typeName) || "jsonb".equalsIgnoreCase(typeName)) {
      try {
        return json.readTree(rs.getString(column));
      } catch (JsonProcessingException e) {
        return json.getNodeFactory().textNode(rs.getString(column));
      }
    }
    switch (meta.getColumnType(column)) {
      case Types.TIMESTAMP_WITH_TIMEZONE:
        return json.getNodeFactory().textNode(rs.getObject(column, OffsetDateTime.class).toString());
      case Types.TIMESTAMP:
      case Types.DATE:
      case Types.TIME:
        return json.getNodeFactory().textNode(rs.getString(column));
      default:
        break;
    }
    if (value instanceof Boolean flag) {
      return json.getNodeFactory().booleanNode(flag);
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return json.getNodeFactory().numberNode(((Number) value).longValue());
    }
    if (value instanceof BigDecimal decimal) {
      return json.getNodeFactory().numberNode(decimal);
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      return Double.isFinite(d)
          ? json.getNodeFactory().numberNode(d)
          : json.getNodeFactory().textNode(Double.toString(d));
    }
    if (value instanceof Array array) {
      ArrayNode items = json.createArrayNode();
      Object[] elements = (Object[]) array.getArray();
      for (Object element : elements) {
        items.add(json.valueToTree(element));
      }
      return items;
    }
    return json.getNodeFactory().textNode(value.toString());
  }
}

package io.refresher.source;

import java.time.Duration;
import java.util.Objects;

/**
 * A source's batch form: one query or request for many keys of the source instead of one per key.
 * The source has one parameter, whose values for all the batch's keys go as one array. See {@code
 * docs/sources.md} ("Batch sources").
 *
 * <p>A SQL source's: {@code sql} binds the parameter as an array ({@code WHERE id = ANY(:id)}), and
 * {@code keyColumn} says which of its rows belongs to which key (the column holding that
 * parameter's value). An HTTP source's: {@code http} is a {@code POST} whose JSON body holds the
 * parameter as a whole value ({@code {"ids": "{id}"}}, sent as a JSON array), its pointer picks
 * the array of items out of the response, {@code itemId} the id within an item and {@code
 * itemValue} (null: the whole item) the value.
 *
 * @param maxBatch keys per query or request at most
 * @param window keys of the source due within this of each other are refreshed together: their
 *     next refresh times are aligned on this grid, earlier only (zero: refreshed together only when
 *     they are due at once)
 */
public record BatchForm(
    String sql, String keyColumn, HttpRequestSpec http, String itemId, String itemValue, int maxBatch, Duration window) {

  public BatchForm {
    Objects.requireNonNull(window, "window");
    if ((sql == null) == (http == null)) {
      throw new IllegalArgumentException("a batch form has either sql or http");
    }
    if (sql != null) {
      Objects.requireNonNull(keyColumn, "keyColumn");
    } else {
      Objects.requireNonNull(itemId, "itemId");
    }
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1");
    }
  }

  /** A SQL source's batch form. */
  public BatchForm(String sql, String keyColumn, int maxBatch, Duration window) {
    this(sql, keyColumn, null, null, null, maxBatch, window);
  }

  /** An HTTP source's batch form. */
  public static BatchForm http(HttpRequestSpec http, String itemId, String itemValue, int maxBatch, Duration window) {
    return new BatchForm(null, null, http, itemId, itemValue, maxBatch, window);
  }

  /** {@code at}, moved back to the window's grid: keys due within one window share their time. */
  public long aligned(long atMillis) {
    long step = window.toMillis();
    return step <= 0 ? atMillis : Math.floorDiv(atMillis, step) * step;
  }
}

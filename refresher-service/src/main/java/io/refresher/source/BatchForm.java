package io.refresher.source;

import java.time.Duration;
import java.util.Objects;

/**
 * A SQL source's batch form: one query for many keys of the source instead of one per key. The
 * source has one parameter; the batch query takes all the keys' values of it as one array ({@code
 * WHERE id = ANY(:id)}), and {@code keyColumn} says which of its rows belongs to which key (the
 * column holding that parameter's value). See {@code docs/sources.md} ("Batch sources").
 *
 * @param sql the batch query, naming the source's parameter once or more: it is bound as an array
 *     of the parameter's type
 * @param keyColumn the column of a row that holds the parameter value of the key it belongs to
 * @param maxBatch keys per query at most
 * @param window keys of the source due within this of each other are refreshed together: their
 *     next refresh times are aligned on this grid, earlier only (zero: refreshed together only when
 *     they are due at once)
 */
public record BatchForm(String sql, String keyColumn, int maxBatch, Duration window) {

  public BatchForm {
    Objects.requireNonNull(sql, "sql");
    Objects.requireNonNull(keyColumn, "keyColumn");
    Objects.requireNonNull(window, "window");
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1");
    }
  }

  /** {@code at}, moved back to the window's grid: keys due within one window share their time. */
  public long aligned(long atMillis) {
    long step = window.toMillis();
    return step <= 0 ? atMillis : Math.floorDiv(atMillis, step) * step;
  }
}

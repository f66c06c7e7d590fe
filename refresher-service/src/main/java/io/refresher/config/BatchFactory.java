package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.refresher.source.BatchForm;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * The {@code batch:} block of a SQL source with one parameter: the query that computes many of its
 * keys at once. See {@code docs/sources.md} ("Batch sources").
 *
 * <pre>
 *     batch:
 *       sql: SELECT id, name, price FROM product WHERE id = ANY(:id)   # :id bound as an array
 *       keyColumn: id        # the column holding the parameter value a row belongs to
 *       maxBatch: 500        # keys per query at most
 *       window: 1s           # keys due within this of each other are refreshed together
 * </pre>
 */
public class BatchFactory {

  @NotNull @JsonProperty private String sql;

  @NotNull @JsonProperty private String keyColumn;

  @Min(1)
  @Max(10_000)
  @JsonProperty
  private int maxBatch = 500;

  @NotNull
  @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration window = Duration.seconds(1);

  public String getSql() {
    return sql;
  }

  public void setSql(String sql) {
    this.sql = sql;
  }

  public String getKeyColumn() {
    return keyColumn;
  }

  public void setKeyColumn(String keyColumn) {
    this.keyColumn = keyColumn;
  }

  public int getMaxBatch() {
    return maxBatch;
  }

  public void setMaxBatch(int maxBatch) {
    this.maxBatch = maxBatch;
  }

  public Duration getWindow() {
    return window;
  }

  public void setWindow(Duration window) {
    this.window = window;
  }

  public BatchForm build() {
    return new BatchForm(sql, keyColumn, maxBatch, window.toJavaDuration());
  }
}

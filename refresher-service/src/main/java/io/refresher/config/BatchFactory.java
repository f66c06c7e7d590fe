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
 * The {@code batch:} block of a source with one parameter: the query, or the request, that computes
 * many of its keys at once. See {@code docs/sources.md} ("Batch sources").
 *
 * <pre>
 *     batch:                 # a SQL source's
 *       sql: SELECT id, name, price FROM product WHERE id = ANY(:id)   # :id bound as an array
 *       keyColumn: id        # the column holding the parameter value a row belongs to
 *       maxBatch: 500        # keys per query at most
 *       window: 1s           # keys due within this of each other are refreshed together
 *     batch:                 # an HTTP source's
 *       http: { endpoint: catalog, method: POST, path: /products:batchGet, body: { ids: "{id}" }, pointer: /items }
 *       itemId: /id          # JSON Pointer, within an item, to the id it belongs to
 *       itemValue: /data     # optional: the value within an item (default: the whole item)
 * </pre>
 */
public class BatchFactory {

  @JsonProperty private String sql;

  @JsonProperty private String keyColumn;

  @jakarta.validation.Valid @JsonProperty private HttpSourceFactory http;

  @JsonProperty private String itemId;

  @JsonProperty private String itemValue;

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

  public HttpSourceFactory getHttp() {
    return http;
  }

  public void setHttp(HttpSourceFactory http) {
    this.http = http;
  }

  public String getItemId() {
    return itemId;
  }

  public void setItemId(String itemId) {
    this.itemId = itemId;
  }

  public String getItemValue() {
    return itemValue;
  }

  public void setItemValue(String itemValue) {
    this.itemValue = itemValue;
  }

  public BatchForm build() {
    if (http != null) {
      return BatchForm.http(http.build(), itemId, itemValue == null || itemValue.isEmpty() ? null : itemValue, maxBatch, window.toJavaDuration());
    }
    return new BatchForm(sql, keyColumn, maxBatch, window.toJavaDuration());
  }
}

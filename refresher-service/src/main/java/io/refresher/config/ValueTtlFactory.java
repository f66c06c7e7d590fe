package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.refresher.source.ValueTtl;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * The {@code valueTtl:} block of a source: its values carry their own TTL, within bounds. See
 * {@code docs/sources.md} ("TTL from the value").
 *
 * <pre>
 *     valueTtl:
 *       column: ttl_seconds   # SQL: a column of the row, in seconds (not part of a row value)
 *       cacheControl: true    # HTTP: the response's Cache-Control (s-maxage, else max-age)
 *       min: 30s              # no value lives shorter...
 *       max: 1h               # ...or longer
 * </pre>
 */
public class ValueTtlFactory {

  @JsonProperty private String column;

  @JsonProperty private boolean cacheControl;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration min = Duration.seconds(1);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration max = Duration.days(1);

  public String getColumn() {
    return column;
  }

  public void setColumn(String column) {
    this.column = column == null || column.isBlank() ? null : column;
  }

  public boolean isCacheControl() {
    return cacheControl;
  }

  public void setCacheControl(boolean cacheControl) {
    this.cacheControl = cacheControl;
  }

  public Duration getMin() {
    return min;
  }

  public void setMin(Duration min) {
    this.min = min;
  }

  public Duration getMax() {
    return max;
  }

  public void setMax(Duration max) {
    this.max = max;
  }

  @ValidationMethod(message = "min must not be above max")
  public boolean isMinAtMostMax() {
    return min == null || max == null || min.toMilliseconds() <= max.toMilliseconds();
  }

  public ValueTtl build() {
    return new ValueTtl(column, cacheControl, min.toJavaDuration(), max.toJavaDuration());
  }
}

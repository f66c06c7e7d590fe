package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.refresher.refresh.TtrSettings;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code refresh.ttr:} block: bounds and inputs of the adaptive TTR ({@code docs/ttr.md}). */
public class TtrFactory {

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration initial = Duration.seconds(5);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration min = Duration.seconds(1);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration max = Duration.minutes(5);

  @DecimalMin(value = "0.0", inclusive = false)
  @DecimalMax("1.0")
  private double percentile = 0.95;

  @Min(1)
  @Max(100)
  private int history = 20;

  @DecimalMin("0.0")
  @DecimalMax("10.0")
  private double heatMargin = 0.5;

  @JsonProperty
  public Duration getInitial() {
    return initial;
  }

  @JsonProperty
  public void setInitial(Duration initial) {
    this.initial = initial;
  }

  @JsonProperty
  public Duration getMin() {
    return min;
  }

  @JsonProperty
  public void setMin(Duration min) {
    this.min = min;
  }

  @JsonProperty
  public Duration getMax() {
    return max;
  }

  @JsonProperty
  public void setMax(Duration max) {
    this.max = max;
  }

  @JsonProperty
  public double getPercentile() {
    return percentile;
  }

  @JsonProperty
  public void setPercentile(double percentile) {
    this.percentile = percentile;
  }

  @JsonProperty
  public int getHistory() {
    return history;
  }

  @JsonProperty
  public void setHistory(int history) {
    this.history = history;
  }

  @JsonProperty
  public double getHeatMargin() {
    return heatMargin;
  }

  @JsonProperty
  public void setHeatMargin(double heatMargin) {
    this.heatMargin = heatMargin;
  }

  @ValidationMethod(message = "min must not be longer than max")
  public boolean isRangeValid() {
    return min == null || max == null || min.toMilliseconds() <= max.toMilliseconds();
  }

  public TtrSettings build() {
    return new TtrSettings(
        initial.toJavaDuration(), min.toJavaDuration(), max.toJavaDuration(), percentile, history, heatMargin);
  }
}

package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.refresher.access.AccessSettings;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * The {@code access:} block: how reported reads become access rates, and which keys are hot
 * ({@code docs/hot-keys.md}).
 */
public class AccessFactory {

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration halfLife = Duration.minutes(1);

  @DecimalMin(value = "0.0", inclusive = false)
  private double hotThreshold = 1.0;

  @NotNull private Duration coldAfter = Duration.minutes(5);

  @Min(1)
  @Max(10_000_000)
  private int maxHotKeys = 100_000;

  @NotNull private Duration settle = Duration.seconds(2);

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration sampleInterval = Duration.seconds(5);

  @Min(1)
  @Max(100_000_000)
  private int maxTracked = 1_000_000;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration snapshotInterval = Duration.minutes(1);

  @Min(1)
  @Max(10_000_000)
  private int snapshotSize = 100_000;

  @JsonProperty
  public Duration getHalfLife() {
    return halfLife;
  }

  @JsonProperty
  public void setHalfLife(Duration halfLife) {
    this.halfLife = halfLife;
  }

  @JsonProperty
  public double getHotThreshold() {
    return hotThreshold;
  }

  @JsonProperty
  public void setHotThreshold(double hotThreshold) {
    this.hotThreshold = hotThreshold;
  }

  @JsonProperty
  public Duration getColdAfter() {
    return coldAfter;
  }

  @JsonProperty
  public void setColdAfter(Duration coldAfter) {
    this.coldAfter = coldAfter;
  }

  @JsonProperty
  public int getMaxHotKeys() {
    return maxHotKeys;
  }

  @JsonProperty
  public void setMaxHotKeys(int maxHotKeys) {
    this.maxHotKeys = maxHotKeys;
  }

  @JsonProperty
  public Duration getSettle() {
    return settle;
  }

  @JsonProperty
  public void setSettle(Duration settle) {
    this.settle = settle;
  }

  @JsonProperty
  public Duration getSampleInterval() {
    return sampleInterval;
  }

  @JsonProperty
  public void setSampleInterval(Duration sampleInterval) {
    this.sampleInterval = sampleInterval;
  }

  @JsonProperty
  public int getMaxTracked() {
    return maxTracked;
  }

  @JsonProperty
  public void setMaxTracked(int maxTracked) {
    this.maxTracked = maxTracked;
  }

  @JsonProperty
  public Duration getSnapshotInterval() {
    return snapshotInterval;
  }

  @JsonProperty
  public void setSnapshotInterval(Duration snapshotInterval) {
    this.snapshotInterval = snapshotInterval;
  }

  @JsonProperty
  public int getSnapshotSize() {
    return snapshotSize;
  }

  @JsonProperty
  public void setSnapshotSize(int snapshotSize) {
    this.snapshotSize = snapshotSize;
  }

  public AccessSettings build() {
    return new AccessSettings(
        halfLife.toJavaDuration(),
        hotThreshold,
        coldAfter.toJavaDuration(),
        maxHotKeys,
        settle.toJavaDuration(),
        sampleInterval.toJavaDuration(),
        maxTracked,
        snapshotSize);
  }
}

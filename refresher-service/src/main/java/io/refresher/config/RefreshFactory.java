package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.refresher.refresh.RefreshSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code refresh:} block: when keys are refreshed and how a refresh is protected. */
public class RefreshFactory {

  @Valid @NotNull private TtrFactory ttr = new TtrFactory();

  @DecimalMin("0.05")
  @DecimalMax("0.9")
  private double maxTtrFraction = 0.5;

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration lockLease = Duration.seconds(30);

  @NotNull private Duration staleGrace = Duration.minutes(5);

  @DecimalMin("0.0")
  @DecimalMax("1.0")
  private double jitter = 0.1;

  /** After a late refresh, how much earlier (a random part of this fraction of the period) the next comes. */
  @DecimalMin("0.0")
  @DecimalMax("0.5")
  private double backlogSpread = RefreshSettings.DEFAULT_BACKLOG_SPREAD;

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  private Duration retryBase = Duration.milliseconds(500);

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  private Duration retryMax = Duration.minutes(1);

  @NotNull private DataSize maxValueSize = DataSize.mebibytes(1);

  /**
   * How long a deleted key's tombstone stays in Redis, refusing the writes of refreshes of the
   * deleted registration that were still running; far longer than a refresh can take.
   */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration deletedTombstone = Duration.minutes(10);

  @JsonProperty
  public Duration getDeletedTombstone() {
    return deletedTombstone;
  }

  @JsonProperty
  public void setDeletedTombstone(Duration deletedTombstone) {
    this.deletedTombstone = deletedTombstone;
  }

  @JsonProperty
  public TtrFactory getTtr() {
    return ttr;
  }

  @JsonProperty
  public void setTtr(TtrFactory ttr) {
    this.ttr = ttr;
  }

  @JsonProperty
  public double getMaxTtrFraction() {
    return maxTtrFraction;
  }

  @JsonProperty
  public void setMaxTtrFraction(double maxTtrFraction) {
    this.maxTtrFraction = maxTtrFraction;
  }

  @JsonProperty
  public Duration getLockLease() {
    return lockLease;
  }

  @JsonProperty
  public void setLockLease(Duration lockLease) {
    this.lockLease = lockLease;
  }

  @JsonProperty
  public Duration getStaleGrace() {
    return staleGrace;
  }

  @JsonProperty
  public void setStaleGrace(Duration staleGrace) {
    this.staleGrace = staleGrace;
  }

  @JsonProperty
  public double getJitter() {
    return jitter;
  }

  @JsonProperty
  public void setJitter(double jitter) {
    this.jitter = jitter;
  }

  @JsonProperty
  public double getBacklogSpread() {
    return backlogSpread;
  }

  @JsonProperty
  public void setBacklogSpread(double backlogSpread) {
    this.backlogSpread = backlogSpread;
  }

  @JsonProperty
  public Duration getRetryBase() {
    return retryBase;
  }

  @JsonProperty
  public void setRetryBase(Duration retryBase) {
    this.retryBase = retryBase;
  }

  @JsonProperty
  public Duration getRetryMax() {
    return retryMax;
  }

  @JsonProperty
  public void setRetryMax(Duration retryMax) {
    this.retryMax = retryMax;
  }

  @JsonProperty
  public DataSize getMaxValueSize() {
    return maxValueSize;
  }

  @JsonProperty
  public void setMaxValueSize(DataSize maxValueSize) {
    this.maxValueSize = maxValueSize;
  }

  @ValidationMethod(message = "retryMax must not be shorter than retryBase")
  public boolean isRetryRangeValid() {
    return retryMax == null || retryBase == null || retryMax.toMilliseconds() >= retryBase.toMilliseconds();
  }

  public RefreshSettings build() {
    return new RefreshSettings(
        ttr.build(),
        maxTtrFraction,
        lockLease.toJavaDuration(),
        staleGrace.toJavaDuration(),
        jitter,
        retryBase.toJavaDuration(),
        retryMax.toJavaDuration(),
        maxValueSize.toBytes(),
        backlogSpread);
  }
}

package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.refresher.refresh.audit.AuditSettings;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The consistency audit ({@code audit:}); which datasources it samples, and how often, is each
 * datasource's (or HTTP endpoint's) {@code auditSamplesPerSecond}: off unless one is set.
 *
 * <pre>
 * audit:
 *   round: 10s        # one replica samples for this long per firing
 *   settle: 2s        # a difference is looked at again after this (a change feed's refresh)
 *   maxWait: 1m       # ... or after the key's planned refresh, when it comes within this
 *   window: 1h        # GET /v1/audit's window
 *   objective: 0.999  # the share of samples that must match (RefresherAuditBelowObjective)
 * </pre>
 */
public class AuditFactory {

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration round = Duration.seconds(10);

  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration settle = Duration.seconds(2);

  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration maxWait = Duration.minutes(1);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MINUTES)
  @MaxDuration(value = 7, unit = TimeUnit.DAYS)
  @JsonProperty
  private Duration window = Duration.hours(1);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration poolRefresh = Duration.minutes(1);

  @DecimalMin(value = "0", inclusive = false)
  @DecimalMax(value = "1", inclusive = false)
  @JsonProperty
  private double objective = 0.999;

  public Duration getRound() {
    return round;
  }

  public void setRound(Duration round) {
    this.round = round;
  }

  public Duration getSettle() {
    return settle;
  }

  public void setSettle(Duration settle) {
    this.settle = settle;
  }

  public Duration getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }

  public Duration getWindow() {
    return window;
  }

  public void setWindow(Duration window) {
    this.window = window;
  }

  public Duration getPoolRefresh() {
    return poolRefresh;
  }

  public void setPoolRefresh(Duration poolRefresh) {
    this.poolRefresh = poolRefresh;
  }

  public double getObjective() {
    return objective;
  }

  public void setObjective(double objective) {
    this.objective = objective;
  }

  /** @param samplesPerSecond each datasource's and endpoint's {@code auditSamplesPerSecond} */
  public AuditSettings build(Map<String, Double> samplesPerSecond) {
    return new AuditSettings(
        round.toJavaDuration(),
        settle.toJavaDuration(),
        maxWait.toJavaDuration(),
        window.toJavaDuration(),
        poolRefresh.toJavaDuration(),
        objective,
        samplesPerSecond);
  }
}

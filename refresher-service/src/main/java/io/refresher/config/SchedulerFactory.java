package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.refresher.refresh.DispatchSettings;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code scheduler:} block: the due index, the dispatcher and its workers, and Quartz. */
public class SchedulerFactory {

  @Min(1)
  @Max(1024)
  private int workers = 16;

  @Min(1)
  @Max(1_000_000)
  private int maxInFlight = 5000;

  @Min(1)
  @Max(10_000)
  private int claimBatch = 500;

  /**
   * At most 256: the due index records its shard count in a marker in each possible shard's slot
   * ({@code DueShardLayout}). A change between starts moves the entries (docs/architecture.md).
   */
  @Min(1)
  @Max(256)
  private int dueShards = 4;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration pollInterval = Duration.milliseconds(50);

  @NotNull private Duration lookahead = Duration.milliseconds(250);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration claimLease = Duration.seconds(30);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration reconcileInterval = Duration.minutes(5);

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  private Duration epochCheckInterval = Duration.seconds(1);

  /**
   * How often one replica sweeps the kept keys for the freshness metrics (the oldest value and the
   * keys past their planned refresh, per source): one registry query and one Redis round trip per
   * 1,000 kept keys.
   */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration freshnessInterval = Duration.minutes(1);

  @NotBlank private String quartzName = "refresher";

  /**
   * Threads for the cluster-wide jobs on a replica. Three: the consistency audit's round holds one
   * for its length while the audit is on, and the access sampling must not wait behind it.
   */
  @Min(1)
  @Max(10)
  private int quartzThreads = 3;

  @JsonProperty
  public int getWorkers() {
    return workers;
  }

  @JsonProperty
  public void setWorkers(int workers) {
    this.workers = workers;
  }

  @JsonProperty
  public int getMaxInFlight() {
    return maxInFlight;
  }

  @JsonProperty
  public void setMaxInFlight(int maxInFlight) {
    this.maxInFlight = maxInFlight;
  }

  @JsonProperty
  public int getClaimBatch() {
    return claimBatch;
  }

  @JsonProperty
  public void setClaimBatch(int claimBatch) {
    this.claimBatch = claimBatch;
  }

  @JsonProperty
  public int getDueShards() {
    return dueShards;
  }

  @JsonProperty
  public void setDueShards(int dueShards) {
    this.dueShards = dueShards;
  }

  @JsonProperty
  public Duration getPollInterval() {
    return pollInterval;
  }

  @JsonProperty
  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  @JsonProperty
  public Duration getLookahead() {
    return lookahead;
  }

  @JsonProperty
  public void setLookahead(Duration lookahead) {
    this.lookahead = lookahead;
  }

  @JsonProperty
  public Duration getClaimLease() {
    return claimLease;
  }

  @JsonProperty
  public void setClaimLease(Duration claimLease) {
    this.claimLease = claimLease;
  }

  @JsonProperty
  public Duration getReconcileInterval() {
    return reconcileInterval;
  }

  @JsonProperty
  public void setReconcileInterval(Duration reconcileInterval) {
    this.reconcileInterval = reconcileInterval;
  }

  @JsonProperty
  public Duration getFreshnessInterval() {
    return freshnessInterval;
  }

  @JsonProperty
  public void setFreshnessInterval(Duration freshnessInterval) {
    this.freshnessInterval = freshnessInterval;
  }

  @JsonProperty
  public Duration getEpochCheckInterval() {
    return epochCheckInterval;
  }

  @JsonProperty
  public void setEpochCheckInterval(Duration epochCheckInterval) {
    this.epochCheckInterval = epochCheckInterval;
  }

  @JsonProperty
  public String getQuartzName() {
    return quartzName;
  }

  @JsonProperty
  public void setQuartzName(String quartzName) {
    this.quartzName = quartzName;
  }

  @JsonProperty
  public int getQuartzThreads() {
    return quartzThreads;
  }

  @JsonProperty
  public void setQuartzThreads(int quartzThreads) {
    this.quartzThreads = quartzThreads;
  }

  @ValidationMethod(message = "claimLease must be longer than lookahead")
  public boolean isClaimLeaseLongerThanLookahead() {
    return claimLease == null
        || lookahead == null
        || claimLease.toMilliseconds() > lookahead.toMilliseconds();
  }

  public DispatchSettings build() {
    return new DispatchSettings(
        workers,
        maxInFlight,
        claimBatch,
        pollInterval.toJavaDuration(),
        lookahead.toJavaDuration(),
        claimLease.toJavaDuration());
  }
}

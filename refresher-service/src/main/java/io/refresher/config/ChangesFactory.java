package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * The {@code changes:} block of {@code config.yml}: how the notifications that sources' change
 * feeds receive become refreshes. See {@code docs/sources.md}.
 *
 * <pre>
 * changes:
 *   coalesceWindow: 50ms    # a key refreshes at most once per window; later changes in it, once at its end
 *   reconnectDelay: 1s      # first wait before the listening connection is opened again (doubles to 30 s);
 *                           # also how often a standby replica tries to become the listener
 *   threads: 2              # refreshes and evictions of changed keys running at once on this replica
 *   maxPendingKeys: 100000  # keys with a change refresh going on or planned; a change to one more waits for room
 * </pre>
 */
public class ChangesFactory {

  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration coalesceWindow = Duration.milliseconds(50);

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration reconnectDelay = Duration.seconds(1);

  @Min(1)
  @Max(64)
  @JsonProperty
  private int threads = 2;

  @Min(1)
  @Max(10_000_000)
  @JsonProperty
  private int maxPendingKeys = 100_000;

  public int getThreads() {
    return threads;
  }

  public void setThreads(int threads) {
    this.threads = threads;
  }

  public int getMaxPendingKeys() {
    return maxPendingKeys;
  }

  public void setMaxPendingKeys(int maxPendingKeys) {
    this.maxPendingKeys = maxPendingKeys;
  }

  public Duration getCoalesceWindow() {
    return coalesceWindow;
  }

  public void setCoalesceWindow(Duration coalesceWindow) {
    this.coalesceWindow = coalesceWindow;
  }

  public Duration getReconnectDelay() {
    return reconnectDelay;
  }

  public void setReconnectDelay(Duration reconnectDelay) {
    this.reconnectDelay = reconnectDelay;
  }
}

package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.refresh.TtrDecision;
import java.time.Duration;

/**
 * A key's TTR and why: the inputs of the formula in {@code docs/ttr.md}. Durations in ms; {@code
 * computeMillis} and {@code retryRoomMillis} are absent while the key has no compute history (the
 * initial TTR applies), {@code rate} while the key is not in the hot set.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TtrView(
    long millis,
    String iso,
    int samples,
    Long computeMillis,
    long lagMillis,
    Long retryRoomMillis,
    Double rate,
    double heatFactor,
    long unclampedMillis,
    long minMillis,
    long maxMillis,
    String limitedBy) {

  static TtrView of(TtrDecision decision) {
    return new TtrView(
        decision.ttr().toMillis(),
        decision.ttr().toString(),
        decision.samples(),
        millis(decision.compute()),
        decision.lag().toMillis(),
        millis(decision.retryRoom()),
        Double.isNaN(decision.rate()) ? null : round(decision.rate()),
        round(decision.heatFactor()),
        decision.unclamped().toMillis(),
        decision.lowerBound().toMillis(),
        decision.upperBound().toMillis(),
        decision.limitedBy());
  }

  private static Long millis(Duration duration) {
    return duration == null ? null : duration.toMillis();
  }

  static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}

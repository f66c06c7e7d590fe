package io.refresher.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.refresher.refresh.RefreshOutcome;
import java.time.Instant;

/**
 * A refresh outcome as JSON: {@code outcome} is refreshed, revalidated (the source said the value
 * still holds; {@code computedAt} is then the revalidation's time), skipped or failed.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OutcomeView(
    String outcome,
    String reason,
    Instant computedAt,
    Long computeMillis,
    Instant expiresAt,
    Instant nextRefreshAt,
    Long ttrMillis,
    String version,
    String errorKind,
    String error,
    Integer consecutiveFailures,
    Instant retryAt) {

  static OutcomeView of(RefreshOutcome outcome) {
    if (outcome instanceof RefreshOutcome.Refreshed r) {
      return new OutcomeView(
          r.name(), null, r.computedAt(), r.computeDuration().toMillis(), r.expiresAt(), r.nextRefreshAt(),
          r.ttr().toMillis(), r.fence().toString(), null, null, null, null);
    }
    if (outcome instanceof RefreshOutcome.Revalidated r) {
      return new OutcomeView(
          r.name(), null, r.revalidatedAt(), r.checkDuration().toMillis(), r.expiresAt(), r.nextRefreshAt(),
          r.ttr().toMillis(), r.fence().toString(), null, null, null, null);
    }
    if (outcome instanceof RefreshOutcome.Skipped s) {
      String reason =
          switch (s.reason()) {
            case LOCKED -> "another refresh of this key is in flight";
            case FENCED_OUT -> "a newer value was written meanwhile";
            case COUNTER_REPAIRED ->
                "the key's lock token counter had been evicted from Redis; it was repaired and the key is retried shortly";
            case REGISTRATION_GONE -> "the registration was deleted or replaced while the value was computed";
            case THROTTLED ->
                "the source's datasource is at its load bound, or the source runs its share of the pool already;"
                    + " the key stays due and is retried shortly";
          };
      return new OutcomeView(s.name(), reason, null, null, null, null, null, null, null, null, null, null);
    }
    RefreshOutcome.Failed f = (RefreshOutcome.Failed) outcome;
    return new OutcomeView(
        f.name(), null, null, f.computeDuration().toMillis(), null, null, null, null, f.kind(), f.error(),
        f.consecutiveFailures(), f.retryAt());
  }
}

package io.refresher.refresh.audit;

import java.time.Duration;
import java.util.Map;

/**
 * How the consistency audit samples.
 *
 * @param round how long one firing of the audit samples for; its samples are spread over it
 * @param settle how long a difference is given to be corrected by the service itself (a change
 *     feed's refresh in flight) before it is checked again
 * @param maxWait the longest a difference waits for the key's next planned refresh before it is
 *     checked again: a key planned later than that is checked after {@code settle}
 * @param window what {@code GET /v1/audit} and the nines are computed over
 * @param poolRefresh how long a replica reuses the list of kept keys it samples from
 * @param objective the share of samples that must match, for the alert
 * @param samplesPerSecond by datasource (or HTTP endpoint); those without a rate are not audited
 */
public record AuditSettings(
    Duration round,
    Duration settle,
    Duration maxWait,
    Duration window,
    Duration poolRefresh,
    double objective,
    Map<String, Double> samplesPerSecond) {

  public AuditSettings {
    samplesPerSecond = Map.copyOf(samplesPerSecond);
  }

  /** Whether any datasource is audited at all. */
  public boolean enabled() {
    return samplesPerSecond.values().stream().anyMatch(rate -> rate > 0);
  }

  /** The samples one round takes on a datasource: at least one when it has a rate. */
  public int samplesPerRound(String datasource) {
    double rate = samplesPerSecond.getOrDefault(datasource, 0.0);
    if (rate <= 0) {
      return 0;
    }
    return (int) Math.max(1, Math.round(rate * round.toMillis() / 1000.0));
  }
}

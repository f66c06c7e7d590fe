package io.refresher.refresh.audit;

import io.refresher.failure.CacheUnavailableException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Listeners the audit is wired with. */
public final class AuditListeners {

  private static final Logger LOG = LoggerFactory.getLogger(AuditListeners.class);

  private AuditListeners() {}

  /** Tells each of {@code listeners}, in order. */
  public static AuditListener all(AuditListener... listeners) {
    List<AuditListener> each = List.of(listeners);
    return new AuditListener() {
      @Override
      public void onResult(AuditResult result) {
        each.forEach(listener -> listener.onResult(result));
      }

      @Override
      public void onSkipped(String source, String reason) {
        each.forEach(listener -> listener.onSkipped(source, reason));
      }

      @Override
      public void onRepair(String source, String outcome) {
        each.forEach(listener -> listener.onRepair(source, outcome));
      }
    };
  }

  /**
   * Counts concluded samples in the ledger; a sample the ledger cannot take while Redis is away is
   * left out of {@code GET /v1/audit} (the metrics still count it).
   */
  public static AuditListener recordingIn(AuditLedger ledger) {
    return new AuditListener() {
      @Override
      public void onResult(AuditResult result) {
        try {
          ledger.record(result);
        } catch (CacheUnavailableException e) {
          LOG.debug("audit sample of key '{}' not counted in the ledger: {}", result.key(), e.getMessage());
        }
      }

      @Override
      public void onSkipped(String source, String reason) {}

      @Override
      public void onRepair(String source, String outcome) {}
    };
  }
}

package io.refresher.refresh.audit;

/** Hears what the audit concluded, and what kept a sample from concluding. */
public interface AuditListener {

  void onResult(AuditResult result);

  /**
   * A sample that could not be taken or concluded.
   *
   * @param reason a short label: {@code source-failed}, {@code throttled}, {@code redis-unavailable},
   *     {@code no-value}, {@code inconclusive}
   */
  void onSkipped(String source, String reason);

  /** A mismatch's repair refresh ran; {@code outcome} is its short name. */
  void onRepair(String source, String outcome);
}

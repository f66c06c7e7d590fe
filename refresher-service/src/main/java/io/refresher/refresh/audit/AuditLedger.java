package io.refresher.refresh.audit;

/**
 * Where concluded samples are counted across replicas and restarts, for {@code GET /v1/audit}: by
 * time bucket, so that a window's figures are the sum of its buckets.
 */
public interface AuditLedger {

  /**
   * Counts a concluded sample (and a mismatch's age).
   *
   * @throws io.refresher.failure.CacheUnavailableException when the ledger cannot be reached
   */
  void record(AuditResult result);

  /**
   * The figures of the samples concluded from {@code fromMillis} on.
   *
   * @throws io.refresher.failure.CacheUnavailableException when the ledger cannot be reached
   */
  AuditReport since(long fromMillis);
}

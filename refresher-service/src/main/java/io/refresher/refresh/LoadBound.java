package io.refresher.refresh;

import java.time.Duration;

/**
 * One datasource's load bound, for all replicas together.
 *
 * @param maxQueriesPerSecond source queries started in any one second; 0 when not bounded
 * @param maxConcurrent source queries running at once; 0 when not bounded (beyond each replica's
 *     pool)
 * @param maxWait longest a refresh waits for its turn before it gives up and is retried later
 */
public record LoadBound(String datasource, int maxQueriesPerSecond, int maxConcurrent, Duration maxWait) {

  public boolean bounded() {
    return maxQueriesPerSecond > 0 || maxConcurrent > 0;
  }
}

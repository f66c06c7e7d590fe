package io.refresher.refresh;

/**
 * A bounded datasource as one replica sees it: its bound, the refreshes waiting for it there now,
 * how long refreshes waited (p99 of the last minute, ms) and how many gave up waiting since start.
 */
public record LoadState(int maxQueriesPerSecond, int maxConcurrent, int waitingNow, double waitP99Millis, long throttled) {}

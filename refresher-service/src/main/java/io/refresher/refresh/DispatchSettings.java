package io.refresher.refresh;

import java.time.Duration;

/**
 * How the dispatcher hands due keys to workers.
 *
 * @param workers refresh threads; each runs one source query at a time
 * @param maxInFlight keys claimed but not finished (waiting for their time or running) at once
 * @param claimBatch most keys claimed in one call to the due index
 * @param pollInterval pause between claims when nothing more is due
 * @param lookahead keys due within this horizon are claimed early and started on time from memory,
 *     so a refresh does not wait for the next poll
 * @param claimLease how long a claimed key stays with this replica before it is handed out again
 *     (covers a replica that dies with keys claimed)
 */
public record DispatchSettings(
    int workers,
    int maxInFlight,
    int claimBatch,
    Duration pollInterval,
    Duration lookahead,
    Duration claimLease) {}

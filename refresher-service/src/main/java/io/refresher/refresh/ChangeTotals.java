package io.refresher.refresh;

/**
 * The change path's running totals on this replica since it started ({@code refresher.changes.*}).
 *
 * @param received notifications and log changes that named keys
 * @param coalesced changes folded into a refresh already planned
 * @param dropped changes let go because the pending set was full (a key's next scheduled refresh
 *     catches it up)
 */
public record ChangeTotals(
    long received,
    long coalesced,
    long refreshed,
    long evicted,
    long ignored,
    long deferred,
    long dropped,
    long retried,
    long failed) {}

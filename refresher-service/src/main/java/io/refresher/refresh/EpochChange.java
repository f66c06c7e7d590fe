package io.refresher.refresh;

import java.time.Instant;

/**
 * The data epoch's latest change as this replica saw it: Redis lost its data (or is new), or its
 * primary changed, and writes fenced before {@code epoch} are refused from then on.
 *
 * @param cause {@code data-loss} or {@code failover} when this replica noticed it and advanced the
 *     epoch; {@code another-replica} when it adopted the epoch another replica had advanced (which
 *     one of the two it was is known there)
 * @param at when this replica noticed, on its clock
 */
public record EpochChange(long epoch, String cause, Instant at) {

  public static final String DATA_LOSS = "data-loss";
  public static final String FAILOVER = "failover";
  public static final String ANOTHER_REPLICA = "another-replica";
}

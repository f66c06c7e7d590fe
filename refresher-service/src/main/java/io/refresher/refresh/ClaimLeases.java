package io.refresher.refresh;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Claims on the due index that a replica can keep, check and recover.
 *
 * <p>A claim moves a key's score to a <em>lease score</em>: the lease's end in epoch ms plus a
 * fraction that names the claim ({@code tag / 1024}, exact in a double until the year 2248). The
 * score is the proof of ownership: a replica still owns a key while the key's score is the one it
 * wrote. That lets it renew the leases of keys waiting in its memory (a backlog longer than one
 * lease is not handed out twice), find out that a claim was lost (and drop the key instead of
 * running it), and find the keys of a claim whose reply never arrived (a timeout, a stall, a
 * dropped connection: the script may have run anyway) instead of leaving them unclaimed for a
 * whole lease.
 *
 * <p>Every method throws {@link CacheUnavailableException} when the index cannot be reached.
 */
public interface ClaimLeases {

  /**
   * Like {@link DueIndex#claim}, with the given lease score. Each key's {@link
   * DueIndex.DueKey#plannedAtMillis} is the time it was first planned for, even when it is claimed
   * again after a lost claim (so lag is measured from the plan, not from a lease).
   */
  List<DueIndex.DueKey> claim(long horizonMillis, int limit, double leaseScore);

  /**
   * Moves each key whose score is still the expected one to {@code renewedScore}.
   *
   * @return the keys whose claim is no longer this one (claimed again, rescheduled or removed)
   */
  Set<String> renew(Map<String, Double> expectedScores, double renewedScore);

  /** The keys whose score is exactly {@code leaseScore}: what a claim with a lost reply took. */
  List<DueIndex.DueKey> claimedWith(double leaseScore);
}

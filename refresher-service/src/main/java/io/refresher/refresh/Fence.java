package io.refresher.refresh;

/**
 * The version a write carries. Tokens come from the per-key fenced lock and grow with every
 * acquisition; the epoch grows every time Redis is found to have lost its data (the token counter
 * lives in Redis and restarts from zero with it). A write is refused when the stored fence is
 * newer, so a refresher that paused past its lock lease cannot overwrite a newer value.
 */
public record Fence(long epoch, long token) implements Comparable<Fence> {

  @Override
  public int compareTo(Fence other) {
    int byEpoch = Long.compare(epoch, other.epoch);
    return byEpoch != 0 ? byEpoch : Long.compare(token, other.token);
  }

  @Override
  public String toString() {
    return epoch + "." + token;
  }
}

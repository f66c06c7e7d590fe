package io.refresher.redis;

import java.util.ArrayList;
import java.util.List;
import io.refresher.client.protocol.CacheKeys;

/**
 * Where the epoch marker lives. On a single server, one key, {@code refresher:epoch}. On a Redis
 * Cluster, a master that loses its data (restarted empty, {@code FLUSHALL}, a failover to an empty
 * replica) while the others keep theirs must be noticed too: besides {@code refresher:epoch},
 * {@value #SPREAD} markers {@code refresher:epoch:{e<n>}} whose hash tags are chosen so that the
 * i-th lands in slots {@code [i * 256, (i + 1) * 256)}. Every master owning at least 256 contiguous
 * slots holds at least one of them, whatever the topology, so a master that lost its data lost a
 * marker.
 */
public final class EpochMarkers {

  static final int SPREAD = 64;
  private static final int SLOTS = 16384;

  private EpochMarkers() {}

  public static List<String> single() {
    return List.of(RedisEpochGuard.MARKER);
  }

  public static List<String> cluster() {
    List<String> markers = new ArrayList<>(SPREAD + 1);
    markers.add(RedisEpochGuard.MARKER);
    int width = SLOTS / SPREAD;
    for (int bucket = 0; bucket < SPREAD; bucket++) {
      for (int n = 0; ; n++) {
        String marker = RedisEpochGuard.MARKER + ":{e" + n + "}";
        if (CacheKeys.slot(marker) / width == bucket) {
          markers.add(marker);
          break;
        }
      }
    }
    return List.copyOf(markers);
  }
}

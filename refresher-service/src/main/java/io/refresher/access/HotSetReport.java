package io.refresher.access;

import java.util.List;

/**
 * What one sampling of the access counters did.
 *
 * @param readsCounted reads folded into popularity in this tick
 * @param secondsConsumed access seconds read in this tick
 * @param counterLagMillis how far behind now the newest consumed second ends
 * @param hotSize keys in the hot set afterwards
 * @param promoted keys that became hot
 * @param demoted keys that left the hot set
 * @param leftOutByCap keys above the threshold that the cap kept out of the hot set
 * @param unresolved keys above the threshold that no registration or template covers
 * @param tracked keys whose popularity is tracked
 * @param uncovered the hottest of the unresolved keys, hottest first, at most {@link
 *     UncoveredKeys#KEPT}
 */
public record HotSetReport(
    long readsCounted,
    int secondsConsumed,
    long counterLagMillis,
    int hotSize,
    List<String> promoted,
    List<String> demoted,
    int leftOutByCap,
    int unresolved,
    long tracked,
    List<UncoveredKey> uncovered) {}

package io.refresher.refresh;

import java.util.List;

/**
 * One change feed of a datasource as this replica sees it: its notification channels ({@code
 * kind} {@code notify}) or its log's replication slot ({@code kind} {@code log}).
 *
 * @param here whether this replica is the one listening (notify) or reading the log (log) now;
 *     one replica of the deployment is, the others stand by
 * @param slotActive log only: whether any replica reads the slot (null when unknown, or notify)
 * @param slotLagBytes log only: how much of the log the slot has yet to confirm (null when unknown)
 * @param slotLagSeconds log only: how long ago the slot's confirmed position was the log's end
 */
public record ChangeFeedState(
    String datasource,
    String kind,
    List<String> channels,
    String slot,
    boolean here,
    Boolean slotActive,
    Double slotLagBytes,
    Double slotLagSeconds) {

  public static ChangeFeedState notify(String datasource, List<String> channels, boolean listening) {
    return new ChangeFeedState(datasource, "notify", List.copyOf(channels), null, listening, null, null, null);
  }

  /**
   * @param active 1 while a replica reads the slot, 0 when none does, NaN when unknown
   * @param lagBytes NaN when unknown, as {@code lagSeconds}
   */
  public static ChangeFeedState log(String datasource, String slot, boolean reading, double active, double lagBytes, double lagSeconds) {
    return new ChangeFeedState(
        datasource, "log", List.of(), slot, reading, Double.isNaN(active) ? null : active > 0, known(lagBytes), known(lagSeconds));
  }

  private static Double known(double value) {
    return Double.isNaN(value) ? null : value;
  }
}

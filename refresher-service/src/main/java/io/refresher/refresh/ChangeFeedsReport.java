package io.refresher.refresh;

import java.util.List;

/**
 * The change feeds of this replica, what it has pending and what it has done: {@code GET
 * /v1/feeds}, the console's change-feeds page.
 *
 * @param pending keys with a change refresh going on or planned here
 */
public record ChangeFeedsReport(List<ChangeFeedState> feeds, int pending, ChangeTotals totals) {

  /** A service without change feeds. */
  public static final ChangeFeedsReport NONE =
      new ChangeFeedsReport(List.of(), 0, new ChangeTotals(0, 0, 0, 0, 0, 0, 0, 0, 0));
}

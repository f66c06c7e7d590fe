package io.refresher.bench.report;

import java.util.Locale;

/** Number formats of the report: one way to print each kind of figure. */
public final class Fmt {

  private Fmt() {}

  /** A rate: "12,345" (no decimals above 100, one below). */
  public static String rate(double perSecond) {
    return perSecond >= 100
        ? String.format(Locale.ROOT, "%,.0f", perSecond)
        : String.format(Locale.ROOT, "%.1f", perSecond);
  }

  /** Milliseconds from nanoseconds: "1.23 ms". */
  public static String millisOfNanos(double nanos) {
    return millis(nanos / 1e6);
  }

  /** "1.23 ms", "123 ms", "1,234 ms". */
  public static String millis(double millis) {
    if (millis >= 100) {
      return String.format(Locale.ROOT, "%,.0f ms", millis);
    }
    return String.format(Locale.ROOT, "%.2f ms", millis);
  }

  /** A ratio: "0.83×". */
  public static String ratio(double ratio) {
    return String.format(Locale.ROOT, "%.2f×", ratio);
  }

  /** A count or a fractional count: "3", "1.07". */
  public static String number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? String.format(Locale.ROOT, "%,d", (long) value)
        : String.format(Locale.ROOT, "%.2f", value);
  }

  /** "yes" / "NO": a target met or missed, easy to spot in a table. */
  public static String met(boolean met) {
    return met ? "yes" : "**NO**";
  }
}

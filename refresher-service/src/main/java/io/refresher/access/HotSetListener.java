package io.refresher.access;

/** Told what each hot-set computation did; metrics implement it. */
public interface HotSetListener {

  void onTick(HotSetReport report);

  HotSetListener NONE = report -> {};

  /** Every one of them, in order. */
  static HotSetListener all(HotSetListener... listeners) {
    return report -> {
      for (HotSetListener listener : listeners) {
        listener.onTick(report);
      }
    };
  }
}

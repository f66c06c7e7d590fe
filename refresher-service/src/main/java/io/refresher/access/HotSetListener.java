package io.refresher.access;

/** Told what each hot-set computation did; metrics implement it. */
public interface HotSetListener {

  void onTick(HotSetReport report);

  HotSetListener NONE = report -> {};
}

package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.time.Duration;
import java.util.List;

/** Observes refreshes (metrics). Implementations must be fast and must not throw. */
public interface RefreshListener {

  void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome);

  /** How late a scheduled refresh started compared with its planned time. */
  void onLag(Duration lag);

  /** Tells each of {@code listeners}, in order, of every outcome and lag. */
  static RefreshListener all(RefreshListener... listeners) {
    List<RefreshListener> each = List.of(listeners);
    return new RefreshListener() {
      @Override
      public void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome) {
        each.forEach(listener -> listener.onOutcome(registration, trigger, outcome));
      }

      @Override
      public void onLag(Duration lag) {
        each.forEach(listener -> listener.onLag(lag));
      }
    };
  }

  RefreshListener NONE =
      new RefreshListener() {
        @Override
        public void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome) {}

        @Override
        public void onLag(Duration lag) {}
      };
}

package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.time.Duration;
import java.util.List;

/** Observes refreshes (metrics). Implementations must be fast and must not throw. */
public interface RefreshListener {

  void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome);

  /** How late a scheduled refresh started compared with its planned time. */
  void onLag(Duration lag);

  /** A batch source's query ran for {@code keys} keys at once (a batch refresh). */
  default void onBatch(String source, int keys) {}

  /** Tells each of {@code listeners}, in order, of every outcome, lag and batch. */
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

      @Override
      public void onBatch(String source, int keys) {
        each.forEach(listener -> listener.onBatch(source, keys));
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

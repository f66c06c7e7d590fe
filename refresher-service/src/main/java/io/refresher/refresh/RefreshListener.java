package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.time.Duration;

/** Observes refreshes (metrics). Implementations must be fast and must not throw. */
public interface RefreshListener {

  void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome);

  /** How late a scheduled refresh started compared with its planned time. */
  void onLag(Duration lag);

  RefreshListener NONE =
      new RefreshListener() {
        @Override
        public void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome) {}

        @Override
        public void onLag(Duration lag) {}
      };
}

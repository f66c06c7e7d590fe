package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Options are checked when they are set, before anything connects or starts a thread. */
class RefresherClientBuilderTest {

  private final RefresherClient.Builder builder = RefresherClient.builder("redis://127.0.0.1:1");

  @Test
  void flushInterval_outsideTenMillisToOneMinute_isRefused() {
    assertThatThrownBy(() -> builder.flushInterval(Duration.ofMillis(9))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.flushInterval(Duration.ofSeconds(61))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void otherOptions_outOfRange_areRefused() {
    assertThatThrownBy(() -> builder.maxPendingKeys(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.beta(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.singleFlightLease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.pollInterval(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.waitForOtherLoader(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void buildFromAUrl_withoutADriverThatConnects_saysWhichModuleToAdd() {
    // The core's tests have no driver on their class path.
    assertThatThrownBy(() -> builder.build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("refresher-client-redisson")
        .hasMessageContaining("LettuceDriver.of");
  }
}

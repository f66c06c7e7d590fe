package io.refresher.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ValueTtlTest {

  private final ValueTtl ttl = new ValueTtl("ttl_seconds", false, Duration.ofSeconds(30), Duration.ofHours(1));

  @Test
  void ofSeconds_withinTheBounds_asAsked() {
    assertThat(ttl.ofSeconds(90)).isEqualTo(Duration.ofSeconds(90));
    assertThat(ttl.ofSeconds(90.5)).isEqualTo(Duration.ofMillis(90_500));
  }

  @Test
  void ofSeconds_outsideTheBounds_clamped() {
    assertThat(ttl.ofSeconds(5)).isEqualTo(Duration.ofSeconds(30));
    assertThat(ttl.ofSeconds(0)).isEqualTo(Duration.ofSeconds(30));
    assertThat(ttl.ofSeconds(-7)).isEqualTo(Duration.ofSeconds(30));
    assertThat(ttl.ofSeconds(86_400 * 365.0)).isEqualTo(Duration.ofHours(1));
    assertThat(ttl.ofSeconds(1e300)).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void ofSeconds_notAFiniteNumber_none() {
    assertThat(ttl.ofSeconds(Double.NaN)).isNull();
    assertThat(ttl.ofSeconds(Double.POSITIVE_INFINITY)).isNull();
  }

  @Test
  void construct_minAboveMax_refused() {
    assertThatThrownBy(() -> new ValueTtl(null, true, Duration.ofMinutes(2), Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

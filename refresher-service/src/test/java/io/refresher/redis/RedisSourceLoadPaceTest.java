package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisSourceLoadPaceTest {

  @Test
  void pace_200PerSecond_20PermitsPer100msWidenedBy5Percent() {
    assertThat(RedisSourceLoad.Pace.of(200)).isEqualTo(new RedisSourceLoad.Pace(20, Duration.ofMillis(105)));
  }

  @Test
  void pace_below10PerSecond_onePermitPerOneOverRate() {
    assertThat(RedisSourceLoad.Pace.of(4)).isEqualTo(new RedisSourceLoad.Pace(1, Duration.ofMillis(263)));
    assertThat(RedisSourceLoad.Pace.of(1)).isEqualTo(new RedisSourceLoad.Pace(1, Duration.ofMillis(1050)));
  }

  @Test
  void pace_anyRate_neverMoreThanTheBoundPerSecond() {
    for (int rate = 1; rate <= 5000; rate++) {
      RedisSourceLoad.Pace pace = RedisSourceLoad.Pace.of(rate);
      double perSecond = pace.permits() * 1000.0 / pace.window().toMillis();
      assertThat(perSecond).as("rate %s", rate).isLessThanOrEqualTo(rate).isGreaterThan(rate * 0.85);
    }
  }
}

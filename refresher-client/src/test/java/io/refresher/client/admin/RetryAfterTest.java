package io.refresher.client.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

  private static final Duration LONGEST = Duration.ofSeconds(10);

  @Test
  void seconds_waitedAsGiven_atMostTheLongest() {
    assertThat(RetryAfter.of(Optional.of("5"), 0, LONGEST)).isEqualTo(Duration.ofSeconds(5));
    assertThat(RetryAfter.of(Optional.of("3600"), 0, LONGEST)).isEqualTo(LONGEST);
  }

  @Test
  void httpDate_waitedUntilThen() {
    String inThreeSeconds = ZonedDateTime.now().plusSeconds(3).format(DateTimeFormatter.RFC_1123_DATE_TIME);
    assertThat(RetryAfter.of(Optional.of(inThreeSeconds), 0, LONGEST)).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(3));
  }

  @Test
  void noneOrUnreadable_theBackoffDoublingFrom250Ms() {
    assertThat(RetryAfter.of(Optional.empty(), 0, LONGEST)).isEqualTo(Duration.ofMillis(250));
    assertThat(RetryAfter.of(Optional.of("soon"), 2, LONGEST)).isEqualTo(Duration.ofSeconds(1));
    assertThat(RetryAfter.backoff(30, LONGEST)).isEqualTo(LONGEST);
  }
}

package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SourceSharesTest {

  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
  private final List<String> full = new ArrayList<>();

  private static Registration of(String source) {
    return Registration.of("k", source, Map.of(), Duration.ofMinutes(1), T0, T0, RefreshPolicy.ALWAYS);
  }

  @Test
  void slots_shareOfThePoolRoundedUp_atLeastOne() {
    assertThat(SourceShares.slots(0.5, 6)).isEqualTo(3);
    assertThat(SourceShares.slots(0.5, 5)).isEqualTo(3);
    assertThat(SourceShares.slots(0.01, 4)).isEqualTo(1);
    assertThat(SourceShares.slots(1.0, 10)).isEqualTo(10);
  }

  @Test
  void beyondTheShare_theQueryIsNotStarted_untilOneCloses_otherSourcesUnaffected() {
    SourceShares shares = new SourceShares(SourceLoad.UNBOUNDED, source -> source.equals("hung") ? 2 : 0, full::add);

    SourceLoad.Admission first = shares.admit(of("hung")).orElseThrow();
    SourceLoad.Admission second = shares.admit(of("hung")).orElseThrow();
    SourceLoad.Admission third = shares.admit(of("hung")).orElseThrow();
    assertThat(full).as("admission itself takes no share: waiting for the rate holds no connection").isEmpty();

    assertThat(first.awaitRate()).isTrue();
    assertThat(second.awaitRate()).isTrue();
    assertThat(third.awaitRate()).as("over its share").isFalse();
    assertThat(full).containsExactly("hung");
    third.close();
    SourceLoad.Admission other = shares.admit(of("fast")).orElseThrow();
    assertThat(other.awaitRate()).as("no share: another source").isTrue();
    assertThat(shares.running("hung")).isEqualTo(2);

    first.close();
    first.close(); // closing twice gives back one slot only

    assertThat(shares.running("hung")).isEqualTo(1);
    assertThat(shares.admit(of("hung")).orElseThrow().awaitRate()).isTrue();
    assertThat(shares.admit(of("hung")).orElseThrow().awaitRate()).isFalse();
  }

  @Test
  void innerBoundRefusesOrFails_noShareTaken() {
    SourceLoad refusing = registration -> Optional.empty();
    SourceShares shares = new SourceShares(refusing, source -> 1, SourceShares.Listener.NONE);
    assertThat(shares.admit(of("s"))).isEmpty();
    assertThat(shares.running("s")).isZero();

    SourceLoad failing =
        registration -> {
          throw new CacheUnavailableException("Redis unavailable", null);
        };
    SourceShares failingShares = new SourceShares(failing, source -> 1, SourceShares.Listener.NONE);
    assertThatThrownBy(() -> failingShares.admit(of("s"))).isInstanceOf(CacheUnavailableException.class);
    assertThat(failingShares.running("s")).isZero();

    SourceLoad rateRefused =
        registration ->
            Optional.of(
                new SourceLoad.Admission() {
                  @Override
                  public boolean awaitRate() {
                    return false;
                  }

                  @Override
                  public void close() {}
                });
    SourceShares rateShares = new SourceShares(rateRefused, source -> 1, SourceShares.Listener.NONE);
    SourceLoad.Admission admission = rateShares.admit(of("s")).orElseThrow();
    assertThat(admission.awaitRate()).isFalse();
    assertThat(rateShares.running("s")).as("the rate ran out first: no share held").isZero();
    admission.close();
  }
}

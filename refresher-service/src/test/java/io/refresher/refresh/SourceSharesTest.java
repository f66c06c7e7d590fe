package io.refresher.refresh;

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
  void admit_beyondTheShare_refusedUntilOneCloses_otherSourcesUnaffected() {
    SourceShares shares = new SourceShares(SourceLoad.UNBOUNDED, source -> source.equals("hung") ? 2 : 0, full::add);

    Optional<SourceLoad.Admission> first = shares.admit(of("hung"));
    Optional<SourceLoad.Admission> second = shares.admit(of("hung"));
    Optional<SourceLoad.Admission> third = shares.admit(of("hung"));

    assertThat(first).isPresent();
    assertThat(second).isPresent();
    assertThat(third).as("over its share").isEmpty();
    assertThat(full).containsExactly("hung");
    assertThat(shares.admit(of("fast"))).as("no share: another source").isPresent();
    assertThat(shares.running("hung")).isEqualTo(2);

    first.get().close();
    first.get().close(); // closing twice gives back one slot only

    assertThat(shares.running("hung")).isEqualTo(1);
    assertThat(shares.admit(of("hung"))).isPresent();
    assertThat(shares.admit(of("hung"))).isEmpty();
  }

  @Test
  void admit_innerBoundRefusesOrFails_slotGivenBack() {
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
  }
}

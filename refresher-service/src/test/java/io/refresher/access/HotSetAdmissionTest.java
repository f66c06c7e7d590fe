package io.refresher.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HotSetAdmissionTest {

  private static final AccessSettings SETTINGS =
      new AccessSettings(
          Duration.ofMinutes(1), 1.0, Duration.ofSeconds(2), 100, Duration.ofSeconds(2), Duration.ofSeconds(5), 1000, 100);

  private final Map<String, Long> hotSet = new HashMap<>();
  private final HotSetStore store =
      new HotSetStore() {
        @Override
        public Map<String, Long> all() {
          return Map.copyOf(hotSet);
        }

        @Override
        public void update(Map<String, Long> lastHotAt, Collection<String> removed) {
          hotSet.putAll(lastHotAt);
          removed.forEach(hotSet::remove);
        }
      };
  private final HotSetAdmission admission = new HotSetAdmission(store, SETTINGS);

  @Test
  void admit_newKey_graceStartsWhenItsFirstReadsCanHaveBeenCounted() {
    admission.admit("product:42", 1_000_000L);

    // the second being read (1 s) + settle (2 s) + one sampling (5 s)
    assertThat(hotSet).containsEntry("product:42", 1_000_000L + 8_000L);
  }

  @Test
  void remove_key_leavesTheHotSet() {
    admission.admit("product:42", 0);
    admission.admit("product:43", 0);

    admission.remove("product:42");

    assertThat(hotSet).containsOnlyKeys("product:43");
  }
}

package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.failure.RegistryUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChangeCoverageTest {

  private final ExecutorService lookups = Executors.newFixedThreadPool(3);
  private final List<Integer> queries = new CopyOnWriteArrayList<>();
  private volatile boolean failing;

  private final RegistrationLookup registry =
      new RegistrationLookup() {
        @Override
        public Map<String, Registration> findAll(Collection<String> keys) {
          queries.add(keys.size());
          if (failing) {
            throw new RegistryUnavailableException("connection refused", null);
          }
          return registrations(keys, key -> key.startsWith("registered:"));
        }
      };

  private final ChangeCoverage coverage =
      new ChangeCoverage(keys -> registrations(keys, key -> key.startsWith("template:")), registry, lookups);

  @AfterEach
  void stop() {
    lookups.shutdownNow();
  }

  private static Map<String, Registration> registrations(Collection<String> keys, java.util.function.Predicate<String> known) {
    Map<String, Registration> found = new HashMap<>();
    for (String key : keys) {
      if (known.test(key)) {
        found.put(key, Registration.of(key, "a", Map.of(), Duration.ofHours(1), Instant.EPOCH, Instant.EPOCH, RefreshPolicy.HOT));
      }
    }
    return found;
  }

  @Test
  void covered_templateAndRegisteredKeys_templateKeysNeverQueried() {
    Set<String> covered = coverage.covered(List.of("template:1", "registered:1", "nobody:1", "registered:1"));

    assertThat(covered).containsExactlyInAnyOrder("template:1", "registered:1");
    assertThat(queries).as("one query, of the keys no template covers, each once").containsExactly(2);
  }

  @Test
  void covered_floodOfKeys_oneQueryPerTenThousand_runAtOnce() {
    List<String> keys = new ArrayList<>(IntStream.range(0, 25_000).mapToObj(i -> "nobody:" + i).toList());
    keys.add("registered:7");

    assertThat(coverage.covered(keys)).containsExactly("registered:7");
    assertThat(queries).containsExactlyInAnyOrder(10_000, 10_000, 5_001);
  }

  @Test
  void covered_registryDown_throwsTheRegistrysException() {
    failing = true;
    List<String> keys = IntStream.range(0, 15_000).mapToObj(i -> "nobody:" + i).toList();

    assertThatThrownBy(() -> coverage.covered(keys)).isInstanceOf(RegistryUnavailableException.class);
    assertThatThrownBy(() -> coverage.covered(List.of("one"))).isInstanceOf(RegistryUnavailableException.class);
    assertThat(coverage.coveredByTemplates(List.of("template:1", "one"))).containsExactly("template:1");
  }
}

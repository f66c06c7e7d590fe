package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistrationRepository;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The freshness figures per source, from value times and planned refreshes (pure logic: fakes). */
class FreshnessSweepTest {

  private static final long NOW = 1_000_000_000L;
  private final InstantSource clock = () -> Instant.ofEpochMilli(NOW);

  private final Map<String, String> sourceOf = new HashMap<>();
  private final Map<String, Long> valueTimes = new HashMap<>();
  private final Map<String, Long> planned = new HashMap<>();
  private List<String> always = List.of();
  private List<String> hot = List.of();

  private final RegistrationRepository repository =
      (RegistrationRepository)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {RegistrationRepository.class},
              (proxy, method, args) -> {
                if (method.getName().equals("keysAfter")) {
                  String after = (String) args[0];
                  int limit = (Integer) args[1];
                  return always.stream().filter(key -> key.compareTo(after) > 0).sorted().limit(limit).toList();
                }
                throw new UnsupportedOperationException(method.getName());
              });

  private final RegistrationLookup lookup =
      keys -> {
        Map<String, Registration> found = new HashMap<>();
        for (String key : keys) {
          if (sourceOf.containsKey(key)) {
            found.put(key, Registration.of(key, sourceOf.get(key), Map.of(), Duration.ofMinutes(1), Instant.EPOCH, Instant.EPOCH, RefreshPolicy.HOT));
          }
        }
        return found;
      };

  private final CacheStore store =
      (CacheStore)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {CacheStore.class},
              (proxy, method, args) -> {
                if (method.getName().equals("valueTimes")) {
                  Map<String, Long> times = new HashMap<>();
                  for (Object key : (Collection<?>) args[0]) {
                    if (valueTimes.containsKey(key)) {
                      times.put((String) key, valueTimes.get(key));
                    }
                  }
                  return times;
                }
                throw new UnsupportedOperationException(method.getName());
              });

  private final DueIndex due =
      (DueIndex)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {DueIndex.class},
              (proxy, method, args) -> {
                if (method.getName().equals("plannedAt") && args[0] instanceof String key) {
                  return planned.containsKey(key) ? OptionalLong.of(planned.get(key)) : OptionalLong.empty();
                }
                if (method.isDefault()) {
                  return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                }
                throw new UnsupportedOperationException(method.getName());
              });

  private FreshnessSweep sweep() {
    return new FreshnessSweep(repository, () -> hot, lookup, store, due, clock, Duration.ofSeconds(5));
  }

  private void key(String key, String source, Long valueAgeMillis, Long plannedAgoMillis) {
    sourceOf.put(key, source);
    if (valueAgeMillis != null) {
      valueTimes.put(key, NOW - valueAgeMillis);
    }
    if (plannedAgoMillis != null) {
      planned.put(key, NOW - plannedAgoMillis);
    }
  }

  @Test
  void sweep_perSource_oldestValue_pastPlanned_withoutValue() {
    key("product:1", "product", 10_000L, -20_000L);
    key("product:2", "product", 50_000L, 6_000L); // past its plan by more than the 5 s grace
    key("product:3", "product", null, 1_000L); // no value; late, but within the grace
    key("price:1", "price", 3_600_000L, -1_000L); // its source has failed for an hour
    always = List.of("product:1", "price:1");
    hot = List.of("product:2", "product:3", "product:1", "unregistered:1");

    FreshnessSweep.Report report = sweep().sweep();

    assertThat(report.atMillis()).isEqualTo(NOW);
    assertThat(report.bySource()).containsOnlyKeys("product", "price");
    FreshnessSweep.SourceFreshness product = report.bySource().get("product");
    assertThat(product.kept()).as("each key once, uncovered ones left out").isEqualTo(3);
    assertThat(product.withoutValue()).isEqualTo(1);
    assertThat(product.pastPlanned()).isEqualTo(1);
    assertThat(product.pastPlannedShare()).isEqualTo(1.0 / 3);
    assertThat(product.oldestValueAgeMillis()).isEqualTo(50_000);
    assertThat(report.bySource().get("price").oldestValueAgeMillis()).isEqualTo(3_600_000);
    assertThat(report.bySource().get("price").pastPlanned()).isZero();
  }

  @Test
  void sweep_manyAlwaysKeys_pagedThroughAll() {
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      String key = String.format("k:%05d", i);
      keys.add(key);
      key(key, "k", 1_000L, -1_000L);
    }
    always = keys;

    assertThat(sweep().sweep().bySource().get("k").kept()).isEqualTo(2_500);
  }
}

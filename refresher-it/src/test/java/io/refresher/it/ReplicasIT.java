package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two replicas on one Redis and one PostgreSQL refresh each key once per cycle between them, not
 * once each: due keys are claimed with a lease, and the per-key lock and fence guard the rest.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReplicasIT {

  private static final int KEYS = 20;
  private static final TestApp FIRST = TestApp.create("replicas", List.of());
  private static final TestApp SECOND = TestApp.replicaOf(FIRST, "replicas-second");
  static final DropwizardAppExtension<RefresherConfiguration> FIRST_EXTENSION = FIRST.extension();
  static final DropwizardAppExtension<RefresherConfiguration> SECOND_EXTENSION = SECOND.extension();


  @Test
  void twoReplicas_sharedKeys_eachRefreshRunsOnceAcrossReplicas() {
    for (int i = 0; i < KEYS; i++) {
      TestApp via = i % 2 == 0 ? FIRST : SECOND;
      try (Response response = via.putKey("shared:" + i, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT2S\"}")) {
        assertThat(response.getStatus()).isEqualTo(201);
      }
    }
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      keys.add("shared:" + i);
    }
    long executionsAtStart = FIRST.database().executionsOf("counted_source");
    long claimedAtStart = FIRST.parts().dispatcher().claimedTotal() + SECOND.parts().dispatcher().claimedTotal();
    long startMillis = System.currentTimeMillis();

    // Three refresh cycles of 1.5 s (TTL 2 s - TTR 0.5 s) of every key; both replicas dispatch.
    awaitRefreshedThreeTimes(keys);
    long elapsed = System.currentTimeMillis() - startMillis;
    long executions = FIRST.database().executionsOf("counted_source") - executionsAtStart;
    long cycles = elapsed / 1_500;

    assertThat(FIRST.parts().dispatcher().claimedTotal() + SECOND.parts().dispatcher().claimedTotal() - claimedAtStart)
        .as("keys claimed by both replicas together")
        .isGreaterThanOrEqualTo(KEYS * 3L);
    assertThat(executions)
        .as("source executions for %d keys over %d ms (%d cycles); twice that would mean both replicas refreshed", KEYS, elapsed, cycles)
        .isBetween(KEYS * 3L, (long) KEYS * (cycles + 1));
    for (int i = 0; i < KEYS; i++) {
      assertThat(FIRST.get("shared:" + i)).as("shared:%d present", i).isNotNull();
    }
  }

  /**
   * A template created through one replica covers keys that reads make hot; whichever replica
   * samples promotes them, both claim them, and each is still refreshed about once per cycle in
   * total. Both replicas' views of the hot set know them.
   */
  @Test
  void twoReplicas_templateKeysMadeHotByReads_refreshedOncePerCycleAcrossReplicas() {
    FIRST.database().execute(
        "CREATE TABLE test_switch (id bigint primary key, ok int)",
        "INSERT INTO test_switch SELECT g, 1 FROM generate_series(1, 10) g");
    try (Response response =
        FIRST.putTemplate("switches", "{\"pattern\":\"switch:{id}\",\"source\":\"switchable\",\"ttl\":\"PT2S\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      keys.add("switch:" + i);
    }
    try (AccessReporter reads = new AccessReporter(FIRST.redis())) {
      keys.forEach(key -> reads.read(key, 20));
      await("reads make every template key hot, and it is computed")
          .atMost(Duration.ofSeconds(20))
          .until(() -> keys.stream().allMatch(key -> FIRST.get(key) != null));
      await("both replicas see them in the hot set")
          .atMost(Duration.ofSeconds(10))
          .until(() -> keys.stream().allMatch(key -> FIRST.parts().hotSet().isHot(key) && SECOND.parts().hotSet().isHot(key)));

      long executionsAtStart = FIRST.database().executionsOf("switchable_source");
      long startMillis = System.currentTimeMillis();
      awaitRefreshedThreeTimes(keys);
      long elapsed = System.currentTimeMillis() - startMillis;
      long executions = FIRST.database().executionsOf("switchable_source") - executionsAtStart;
      long cycles = elapsed / 1_500;

      assertThat(executions)
          .as("source executions for %d template keys over %d ms (%d cycles of 1.5 s)", keys.size(), elapsed, cycles)
          .isBetween(keys.size() * 3L, (long) keys.size() * (cycles + 1));
      for (String key : keys) {
        assertThat(FIRST.get(key)).as(key).startsWith("switchable-");
      }
    }
  }

  /**
   * Until every key was refreshed three more times (three new fence tokens). A condition, not a
   * window: on a starved machine the cycles take longer, and the bound on executions above is in
   * cycles of the time this took.
   */
  private static void awaitRefreshedThreeTimes(List<String> keys) {
    java.util.Map<String, Set<String>> tokens = new java.util.HashMap<>();
    keys.forEach(key -> tokens.put(key, new java.util.HashSet<>(java.util.Collections.singleton(String.valueOf(FIRST.meta(key).get("token"))))));
    await("every key refreshed three times")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              keys.forEach(key -> tokens.get(key).add(String.valueOf(FIRST.meta(key).get("token"))));
              return tokens.values().stream().allMatch(seen -> seen.size() >= 4);
            });
  }
}

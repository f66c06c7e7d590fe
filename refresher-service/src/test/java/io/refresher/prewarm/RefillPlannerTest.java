package io.refresher.prewarm;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.prewarm.RefillPlanner.Candidate;
import io.refresher.prewarm.RefillPlanner.Planned;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RefillPlannerTest {

  private static final long NOW = 1_800_000_000_000L;

  @Test
  void plan_boundedDatasource_hottestFirstOneKeyPerRateStep() {
    List<Planned> plan =
        RefillPlanner.plan(
            List.of(new Candidate("cool", 1, "db", true), new Candidate("hottest", 50, "db", true), new Candidate("warm", 10, "db", false)),
            Map.of("db", 200),
            NOW);

    assertThat(plan).extracting(Planned::key).containsExactly("hottest", "warm", "cool");
    assertThat(plan).extracting(Planned::dueAtMillis).containsExactly((double) NOW, NOW + 5.0, NOW + 10.0);
  }

  @Test
  void plan_twoDatasources_eachPacedAtItsOwnRate_mergedByDueTime() {
    List<Planned> plan =
        RefillPlanner.plan(
            List.of(
                new Candidate("a1", 100, "a", true),
                new Candidate("a2", 90, "a", true),
                new Candidate("b1", 80, "b", true),
                new Candidate("b2", 70, "b", true)),
            Map.of("a", 10, "b", 1000),
            NOW);

    assertThat(plan).extracting(Planned::key).containsExactly("a1", "b1", "b2", "a2");
    assertThat(plan.get(3).dueAtMillis()).isEqualTo(NOW + 100.0);
    assertThat(plan.get(2).dueAtMillis()).isEqualTo(NOW + 1.0);
  }

  @Test
  void plan_unboundedDatasource_allDueNowInRankOrder() {
    List<Planned> plan =
        RefillPlanner.plan(
            List.of(new Candidate("second", 2, "free", true), new Candidate("first", 3, "free", true), new Candidate("third", 1, "free", true)),
            Map.of(),
            NOW);

    assertThat(plan).extracting(Planned::key).containsExactly("first", "second", "third");
    assertThat(plan.get(2).dueAtMillis() - NOW).isLessThan(1.0).isPositive();
  }

  @Test
  void plan_equalRates_keyOrderBreaksTies() {
    List<Planned> plan =
        RefillPlanner.plan(List.of(new Candidate("b", 5, "db", true), new Candidate("a", 5, "db", true)), Map.of("db", 100), NOW);

    assertThat(plan).extracting(Planned::key).containsExactly("a", "b");
  }

  @Test
  void plan_batchSource_aRankPerBatchOfItsKeys_hottestFirst() {
    // 10 queries/s: a rank is 100 ms. Source "p" computes 3 keys per query; "single" one.
    List<Planned> plan =
        RefillPlanner.plan(
            List.of(
                new Candidate("p1", 90, "db", true, "p", 3),
                new Candidate("p2", 80, "db", true, "p", 3),
                new Candidate("s1", 70, "db", true),
                new Candidate("p3", 60, "db", true, "p", 3),
                new Candidate("p4", 50, "db", true, "p", 3),
                new Candidate("s2", 40, "db", true)),
            Map.of("db", 10),
            NOW);

    Map<String, Double> due = new java.util.HashMap<>();
    plan.forEach(planned -> due.put(planned.key(), planned.dueAtMillis() - NOW));
    assertThat(due).containsEntry("p1", 0.0).containsEntry("p2", 0.0).containsEntry("p3", 0.0);
    assertThat(due).as("s1: the next query").containsEntry("s1", 100.0);
    assertThat(due).as("p4: a new batch of p, after s1").containsEntry("p4", 200.0);
    assertThat(due).containsEntry("s2", 300.0);
  }
}

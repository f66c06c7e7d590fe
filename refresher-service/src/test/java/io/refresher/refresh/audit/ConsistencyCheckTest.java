package io.refresher.refresh.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.refresh.CacheStore;
import io.refresher.refresh.Loaded;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.SourceLoad;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.source.SourceException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The audit's rule for one sample: when a difference is a mismatch, and what it does then. */
class ConsistencyCheckTest {

  private static final long SETTLE = 2_000;
  private static final long MAX_WAIT = 60_000;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final Map<String, CacheStore.Served> redis = new HashMap<>();
  private final Map<String, String> sourceValues = new HashMap<>();
  private final Map<String, String> sourceVersions = new HashMap<>();
  private final Map<String, Long> planned = new HashMap<>();
  private final List<AuditResult> results = new ArrayList<>();
  private final List<String> skipped = new ArrayList<>();
  private final List<String> repaired = new ArrayList<>();
  private final List<Long> delays = new ArrayList<>();
  private final List<Runnable> later = new ArrayList<>();
  private int sourceRuns;
  /** Runs while the source runs: another sample of the same key, taken meanwhile. */
  private Runnable duringLoad = () -> {};

  private final ValueLoader loader =
      new ValueLoader() {
        @Override
        public String load(Registration registration) {
          throw new UnsupportedOperationException("the audit asks for the value and its version");
        }

        @Override
        public Loaded loadIfChanged(Registration registration, String validator) throws SourceException {
          assertThat(validator).as("the audit always computes the value").isNull();
          sourceRuns++;
          Runnable meanwhile = duringLoad;
          duringLoad = () -> {};
          meanwhile.run();
          String value = sourceValues.get(registration.key());
          if (value == null) {
            throw new SourceException(SourceException.Kind.ERROR, "no row");
          }
          return new Loaded.Value(value, sourceVersions.get(registration.key()));
        }
      };

  private final ConsistencyCheck check =
      new ConsistencyCheck(
          key -> Optional.ofNullable(redis.get(key)),
          loader,
          SourceLoad.UNBOUNDED,
          key -> planned.containsKey(key) ? OptionalLong.of(planned.get(key)) : OptionalLong.empty(),
          registration -> {
            repaired.add(registration.key());
            redis.put(registration.key(), served(sourceValues.get(registration.key()), null));
            return new RefreshOutcome.Refreshed(Instant.now(), Duration.ZERO, Instant.now(), Instant.now(), Duration.ZERO, null);
          },
          new AuditListener() {
            @Override
            public void onResult(AuditResult result) {
              results.add(result);
            }

            @Override
            public void onSkipped(String source, String reason) {
              skipped.add(reason);
            }

            @Override
            public void onRepair(String source, String outcome) {}
          },
          (delayMillis, task) -> {
            delays.add(delayMillis);
            later.add(task);
          },
          new AuditSettings(
              Duration.ofSeconds(10), Duration.ofMillis(SETTLE), Duration.ofMillis(MAX_WAIT), Duration.ofHours(1), Duration.ofMinutes(1), 0.999, Map.of("default", 1.0)),
          () -> Instant.ofEpochMilli(now.get()));

  private static Registration registration(String key) {
    return new Registration(key, "products", Map.of(), Duration.ofHours(1), Instant.EPOCH, Instant.EPOCH, RefreshPolicy.ALWAYS, "product", 0);
  }

  private CacheStore.Served served(String value, String validator) {
    return new CacheStore.Served(value, Instant.ofEpochMilli(now.get() - 30_000), null, validator);
  }

  private void runLater() {
    List<Runnable> tasks = new ArrayList<>(later);
    later.clear();
    tasks.forEach(Runnable::run);
  }

  private List<Verdict> verdicts() {
    return results.stream().map(AuditResult::verdict).toList();
  }

  @Test
  void sameValue_isAMatch_atOnce() {
    redis.put("p:1", served("a", null));
    sourceValues.put("p:1", "a");
    check.sample(registration("p:1"));
    assertThat(verdicts()).containsExactly(Verdict.MATCH);
    assertThat(later).isEmpty();
    assertThat(repaired).isEmpty();
    assertThat(results.get(0).template()).isEqualTo("product");
  }

  @Test
  void otherValue_underTheVersionStoredWithIt_isAMismatch_atOnce_andRepaired() {
    redis.put("p:1", served("tampered", "version:7"));
    sourceValues.put("p:1", "a");
    sourceVersions.put("p:1", "version:7");
    check.sample(registration("p:1"));
    assertThat(verdicts()).containsExactly(Verdict.MISMATCH);
    AuditResult mismatch = results.get(0);
    assertThat(mismatch.expectedDigest()).isEqualTo(ValueDigest.of("a")).doesNotContain("a\"");
    assertThat(mismatch.servedDigest()).isEqualTo(ValueDigest.of("tampered"));
    assertThat(mismatch.mismatchAgeMillis()).isEqualTo(30_000);
    assertThat(repaired).containsExactly("p:1");
    assertThat(redis.get("p:1").value()).isEqualTo("a");
  }

  @Test
  void otherValue_underANewerVersion_waitsForTheService_andMatchesOnceItWasApplied() {
    redis.put("p:1", served("old", "version:6"));
    sourceValues.put("p:1", "new");
    sourceVersions.put("p:1", "version:7");
    check.sample(registration("p:1"));
    assertThat(results).isEmpty();
    assertThat(delays).containsExactly(SETTLE);

    redis.put("p:1", served("new", "version:7")); // the change feed's refresh
    now.addAndGet(SETTLE);
    runLater();
    assertThat(verdicts()).containsExactly(Verdict.MATCH);
    assertThat(repaired).isEmpty();
  }

  @Test
  void otherValue_withoutVersion_stillWrongAfterSettling_isAMismatch_andRepaired() {
    redis.put("p:1", served("corrupted", null));
    sourceValues.put("p:1", "a");
    planned.put("p:1", now.get() + 3_600_000); // its next refresh is an hour away
    check.sample(registration("p:1"));
    assertThat(delays).containsExactly(SETTLE);
    now.addAndGet(SETTLE);
    runLater();
    assertThat(verdicts()).containsExactly(Verdict.MISMATCH);
    assertThat(results.get(0).mismatchAgeMillis()).isEqualTo(30_000 + SETTLE);
    assertThat(repaired).containsExactly("p:1");
  }

  @Test
  void aValueMerelyDue_waitsForItsPlannedRefresh_andMatchesAfterIt() {
    redis.put("p:1", served("old", null));
    sourceValues.put("p:1", "new");
    planned.put("p:1", now.get() + 20_000); // due within maxWait
    check.sample(registration("p:1"));
    assertThat(delays).containsExactly(20_000 + SETTLE);

    redis.put("p:1", served("new", null)); // the planned refresh ran
    now.addAndGet(20_000 + SETTLE);
    runLater();
    assertThat(verdicts()).containsExactly(Verdict.MATCH);
    assertThat(repaired).isEmpty();
  }

  @Test
  void aSourceChangingWhileTheSampleWaits_isInconclusive_notASample() {
    redis.put("p:1", served("old", null));
    sourceValues.put("p:1", "new");
    check.sample(registration("p:1"));
    sourceValues.put("p:1", "newer");
    now.addAndGet(SETTLE);
    runLater();
    assertThat(verdicts()).containsExactly(Verdict.INCONCLUSIVE);
    assertThat(repaired).isEmpty();
  }

  @Test
  void aKeyWaitingForItsSecondLook_isNotSampledAgain_soADifferenceCountsOnce() {
    redis.put("p:1", served("corrupted", null));
    sourceValues.put("p:1", "a");
    check.sample(registration("p:1"));
    check.sample(registration("p:1"));
    assertThat(later).hasSize(1);
    assertThat(sourceRuns).isEqualTo(1);
    now.addAndGet(SETTLE);
    runLater();
    check.sample(registration("p:1")); // repaired since: a match
    assertThat(verdicts()).containsExactly(Verdict.MISMATCH, Verdict.MATCH);
  }

  @Test
  void aKeyUnderAudit_isNotSampledAgain_soAMismatchFoundAtOnceCountsOnce() {
    redis.put("p:1", served("tampered", "version:7"));
    sourceValues.put("p:1", "a");
    sourceVersions.put("p:1", "version:7");
    duringLoad = () -> check.sample(registration("p:1")); // a second sample while the first runs
    check.sample(registration("p:1"));
    assertThat(verdicts()).containsExactly(Verdict.MISMATCH);
    assertThat(sourceRuns).isEqualTo(1);
    assertThat(repaired).containsExactly("p:1");
    check.sample(registration("p:1")); // after: sampled again, now a match
    assertThat(verdicts()).containsExactly(Verdict.MISMATCH, Verdict.MATCH);
  }

  @Test
  void noValue_orAFailingSource_isSkipped_notCounted() {
    check.sample(registration("absent"));
    redis.put("p:2", served("a", null));
    check.sample(registration("p:2")); // no row: the loader fails
    assertThat(results).isEmpty();
    assertThat(skipped).containsExactly("no-value", "source-failed");
  }
}

package io.refresher.refresh.audit;

import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.CacheStore;
import io.refresher.refresh.Loaded;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.SourceLoad;
import io.refresher.refresh.ValueLoader;
import io.refresher.registry.Registration;
import io.refresher.source.SourceException;
import java.time.InstantSource;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sample of the consistency audit: does Redis serve what the key's source gives? The rule,
 * which lets a value that is merely due (its source changed after it was computed, and its refresh
 * has not come yet) count as right:
 *
 * <ol>
 *   <li>Read the served value with its metadata, then run the source (within its load bound). The
 *       same: a match.
 *   <li>Different, and the source's version (a version query's result, an {@code ETag}) is the one
 *       stored with the served value: the value is wrong for the very version it claims. A
 *       mismatch, at once.
 *   <li>Otherwise the source may have changed after the value was computed. The difference is
 *       checked again once the service had its chance to apply it: after {@code settle} (a change
 *       feed's refresh), or after the key's next planned refresh plus {@code settle} when that
 *       comes within {@code maxWait}. Redis then serves what the source gives: a match. The
 *       source's answer changed meanwhile: inconclusive (not a sample). Still different from the
 *       same answer: a mismatch.
 * </ol>
 *
 * <p>A mismatch is logged with the key and the two values' digests (never the values), and
 * repaired at once by a refresh that recomputes the value (it does not revalidate: the stored
 * version may be right while the value beside it is not).
 */
public final class ConsistencyCheck {

  private static final Logger LOG = LoggerFactory.getLogger(ConsistencyCheck.class);

  /** Runs a task later, on the audit's own threads. */
  public interface Later {
    void after(long delayMillis, Runnable task);
  }

  private final Function<String, Optional<CacheStore.Served>> served;
  private final ValueLoader loader;
  private final SourceLoad load;
  private final Function<String, OptionalLong> plannedAt;
  private final Function<Registration, RefreshOutcome> repair;
  private final AuditListener listener;
  private final Later later;
  private final AuditSettings settings;
  private final InstantSource clock;
  /**
   * Keys a sample is looking at, from its first read to its conclusion (its second look and its
   * repair included): not sampled again meanwhile, so that a difference counts once.
   */
  private final java.util.Set<String> underAudit = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * @param served what Redis serves for a key ({@link CacheStore#served})
   * @param plannedAt when a key's next refresh is planned ({@link io.refresher.refresh.DueIndex#plannedAt})
   * @param repair refreshes a key found wrong, recomputing its value
   */
  public ConsistencyCheck(
      Function<String, Optional<CacheStore.Served>> served,
      ValueLoader loader,
      SourceLoad load,
      Function<String, OptionalLong> plannedAt,
      Function<Registration, RefreshOutcome> repair,
      AuditListener listener,
      Later later,
      AuditSettings settings,
      InstantSource clock) {
    this.served = served;
    this.loader = loader;
    this.load = load;
    this.plannedAt = plannedAt;
    this.repair = repair;
    this.listener = listener;
    this.later = later;
    this.settings = settings;
    this.clock = clock;
  }

  /** Takes one sample of a kept key; a difference that needs a second look is checked later. */
  public void sample(Registration registration) {
    String key = registration.key();
    if (!underAudit.add(key)) {
      return;
    }
    boolean handedOver = false;
    try {
      Optional<CacheStore.Served> read = served.apply(key);
      if (read.isEmpty()) {
        listener.onSkipped(registration.source(), "no-value");
        return;
      }
      CacheStore.Served value = read.get();
      long askedAt = clock.millis();
      Optional<Loaded.Value> answer = ask(registration);
      if (answer.isEmpty()) {
        return;
      }
      String expected = answer.get().value();
      if (expected.equals(value.value())) {
        conclude(registration, Verdict.MATCH, 0, null, null);
        return;
      }
      String version = answer.get().validator();
      if (version != null && version.equals(value.validator())) {
        mismatch(registration, value, expected, "the source's version is the one stored with it");
        return;
      }
      long recheckAt = askedAt + settings.settle().toMillis();
      OptionalLong planned = plannedAt.apply(key);
      if (planned.isPresent()) {
        long afterRefresh = planned.getAsLong() + settings.settle().toMillis();
        if (afterRefresh - askedAt <= settings.maxWait().toMillis()) {
          recheckAt = Math.max(recheckAt, afterRefresh);
        }
      }
      later.after(Math.max(0, recheckAt - clock.millis()), () -> recheck(registration, expected));
      handedOver = true; // the second look ends the audit of the key
    } catch (CacheUnavailableException e) {
      listener.onSkipped(registration.source(), "redis-unavailable");
    } catch (RuntimeException e) {
      LOG.warn("audit of key '{}' failed: {}", key, e.toString());
      listener.onSkipped(registration.source(), "error");
    } finally {
      if (!handedOver) {
        underAudit.remove(key);
      }
    }
  }

  /** The second look at a difference, once the service had its chance to apply a change. */
  void recheck(Registration registration, String firstAnswer) {
    try {
      secondLook(registration, firstAnswer);
    } finally {
      underAudit.remove(registration.key());
    }
  }

  private void secondLook(Registration registration, String firstAnswer) {
    try {
      Optional<CacheStore.Served> read = served.apply(registration.key());
      if (read.isEmpty()) {
        listener.onSkipped(registration.source(), "no-value");
        return;
      }
      Optional<Loaded.Value> answer = ask(registration);
      if (answer.isEmpty()) {
        return;
      }
      String expected = answer.get().value();
      if (expected.equals(read.get().value())) {
        conclude(registration, Verdict.MATCH, 0, null, null);
      } else if (!expected.equals(firstAnswer)) {
        conclude(registration, Verdict.INCONCLUSIVE, 0, null, null);
      } else {
        mismatch(registration, read.get(), expected, "still after " + settings.settle().toMillis() + " ms and its planned refresh");
      }
    } catch (CacheUnavailableException e) {
      listener.onSkipped(registration.source(), "redis-unavailable");
    } catch (RuntimeException e) {
      LOG.warn("audit of key '{}' failed: {}", registration.key(), e.toString());
      listener.onSkipped(registration.source(), "error");
    }
  }

  /** The source's current value, within its load bound; empty (and reported) when it could not run. */
  private Optional<Loaded.Value> ask(Registration registration) {
    String source = registration.source();
    Optional<SourceLoad.Admission> admission = load.admit(registration);
    if (admission.isEmpty()) {
      listener.onSkipped(source, "throttled");
      return Optional.empty();
    }
    try (SourceLoad.Admission admitted = admission.get()) {
      if (!admitted.awaitRate()) {
        listener.onSkipped(source, "throttled");
        return Optional.empty();
      }
      // Without a validator the source computes the value, and says its version beside it.
      if (loader.loadIfChanged(registration, null) instanceof Loaded.Value value) {
        return Optional.of(value);
      }
      listener.onSkipped(source, "source-failed");
      return Optional.empty();
    } catch (SourceException e) {
      LOG.debug("audit of key '{}' skipped: its source failed ({})", registration.key(), e.getMessage());
      listener.onSkipped(source, "source-failed");
      return Optional.empty();
    }
  }

  private void mismatch(Registration registration, CacheStore.Served served, String expected, String why) {
    long now = clock.millis();
    long age = served.knownCurrentAt() == null ? 0 : Math.max(0, now - served.knownCurrentAt().toEpochMilli());
    String expectedDigest = ValueDigest.of(expected);
    String servedDigest = ValueDigest.of(served.value());
    LOG.warn(
        "audit: key '{}' (source '{}'{}) serves a value that differs from its source ({}): expected {}, served {}, last known current {} ms ago; refreshing it",
        registration.key(),
        registration.source(),
        registration.template() == null ? "" : ", template '" + registration.template() + "'",
        why,
        expectedDigest,
        servedDigest,
        age);
    conclude(registration, Verdict.MISMATCH, age, expectedDigest, servedDigest);
    RefreshOutcome outcome = repair.apply(registration);
    listener.onRepair(registration.source(), outcome.name());
    LOG.info("audit: key '{}' repaired by a refresh: {}", registration.key(), outcome.name());
  }

  private void conclude(Registration registration, Verdict verdict, long age, String expectedDigest, String servedDigest) {
    listener.onResult(
        new AuditResult(
            registration.key(), registration.source(), registration.template(), verdict, age, expectedDigest, servedDigest, clock.millis()));
  }
}

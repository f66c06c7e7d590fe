package io.refresher.prewarm;

import io.refresher.access.AccessSettings;
import io.refresher.access.HotSetStore;
import io.refresher.access.PopularityArchive;
import io.refresher.access.PopularityKeeper;
import io.refresher.prewarm.PrewarmPorts.PrewarmRecords;
import io.refresher.prewarm.PrewarmPorts.RefillSchedule;
import io.refresher.prewarm.PrewarmPorts.ValuePresence;
import io.refresher.prewarm.PrewarmPorts.ValuePresence.Presence;
import io.refresher.failure.CacheUnavailableException;
import io.refresher.refresh.EpochSource;
import io.refresher.refresh.RefreshListener;
import io.refresher.refresh.RefreshOutcome;
import io.refresher.refresh.Trigger;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.registry.RegistrationRepository;
import io.refresher.failure.RegistryUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refills Redis after it lost its data: the popular keys and the {@code always} keys, hottest
 * first, at the rate each datasource's load bound allows, through the one refresh path.
 *
 * <ol>
 *   <li><b>Candidates</b>: the keys of the popularity saved in PostgreSQL whose rate, decayed since
 *       it was saved, is still at or above the hot threshold and that a registration or template
 *       covers (up to the hot-set cap); every {@code always} registration; and every {@code hot}
 *       registration still inside its registration grace, which nobody may have read yet.
 *   <li><b>Only what is missing</b>: a key whose value is in Redis is left alone (a cluster
 *       master that kept its data, a manual prewarm on a healthy Redis).
 *   <li><b>Plan</b> ({@link RefillPlanner}): rank by popularity, due times {@code now + i / rate}
 *       per datasource, written to the due index (earlier wins over a later entry). Hot keys join
 *       the hot set, so they are kept while read and demoted as usual when not.
 *   <li><b>Popularity restore</b> (after a data loss only), once the plan is written: the
 *       sampler then finds the refilled keys already hot instead of promoting them all as due now.
 *   <li><b>Progress</b>: every half second the keys whose time has come are looked up in Redis;
 *       the record shared through Redis lets every replica answer {@code GET /v1/prewarm}. A log
 *       line at the start and the end, and one every {@value #PROGRESS_LOG_SECONDS} s.
 *   <li><b>Keys that leave the plan</b>: a key nothing can refresh any more would keep a refill
 *       running for ever (and every {@code POST /v1/prewarm} refused). So every {@value
 *       #COVERAGE_EVERY_MILLIS} ms the keys still pending are looked up in the registry, and those
 *       that no registration or template covers any more are counted as skipped ({@code
 *       not-covered}); a refresh that found its registration gone ({@code REGISTRATION_GONE}, seen
 *       through {@link #refreshListener()}) has its key looked up at the next check ({@code
 *       registration-gone}; a replaced key that is still covered stays). When the epoch moves past
 *       the run's (Redis lost its data again), or the shared record turns out to belong to a newer
 *       refill, every pending key is skipped ({@code epoch-overtaken}, {@code superseded}) and the
 *       run ends: the newer refill plans what is missing then.
 * </ol>
 *
 * <p>Exactly one replica leads: after a data loss, the one that set the new epoch marker; for a
 * manual prewarm, the one whose {@link PrewarmRecords#tryStart} succeeded. The others follow the
 * shared record, and their dispatchers do their share of the refreshes through the due index.
 *
 * <p>Failure semantics: Redis or PostgreSQL failing while a refill after a loss is planned or
 * written makes it start again with backoff (see {@link #onDataLoss}); only after about a minute
 * is it abandoned, with an ERROR (the periodic due-index sweep and the sampler then bring the keys
 * back, unordered). A manual prewarm fails at once ({@code 503}). Failures of single refreshes are
 * retried with backoff as always and counted as failed while missing.
 */
public final class Prewarmer {

  private static final Logger LOG = LoggerFactory.getLogger(Prewarmer.class);
  private static final int PAGE = 1000;
  private static final long PROGRESS_EVERY_MILLIS = 500;
  private static final int PROGRESS_LOG_SECONDS = 5;
  /** Keys looked up per progress check at most (the ones whose due time has passed come first). */
  private static final int CHECK_PER_ROUND = 5000;
  /** A leader's record older than this is taken for a leader that died. */
  private static final long STALE_AFTER_MILLIS = 15_000;
  /** A refill whose remaining keys all keep failing for this long is reported finished. */
  private static final long GIVE_UP_ON_FAILED_MILLIS = 60_000;
  /** How often the pending keys are looked up in the registry (gone ones leave the plan). */
  private static final long COVERAGE_EVERY_MILLIS = 2_000;
  /** Pending keys looked up in the registry per coverage check at most (the rest at the next ones). */
  private static final int COVERAGE_PER_ROUND = 2_000;

  private final PopularityArchive archive;
  private final PopularityKeeper popularity;
  private final RegistrationRepository registrations;
  private final RegistrationLookup lookup;
  private final ValuePresence presence;
  private final RefillSchedule schedule;
  private final HotSetStore hotSet;
  private final PrewarmRecords records;
  private final AccessSettings access;
  private final Duration registrationGrace;
  private final Duration presentKeyMargin;
  private final Map<String, Integer> queriesPerSecond;
  private final Function<String, RefillPlanner.SourcePlace> placeOfSource;
  private final String replicaId;
  private final EpochSource epochs;
  private final ScheduledExecutorService executor;
  private final InstantSource clock;
  /** Keys whose refresh found their registration gone, for the running refill to look up. */
  private final ConcurrentLinkedQueue<String> goneKeys = new ConcurrentLinkedQueue<>();

  private volatile Run current;
  private long runs;
  private final java.util.concurrent.atomic.AtomicLong losses = new java.util.concurrent.atomic.AtomicLong();
  /** Tries to start a refill after a loss: 0.2, 0.4, ... 5 s apart, about a minute in all. */
  private static final int START_ATTEMPTS = 16;

  public Prewarmer(
      PopularityArchive archive,
      PopularityKeeper popularity,
      RegistrationRepository registrations,
      RegistrationLookup lookup,
      ValuePresence presence,
      RefillSchedule schedule,
      HotSetStore hotSet,
      PrewarmRecords records,
      AccessSettings access,
      Duration registrationGrace,
      Duration presentKeyMargin,
      Map<String, Integer> queriesPerSecond,
      Function<String, RefillPlanner.SourcePlace> placeOfSource,
      String replicaId,
      EpochSource epochs,
      ScheduledExecutorService executor,
      InstantSource clock) {
    this.archive = archive;
    this.popularity = popularity;
    this.registrations = registrations;
    this.lookup = lookup;
    this.presence = presence;
    this.schedule = schedule;
    this.hotSet = hotSet;
    this.records = records;
    this.access = access;
    this.registrationGrace = registrationGrace;
    this.presentKeyMargin = presentKeyMargin;
    this.queriesPerSecond = Map.copyOf(queriesPerSecond);
    this.placeOfSource = placeOfSource;
    this.replicaId = replicaId;
    this.epochs = epochs;
    this.executor = executor;
    this.clock = clock;
  }

  /**
   * Redis lost its data and this replica set the new epoch: lead the refill (asynchronously). The
   * loss is noticed the moment a connection to the new Redis is made, when others may still be
   * reconnecting: a start that fails on Redis or PostgreSQL is tried again with backoff (0.2 s
   * doubling to 5 s, for about a minute) until it succeeds or a newer loss supersedes it.
   */
  public void onDataLoss(long epoch) {
    long loss = losses.incrementAndGet();
    executor.execute(() -> startAfterLoss(epoch, loss, 0));
  }

  private void startAfterLoss(long epoch, long loss, int attempt) {
    if (loss != losses.get()) {
      return; // a newer loss started its own refill
    }
    try {
      start("data-loss", epoch, true, true);
      if (attempt > 0) {
        LOG.info("prewarm (data-loss) started at attempt {}", attempt + 1);
      }
    } catch (CacheUnavailableException | RegistryUnavailableException e) {
      if (attempt + 1 >= START_ATTEMPTS) {
        LOG.error(
            "prewarm (data-loss) abandoned after {} attempts: {}; keys come back through the due-index sweep and the sampler, unordered",
            START_ATTEMPTS, e.getMessage());
        return;
      }
      long delay = Math.min(5_000, 200L << Math.min(attempt, 5));
      if (attempt == 0) {
        LOG.warn("prewarm (data-loss) could not start yet ({}); trying again in {} ms", e.getMessage(), delay);
      } else {
        LOG.debug("prewarm (data-loss) attempt {} failed ({}); next in {} ms", attempt + 1, e.getMessage(), delay);
      }
      executor.schedule(() -> startAfterLoss(epoch, loss, attempt + 1), delay, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      LOG.error("prewarm (data-loss) failed unexpectedly; keys come back through the due-index sweep and the sampler", e);
    }
  }

  /**
   * {@code POST /v1/prewarm}: refill whatever is missing now, without restoring popularity.
   *
   * @return the status of the refill now running: this one, or the one another replica leads
   * @throws CacheUnavailableException when Redis cannot be reached (nothing was started)
   * @throws RegistryUnavailableException when PostgreSQL cannot be reached (nothing was started)
   */
  public PrewarmStatus startManual(long epoch) {
    return start("manual", epoch, false, false);
  }

  /**
   * The latest refill: this replica's while it leads one, else the shared record when it is newer
   * than this replica's last one (another replica led it), else this replica's last one, else idle.
   */
  public PrewarmStatus status() {
    PrewarmStatus local;
    synchronized (this) {
      local = current == null ? null : current.status();
    }
    if (local != null && local.running()) {
      return local;
    }
    Optional<PrewarmStatus> shared;
    try {
      shared = records.load();
    } catch (CacheUnavailableException e) {
      shared = Optional.empty();
    }
    if (shared.isPresent()
        && (local == null || shared.get().startedAt() != null && shared.get().startedAt().isAfter(local.startedAt()))) {
      return shared.get();
    }
    return local == null ? PrewarmStatus.idle() : local;
  }

  /** Refills this replica led since it started. */
  public synchronized long runs() {
    return runs;
  }

  private PrewarmStatus start(String trigger, long epoch, boolean restorePopularity, boolean supersede) {
    long startedAt = clock.millis();
    Run run;
    synchronized (this) {
      if (current != null && current.running()) {
        if (!supersede) {
          return current.status();
        }
        current.stop(epoch > current.first.epoch() ? PrewarmStatus.EPOCH_OVERTAKEN : PrewarmStatus.SUPERSEDED);
      }
    }
    List<RefillPlanner.Planned> plan = plan(startedAt);
    long hot = plan.stream().filter(RefillPlanner.Planned::hot).count();
    Map<String, Integer> bounds = new TreeMap<>();
    plan.forEach(p -> bounds.put(p.datasource(), queriesPerSecond.getOrDefault(p.datasource(), 0)));
    PrewarmStatus first =
        new PrewarmStatus(
            PrewarmStatus.RUNNING, trigger, epoch, plan.size(), 0, 0, 0, Map.of(), plan.size(), hot, 0, bounds,
            Instant.ofEpochMilli(startedAt), null, estimatedEnd(plan, startedAt), Instant.ofEpochMilli(startedAt), replicaId);
    if (!records.tryStart(first, STALE_AFTER_MILLIS)) {
      LOG.info("prewarm ({}) not started here: another replica leads one", trigger);
      return status();
    }
    // Written again in full by a retry: the hot-set and due-index writes are idempotent.
    write(plan, startedAt);
    if (restorePopularity) {
      restorePopularity();
    }
    LOG.info(
        "prewarm started ({}, epoch {}): {} keys missing from Redis to refill ({} hot, {} always), hottest first; bound {} queries/s by datasource (0: none); estimated end {}",
        trigger, epoch, plan.size(), hot, plan.size() - hot, bounds, first.estimatedEndAt());
    synchronized (this) {
      run = new Run(first, plan);
      current = run;
      runs++;
    }
    if (run.running()) {
      run.future = executor.scheduleWithFixedDelay(run::check, PROGRESS_EVERY_MILLIS, PROGRESS_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }
    return run.status();
  }

  /** The refill: candidates, only those missing, ranked and paced. */
  List<RefillPlanner.Planned> plan(long now) {
    Map<String, RefillPlanner.Candidate> candidates = new LinkedHashMap<>();
    Map<String, Double> savedRates = new HashMap<>();
    List<String> popular = new ArrayList<>();
    for (PopularityArchive.Saved saved : archive.top(access.maxTracked())) {
      double rate = decayed(saved, now);
      savedRates.put(saved.key(), rate);
      if (rate >= access.hotThreshold()) {
        popular.add(saved.key());
      }
    }
    int hotRoom = access.maxHotKeys();
    for (int from = 0; from < popular.size() && hotRoom > 0; from += PAGE) {
      List<String> page = popular.subList(from, Math.min(popular.size(), from + PAGE));
      // The first page rechecks (reloading the template catalog): a template created through
      // another replica a moment before the loss must not be missed here.
      Map<String, Registration> covered = from == 0 ? lookup.recheck(page) : lookup.findAll(page);
      for (String key : page) {
        Registration registration = covered.get(key);
        if (registration != null && hotRoom > 0) {
          hotRoom--;
          candidates.put(key, candidate(registration, savedRates.get(key), registration.policy() == RefreshPolicy.HOT));
        }
      }
    }
    List<String> inGrace = registrations.hotKeysRegisteredSince(Instant.ofEpochMilli(now).minus(registrationGrace), access.maxHotKeys());
    addRegistered(candidates, inGrace, savedRates, true);
    String after = "";
    while (true) {
      List<String> always = registrations.keysAfter(after, PAGE, RefreshPolicy.ALWAYS);
      addRegistered(candidates, always, savedRates, false);
      if (always.size() < PAGE) {
        break;
      }
      after = always.get(always.size() - 1);
    }
    List<RefillPlanner.Candidate> missing = new ArrayList<>();
    List<String> keys = new ArrayList<>(candidates.keySet());
    for (int from = 0; from < keys.size(); from += PAGE) {
      Map<String, Presence> found = presence.presence(keys.subList(from, Math.min(keys.size(), from + PAGE)));
      List<String> present = new ArrayList<>();
      found.forEach(
          (key, state) -> {
            if (state != Presence.PRESENT) {
              missing.add(candidates.get(key));
            } else {
              present.add(key);
            }
          });
      keepPresentScheduled(present, now);
    }
    return RefillPlanner.plan(missing, queriesPerSecond, now);
  }

  /**
   * A value that survived may have lost its due entry (on a cluster, the due-index shard lived on
   * the master that lost its data): such a key is put back at its logical expiry less the
   * refresh margin, not recomputed now; an entry that exists is left alone.
   */
  private void keepPresentScheduled(List<String> present, long now) {
    if (present.isEmpty()) {
      return;
    }
    Map<String, Long> expiry = presence.logicalExpiry(present);
    Map<String, Double> due = new HashMap<>();
    for (String key : present) {
      Long expiresAt = expiry.get(key);
      long at = expiresAt == null ? now : Math.max(now, expiresAt - presentKeyMargin.toMillis());
      due.put(key, (double) at);
    }
    schedule.scheduleIfMissing(due);
  }

  private void addRegistered(
      Map<String, RefillPlanner.Candidate> candidates, List<String> keys, Map<String, Double> savedRates, boolean hot) {
    List<String> fresh = keys.stream().filter(key -> !candidates.containsKey(key)).toList();
    if (fresh.isEmpty()) {
      return;
    }
    Map<String, Registration> found = registrations.findAll(fresh);
    for (String key : fresh) {
      Registration registration = found.get(key);
      if (registration != null) {
        // A key in its grace has no reads counted yet: it ranks as if exactly at the threshold.
        double rate = savedRates.getOrDefault(key, 0.0);
        candidates.put(key, candidate(registration, hot ? Math.max(rate, access.hotThreshold()) : rate, hot));
      }
    }
  }

  private RefillPlanner.Candidate candidate(Registration registration, Double rate, boolean hot) {
    RefillPlanner.SourcePlace place = placeOfSource.apply(registration.source());
    return new RefillPlanner.Candidate(
        registration.key(),
        rate == null ? 0 : rate,
        place == null ? "" : place.datasource(),
        hot,
        registration.source(),
        place == null ? 1 : place.maxBatch());
  }

  private double decayed(PopularityArchive.Saved saved, long now) {
    double halfLives = Math.max(0, now - saved.sampledAt().toEpochMilli()) / (double) access.halfLife().toMillis();
    return saved.rate() * Math.pow(0.5, halfLives);
  }

  private void write(List<RefillPlanner.Planned> plan, long now) {
    for (int from = 0; from < plan.size(); from += PAGE) {
      List<RefillPlanner.Planned> page = plan.subList(from, Math.min(plan.size(), from + PAGE));
      Map<String, Long> hot = new HashMap<>();
      Map<String, Double> due = new LinkedHashMap<>();
      for (RefillPlanner.Planned planned : page) {
        due.put(planned.key(), planned.dueAtMillis());
        if (planned.hot()) {
          hot.put(planned.key(), now);
        }
      }
      hotSet.update(hot, List.of());
      schedule.scheduleEarliest(due);
    }
  }

  private void restorePopularity() {
    try {
      popularity.restore();
    } catch (RuntimeException e) {
      LOG.warn("popularity not restored from PostgreSQL ({}); hot keys come back as they are read", e.getMessage());
    }
  }

  private Instant estimatedEnd(List<RefillPlanner.Planned> plan, long now) {
    if (plan.isEmpty()) {
      return Instant.ofEpochMilli(now);
    }
    return Instant.ofEpochMilli((long) Math.max(now, plan.get(plan.size() - 1).dueAtMillis()));
  }

  /** One refill this replica leads: its keys not confirmed yet, in due order, and its counts. */
  private final class Run {
    private final PrewarmStatus first;
    private final LinkedHashMap<String, Double> pending = new LinkedHashMap<>();
    private final Set<String> failed = new LinkedHashSet<>();
    private final Map<String, Long> skippedByReason = new TreeMap<>();
    private volatile PrewarmStatus status;
    private volatile ScheduledFuture<?> future;
    private long done;
    private long skipped;
    private long lastProgressAt;
    private long lastChangeAt;
    private long lastLogAt;
    private long lastCoverageAt;
    /** Where the next coverage check starts, in pending order: large plans are looked up in turns. */
    private int coverageFrom;
    private long doneAtLastCheck;

    Run(PrewarmStatus first, List<RefillPlanner.Planned> plan) {
      this.first = first;
      this.status = first;
      plan.forEach(planned -> pending.put(planned.key(), planned.dueAtMillis()));
      long started = first.startedAt().toEpochMilli();
      lastProgressAt = started;
      lastChangeAt = started;
      lastLogAt = started;
      lastCoverageAt = started;
      if (plan.isEmpty()) {
        finish(started);
      }
    }

    boolean running() {
      return status.running();
    }

    PrewarmStatus status() {
      return status;
    }

    /** A newer refill takes over (a newer epoch's, or a new start here): what is left is skipped. */
    synchronized void stop(String reason) {
      ScheduledFuture<?> scheduled = future;
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      if (running()) {
        LOG.info("prewarm superseded by a new one ({}) after {} of {} keys", reason, done, first.total());
        skipAll(reason);
        status = copy(PrewarmStatus.FINISHED, clock.millis(), 0);
      }
    }

    synchronized void check() {
      if (!running()) {
        return;
      }
      long now = clock.millis();
      try {
        if (epochs.currentEpoch() > first.epoch()) {
          // Redis lost its data again: its keys are missing again, and the newer epoch's refill
          // (led by whichever replica won it) plans them; this one must not wait for them.
          LOG.info("prewarm of epoch {} overtaken by epoch {}: its {} keys left are skipped", first.epoch(), epochs.currentEpoch(), pending.size());
          skipAll(PrewarmStatus.EPOCH_OVERTAKEN);
          finish(now);
          return;
        }
        List<String> due = new ArrayList<>();
        Iterator<Map.Entry<String, Double>> entries = pending.entrySet().iterator();
        while (entries.hasNext() && due.size() < CHECK_PER_ROUND) {
          Map.Entry<String, Double> entry = entries.next();
          if (entry.getValue() > now) {
            break;
          }
          due.add(entry.getKey());
        }
        if (!due.isEmpty()) {
          Map<String, Presence> found = presence.presence(due);
          for (String key : due) {
            Presence state = found.getOrDefault(key, Presence.ABSENT);
            if (state == Presence.PRESENT) {
              pending.remove(key);
              failed.remove(key);
              done++;
              lastChangeAt = now;
            } else if (state == Presence.FAILED) {
              failed.add(key);
            }
          }
        }
        dropUncovered(now);
        double perSecond = (done - doneAtLastCheck) * 1000.0 / Math.max(1, now - lastProgressAt);
        doneAtLastCheck = done;
        lastProgressAt = now;
        if (pending.isEmpty() || (pending.size() == failed.size() && now - lastChangeAt >= GIVE_UP_ON_FAILED_MILLIS)) {
          finish(now);
          return;
        }
        status = copy(PrewarmStatus.RUNNING, 0, perSecond);
        if (!records.save(status)) {
          // The shared record is a newer refill's (a newer epoch's, or a leader that took over):
          // this one is no longer current and must neither rewrite it nor keep running.
          LOG.info("prewarm record taken over by a newer refill; this one ends after {} of {} keys", done, first.total());
          skipAll(PrewarmStatus.SUPERSEDED);
          finish(now, false);
          return;
        }
        if (now - lastLogAt >= PROGRESS_LOG_SECONDS * 1000L) {
          lastLogAt = now;
          LOG.info(
              "prewarm: {} of {} keys back, {} left ({} failing), {} skipped {}, {} keys/s",
              done, first.total(), pending.size(), failed.size(), skipped, skippedByReason, String.format("%.0f", perSecond));
        }
      } catch (CacheUnavailableException | RegistryUnavailableException e) {
        LOG.debug("prewarm progress not checked: {}", e.getMessage());
      } catch (RuntimeException e) {
        LOG.warn("prewarm progress check failed", e);
      }
    }

    /**
     * Keys that nothing can refresh any more leave the plan: those a refresh found gone at once,
     * and every {@value #COVERAGE_EVERY_MILLIS} ms a turn of the pending keys. Each lookup that
     * finds none is rechecked (the template catalog reloaded), as the dispatcher does before it
     * drops a key: a template created a moment ago elsewhere must not be taken for a deleted one.
     */
    private void dropUncovered(long now) {
      List<String> gone = new ArrayList<>();
      for (String key = goneKeys.poll(); key != null; key = goneKeys.poll()) {
        if (pending.containsKey(key)) {
          gone.add(key);
        }
      }
      if (!gone.isEmpty()) {
        skipUncovered(gone, PrewarmStatus.REGISTRATION_GONE);
      }
      if (now - lastCoverageAt < COVERAGE_EVERY_MILLIS || pending.isEmpty()) {
        return;
      }
      lastCoverageAt = now;
      List<String> keys = new ArrayList<>(pending.keySet());
      if (coverageFrom >= keys.size()) {
        coverageFrom = 0;
      }
      int to = Math.min(keys.size(), coverageFrom + COVERAGE_PER_ROUND);
      List<String> turn = keys.subList(coverageFrom, to);
      coverageFrom = to;
      for (int from = 0; from < turn.size(); from += PAGE) {
        skipUncovered(turn.subList(from, Math.min(turn.size(), from + PAGE)), PrewarmStatus.NOT_COVERED);
      }
    }

    private void skipUncovered(List<String> keys, String reason) {
      Map<String, Registration> covered = lookup.findAll(keys);
      List<String> missing = keys.stream().filter(key -> !covered.containsKey(key)).toList();
      if (missing.isEmpty()) {
        return;
      }
      Map<String, Registration> late = lookup.recheck(missing);
      for (String key : missing) {
        if (!late.containsKey(key)) {
          skip(key, reason);
        }
      }
    }

    private void skip(String key, String reason) {
      if (pending.remove(key) != null) {
        failed.remove(key);
        skipped++;
        skippedByReason.merge(reason, 1L, Long::sum);
        lastChangeAt = clock.millis();
      }
    }

    private void skipAll(String reason) {
      new ArrayList<>(pending.keySet()).forEach(key -> skip(key, reason));
    }

    private void finish(long now) {
      finish(now, true);
    }

    /** @param save false when the shared record is a newer refill's: it is not rewritten */
    private void finish(long now, boolean save) {
      status = copy(PrewarmStatus.FINISHED, now, 0);
      ScheduledFuture<?> scheduled = future;
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      try {
        if (save && !records.save(status)) {
          LOG.info("prewarm record not saved: it belongs to a newer refill");
        }
      } catch (CacheUnavailableException e) {
        LOG.debug("prewarm record not saved: {}", e.getMessage());
      }
      LOG.info(
          "prewarm finished ({}) in {} ms: {} of {} keys refilled, {} still failing, {} skipped {}",
          first.trigger(), now - first.startedAt().toEpochMilli(), done, first.total(), failed.size(), skipped, skippedByReason);
    }

    private PrewarmStatus copy(String state, long finishedAt, double perSecond) {
      long now = clock.millis();
      long left = pending.size();
      Instant estimated =
          left == 0
              ? Instant.ofEpochMilli(now)
              : perSecond > 0
                  ? Instant.ofEpochMilli(now + (long) (left * 1000 / perSecond))
                  : first.estimatedEndAt();
      return new PrewarmStatus(
          state, first.trigger(), first.epoch(), first.total(), done, failed.size(), skipped, skippedByReason, left,
          first.hotKeys(), perSecond, first.queriesPerSecondBound(), first.startedAt(),
          finishedAt > 0 ? Instant.ofEpochMilli(finishedAt) : null, estimated, Instant.ofEpochMilli(now), replicaId);
    }
  }

  /**
   * Hears of refreshes that found their registration gone ({@code REGISTRATION_GONE}), so that
   * the running refill looks their keys up at its next check instead of at its next turn. Fast
   * and never throws, as a {@link RefreshListener} must; keys are queued only while a refill runs.
   */
  public RefreshListener refreshListener() {
    return new RefreshListener() {
      @Override
      public void onOutcome(Registration registration, Trigger trigger, RefreshOutcome outcome) {
        Run run = current;
        if (run != null
            && run.running()
            && outcome instanceof RefreshOutcome.Skipped skipped
            && skipped.reason() == RefreshOutcome.Skipped.Reason.REGISTRATION_GONE) {
          goneKeys.add(registration.key());
        }
      }

      @Override
      public void onLag(Duration lag) {}
    };
  }

  /** Public for the wiring's metrics. */
  public Optional<PrewarmStatus> localStatus() {
    Run run = current;
    return run == null ? Optional.empty() : Optional.of(run.status());
  }
}

package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.failure.RegistryUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves due keys from the shared due index to this replica's workers.
 *
 * <p>One dispatcher thread claims, in batches, the keys due within the lookahead, loads their
 * registrations with one query per batch, and schedules each on a bounded pool of worker threads
 * for its exact due time. Claimed-but-unfinished keys are capped at {@code maxInFlight}, so a
 * backlog (after an outage, or a mass expiry) drains at the pool's pace instead of piling up in
 * memory; keys this replica cannot take stay in the index for the other replicas.
 *
 * <p>Memory does not grow with the number of registered keys: only in-flight keys are held.
 *
 * <p>Failure semantics: a Redis or PostgreSQL error in a tick is logged (once per streak), counted
 * in {@link #consecutiveTickFailures()}, and the next tick tries again; claimed keys that could not
 * be started come back after their claim lease. On stop, keys still waiting for their time are
 * given back to the index for other replicas.
 */
public final class RefreshDispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(RefreshDispatcher.class);

  private final DueIndex index;
  private final ClaimLeases leases;
  private final RegistrationLookup registrations;
  private final Refresher refresher;
  private final RescheduleBuffer reschedules;
  private final DispatchSettings settings;
  private final RefreshListener listener;
  private final LagTracker lag;
  private final InstantSource clock;

  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger tickFailures = new AtomicInteger();
  private final AtomicLong lastTickMillis = new AtomicLong();
  private final AtomicLong claimedTotal = new AtomicLong();
  /**
   * When the registry could not load a batch, its keys went back to the index until this time (epoch
   * ms; 0: no such failure): ticks before it do not claim, and do not end the failure streak. A
   * registry that fails at once (a known outage) would otherwise alternate failed ticks with empty
   * ones, flapping readiness and logging a new streak every retry.
   */
  private volatile long registryRetryAtMillis;

  /** Claimed keys, waiting for their time or running, by key; their leases are renewed while held. */
  private final ConcurrentHashMap<String, DueRefresh> held = new ConcurrentHashMap<>();
  /** Claims whose reply was lost: their keys are looked up by lease score until the lease ends. */
  private final List<LostClaim> lostClaims = new ArrayList<>();
  private final AtomicLong droppedClaims = new AtomicLong();
  private final AtomicLong adoptedClaims = new AtomicLong();
  private long lastRenewalMillis;

  /** A claim whose reply was lost, and the keys already taken from it (each is taken once). */
  private record LostClaim(double leaseScore, long leaseUntilMillis, Set<String> adopted) {}

  /** Names to thread factories: where this dispatcher's threads come from (the wiring's). */
  private final Function<String, ThreadFactory> threads;
  private ScheduledExecutorService dispatcherThread;
  private ScheduledThreadPoolExecutor workers;

  public RefreshDispatcher(
      DueIndex index,
      ClaimLeases leases,
      RegistrationLookup registrations,
      Refresher refresher,
      RescheduleBuffer reschedules,
      DispatchSettings settings,
      RefreshListener listener,
      LagTracker lag,
      InstantSource clock,
      Function<String, ThreadFactory> threads) {
    this.threads = threads;
    this.index = index;
    this.leases = leases;
    this.registrations = registrations;
    this.refresher = refresher;
    this.reschedules = reschedules;
    this.settings = settings;
    this.listener = listener;
    this.lag = lag;
    this.clock = clock;
  }

  public synchronized void start() {
    if (dispatcherThread != null) {
      return;
    }
    // The dispatcher makes its pools itself, at each start, because it must order their stop:
    // first no more claims, then the waiting keys given back to the index, then the running
    // refreshes finished within the grace (a lifecycle executor would stop them all at once).
    workers = new ScheduledThreadPoolExecutor(settings.workers(), threads.apply("refresh-worker-"));
    workers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    workers.setRemoveOnCancelPolicy(true);
    dispatcherThread = new ScheduledThreadPoolExecutor(1, threads.apply("refresh-dispatcher-"));
    dispatcherThread.scheduleWithFixedDelay(
        this::tick, 0, settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
    LOG.info(
        "refresh dispatcher started: {} workers, up to {} keys in flight, lookahead {} ms",
        settings.workers(),
        settings.maxInFlight(),
        settings.lookahead().toMillis());
  }

  /** Stops claiming, gives waiting keys back, and waits up to {@code grace} for running refreshes. */
  public synchronized void stop(Duration grace) throws InterruptedException {
    if (dispatcherThread == null) {
      return;
    }
    dispatcherThread.shutdown();
    dispatcherThread.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    // Delayed (not yet started) refreshes are dropped by shutdown() and given back to the index;
    // running ones finish within the grace, so no value write is cut off half-way.
    workers.shutdown();
    int givenBack = giveBack();
    if (!workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      workers.shutdownNow();
    }
    try {
      reschedules.flush();
    } catch (CacheUnavailableException e) {
      LOG.warn("could not write {} due times on stop: {}", reschedules.pendingCount(), e.getMessage());
    }
    dispatcherThread = null;
    workers = null;
    LOG.info("refresh dispatcher stopped; gave {} waiting keys back to the due index", givenBack);
  }

  public int inFlight() {
    return inFlight.get();
  }

  public int consecutiveTickFailures() {
    return tickFailures.get();
  }

  /** When the last tick completed without error (epoch ms; 0 before the first). */
  public long lastHealthyTickMillis() {
    return lastTickMillis.get();
  }

  public long claimedTotal() {
    return claimedTotal.get();
  }

  /** Claimed keys dropped before running because their claim was lost or about to run out. */
  public long droppedClaims() {
    return droppedClaims.get();
  }

  /** Keys recovered from claims whose reply was lost. */
  public long adoptedClaims() {
    return adoptedClaims.get();
  }

  public boolean isRunning() {
    ScheduledExecutorService thread = dispatcherThread;
    return thread != null && !thread.isShutdown();
  }

  void tick() {
    try {
      reschedules.flush();
      refresher.releaseAbandonedLocks();
      renewLeases();
      recoverLostClaims();
      if (clock.millis() < registryRetryAtMillis) {
        return;
      }
      while (claimOnce()) {
        // A full batch means more may be due: claim again without waiting for the next poll.
      }
      registryRetryAtMillis = 0;
      lastTickMillis.set(clock.millis());
      int previous = tickFailures.getAndSet(0);
      if (previous > 0) {
        LOG.info("refresh dispatcher recovered after {} failed ticks", previous);
      }
    } catch (CacheUnavailableException | RegistryUnavailableException e) {
      if (tickFailures.incrementAndGet() == 1) {
        LOG.warn("refresh dispatcher cannot claim due keys: {}; retrying every poll", e.getMessage());
      }
    } catch (RuntimeException e) {
      tickFailures.incrementAndGet();
      LOG.error("refresh dispatcher tick failed unexpectedly", e);
    } finally {
      startOpenedBatches();
    }
  }

  /** Claims and schedules one batch; returns true when the batch was full. */
  private boolean claimOnce() {
    int capacity = settings.maxInFlight() - inFlight.get();
    if (capacity <= 0) {
      return false;
    }
    int limit = Math.min(capacity, settings.claimBatch());
    long now = clock.millis();
    long leaseUntil = now + settings.claimLease().toMillis();
    double leaseScore = leaseScore(leaseUntil);
    List<DueIndex.DueKey> claimed;
    try {
      claimed = leases.claim(now + settings.lookahead().toMillis(), limit, leaseScore);
    } catch (CacheUnavailableException e) {
      // The script may have run although its reply never came: look its keys up next time.
      synchronized (lostClaims) {
        lostClaims.add(new LostClaim(leaseScore, leaseUntil, new java.util.HashSet<>()));
      }
      throw e;
    }
    if (claimed.isEmpty()) {
      return false;
    }
    claimedTotal.addAndGet(claimed.size());
    startAll(claimed, leaseScore, leaseUntil, now);
    return claimed.size() >= limit;
  }

  /**
   * Looks up the keys of claims whose reply was lost, and takes them as claimed. A claim sent
   * while Redis stalled runs when it resumes; its keys would otherwise wait out the whole lease.
   */
  private void recoverLostClaims() {
    List<LostClaim> lost;
    synchronized (lostClaims) {
      if (lostClaims.isEmpty()) {
        return;
      }
      long now = clock.millis();
      lostClaims.removeIf(claim -> claim.leaseUntilMillis() <= now);
      lost = new ArrayList<>(lostClaims);
    }
    long now = clock.millis();
    for (LostClaim claim : lost) {
      List<DueIndex.DueKey> found = new ArrayList<>();
      for (DueIndex.DueKey due : leases.claimedWith(claim.leaseScore())) {
        // A key taken from this claim and refreshed may still carry its score for a moment (its
        // reschedule is buffered, or a skipped refresh does not reschedule): never take it twice.
        if (!held.containsKey(due.key()) && claim.adopted().add(due.key())) {
          found.add(due);
        }
      }
      if (!found.isEmpty()) {
        adoptedClaims.addAndGet(found.size());
        LOG.info("recovered {} keys of a claim whose reply was lost", found.size());
        startAll(found, claim.leaseScore(), claim.leaseUntilMillis(), now);
      }
    }
  }

  private void startAll(List<DueIndex.DueKey> claimed, double leaseScore, long leaseUntil, long now) {
    List<String> keys = new ArrayList<>(claimed.size());
    claimed.forEach(due -> keys.add(due.key()));
    Map<String, Registration> found;
    try {
      found = registrations.findAll(keys);
    } catch (RegistryUnavailableException e) {
      // Put them back a little later rather than waiting out the whole claim lease.
      Map<String, Long> retry = new HashMap<>();
      long retryAt = now + settings.pollInterval().toMillis() * 20;
      claimed.forEach(due -> retry.put(due.key(), Math.max(due.plannedAtMillis(), retryAt)));
      index.reschedule(retry);
      registryRetryAtMillis = retryAt;
      throw e;
    }
    Map<String, Long> orphans = new HashMap<>();
    for (DueIndex.DueKey due : claimed) {
      Registration registration = found.get(due.key());
      if (registration == null) {
        orphans.put(due.key(), due.plannedAtMillis());
        continue;
      }
      startAt(registration, due.plannedAtMillis(), leaseScore, leaseUntil, now);
    }
    if (!orphans.isEmpty()) {
      // Deleted (or their template was) while due: drop from the index so they are not handed out
      // again. Rechecked first: a template created a moment ago elsewhere may not be known here yet.
      Map<String, Registration> late = registrations.recheck(orphans.keySet());
      List<String> gone = new ArrayList<>();
      for (Map.Entry<String, Long> orphan : orphans.entrySet()) {
        Registration registration = late.get(orphan.getKey());
        if (registration == null) {
          gone.add(orphan.getKey());
          continue;
        }
        startAt(registration, orphan.getValue(), leaseScore, leaseUntil, now);
      }
      if (!gone.isEmpty()) {
        index.remove(gone);
      }
    }
  }

  /**
   * Keeps the claims of held keys: every third of a lease, keys whose lease ends within two
   * thirds of one are renewed in one batch. A key whose claim turns out lost (another replica
   * claimed it after this one stalled, or it was rescheduled or removed) is dropped, not run. The
   * registrations of the renewed waiting keys are read again, so a key that waited long runs with
   * its current registration (and not at all if it was deleted).
   */
  private void renewLeases() {
    long now = clock.millis();
    long lease = settings.claimLease().toMillis();
    if (now - lastRenewalMillis < lease / 3) {
      return;
    }
    Map<String, Double> expiring = new HashMap<>();
    for (DueRefresh task : held.values()) {
      if (task.leaseUntilMillis - now < lease * 2 / 3) {
        expiring.put(task.key(), task.leaseScore);
      }
    }
    if (expiring.isEmpty()) {
      lastRenewalMillis = now;
      return;
    }
    long renewedUntil = now + lease;
    double renewedScore = leaseScore(renewedUntil);
    Set<String> lost;
    try {
      lost = renewAllowingForLostReplies(expiring, renewedScore);
    } catch (CacheUnavailableException e) {
      // The script may have run although its reply never came: Redis may hold renewedScore now.
      for (String key : expiring.keySet()) {
        DueRefresh task = held.get(key);
        if (task != null) {
          task.unconfirmedScore = renewedScore;
        }
      }
      throw e;
    }
    lastRenewalMillis = now;
    List<String> waitingKeys = new ArrayList<>();
    for (String key : expiring.keySet()) {
      DueRefresh task = held.get(key);
      if (task == null) {
        continue;
      }
      if (lost.contains(key)) {
        if (task.cancel()) {
          droppedClaims.incrementAndGet();
          LOG.debug("claim of key '{}' lost while it waited; dropped", key);
        }
        continue;
      }
      task.renewed(renewedScore, renewedUntil);
      if (!task.started) {
        waitingKeys.add(key);
      }
    }
    if (!waitingKeys.isEmpty()) {
      Map<String, Registration> current = registrations.findAll(waitingKeys);
      for (String key : waitingKeys) {
        DueRefresh task = held.get(key);
        Registration registration = current.get(key);
        if (task == null) {
          continue;
        }
        if (registration == null) {
          if (task.cancel()) {
            index.remove(List.of(key));
          }
        } else {
          task.registration = registration;
        }
      }
    }
    if (!lost.isEmpty()) {
      LOG.info("{} waiting keys dropped: their claims were taken over (this replica was too slow or stalled)", lost.size());
    }
  }

  /**
   * Renews, and for the keys whose score is not the one their task knows, tries again with the
   * score of a renewal whose reply was lost: if that script ran, the key is still this replica's.
   * Only keys held by neither score are lost.
   */
  private Set<String> renewAllowingForLostReplies(Map<String, Double> expected, double renewedScore) {
    Set<String> lost = leases.renew(expected, renewedScore);
    Map<String, Double> unconfirmed = new HashMap<>();
    for (String key : lost) {
      DueRefresh task = held.get(key);
      if (task != null && !Double.isNaN(task.unconfirmedScore)) {
        unconfirmed.put(key, task.unconfirmedScore);
      }
    }
    if (unconfirmed.isEmpty()) {
      return lost;
    }
    Set<String> lostToo = leases.renew(unconfirmed, renewedScore);
    Set<String> stillLost = new java.util.HashSet<>(lost);
    stillLost.removeIf(key -> unconfirmed.containsKey(key) && !lostToo.contains(key));
    return stillLost;
  }

  /**
   * The lease's end plus a fraction naming this claim: 1..1023 / 1024 of a millisecond, exact in a
   * double for epoch milliseconds below 2^43 (the year 2248).
   */
  private static double leaseScore(long leaseUntilMillis) {
    return leaseUntilMillis + ThreadLocalRandom.current().nextInt(1, 1024) / 1024.0;
  }

  /** Holds a claimed key in memory until its due time, then refreshes it on a worker. */
  private void startAt(Registration registration, long plannedAtMillis, double leaseScore, long leaseUntil, long now) {
    DueRefresh task = new DueRefresh(registration, plannedAtMillis, leaseScore, leaseUntil);
    DueRefresh holding = held.putIfAbsent(registration.key(), task);
    if (holding != null) {
      // Claimed again while held (rescheduled to a time within the lookahead while it waited, or
      // a recovered claim also claimed again): the index now carries this claim's lease, so the
      // held refresh takes it over. Left with its old lease, its next renewal would find its
      // claim gone and drop it, and this claim would never start: the key would wait out a whole
      // claim lease.
      holding.renewed(leaseScore, leaseUntil);
      return;
    }
    inFlight.incrementAndGet();
    java.util.Optional<io.refresher.source.BatchForm> batch = refresher.batchForm(registration);
    if (batch.isPresent() && batch.get().maxBatch() > 1) {
      joinBatch(task, batch.get().maxBatch());
      return;
    }
    task.future = workers.schedule(task, Math.max(0, plannedAtMillis - now), TimeUnit.MILLISECONDS);
  }

  private int giveBack() {
    Map<String, Long> back = new HashMap<>();
    for (DueRefresh task : held.values()) {
      if (task.cancel()) {
        back.put(task.key(), task.plannedAtMillis);
      }
    }
    if (!back.isEmpty()) {
      try {
        index.reschedule(back);
      } catch (CacheUnavailableException e) {
        LOG.warn("could not give {} waiting keys back ({}); their claim lease returns them", back.size(), e.getMessage());
      }
    }
    return back.size();
  }

  /** After a lock's lease ends, before the key is due again: Redis expires keys within a millisecond. */
  private static final long LOCK_END_MARGIN_MILLIS = 20;

  /** One claimed key waiting for, then running, its refresh. */
  private final class DueRefresh implements Runnable {
    private volatile Registration registration;
    private final long plannedAtMillis;
    private volatile double leaseScore;
    private volatile long leaseUntilMillis;
    /** The score of a renewal whose reply was lost (NaN: none): Redis may hold it instead. */
    private volatile double unconfirmedScore = Double.NaN;
    private volatile boolean started;
    private volatile java.util.concurrent.ScheduledFuture<?> future;
    private final java.util.concurrent.atomic.AtomicBoolean settled = new java.util.concurrent.atomic.AtomicBoolean();

    DueRefresh(Registration registration, long plannedAtMillis, double leaseScore, long leaseUntilMillis) {
      this.registration = registration;
      this.plannedAtMillis = plannedAtMillis;
      this.leaseScore = leaseScore;
      this.leaseUntilMillis = leaseUntilMillis;
    }

    String key() {
      return registration.key();
    }

    void renewed(double score, long until) {
      leaseScore = score;
      leaseUntilMillis = until;
      unconfirmedScore = Double.NaN;
    }

    /** Drops a key that has not started; true if this call dropped it. */
    synchronized boolean cancel() {
      if (started || !settled.compareAndSet(false, true)) {
        return false;
      }
      held.remove(key(), this);
      inFlight.decrementAndGet();
      java.util.concurrent.ScheduledFuture<?> scheduled = future;
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      return true;
    }

    /** Marks the key started; false when it was given back or dropped first. */
    synchronized boolean begin() {
      if (settled.get()) {
        return false; // given back on stop, or its claim was lost
      }
      started = true;
      return true;
    }

    /**
     * Whether the key may still run now: a key whose lease is about to run out may be handed to
     * another replica any moment, so it is let go rather than risk two runs (it is back in the index
     * when the lease ends). Records how late it starts when it may.
     */
    boolean mayRun(long now) {
      if (now >= leaseUntilMillis - leaseSafetyMillis()) {
        droppedClaims.incrementAndGet();
        LOG.debug("key '{}' not run: its claim lease ends at {}", key(), leaseUntilMillis);
        return false;
      }
      Duration late = late(now);
      listener.onLag(late);
      lag.record(late);
      return true;
    }

    Duration late(long now) {
      return Duration.ofMillis(Math.max(0, now - plannedAtMillis));
    }

    /** After the key's refresh: comes back when another refresh's lock ends, if that is why it was skipped. */
    void after(RefreshOutcome outcome) {
      if (outcome instanceof RefreshOutcome.Skipped skipped && skipped.lockedUntil() != null) {
        comeBackWhenTheLockEnds(key(), leaseScore, skipped.lockedUntil());
      }
    }

    void finish() {
      settled.set(true);
      held.remove(key(), this);
      inFlight.decrementAndGet();
    }

    @Override
    public void run() {
      if (!begin()) {
        return;
      }
      try {
        long now = clock.millis();
        if (mayRun(now)) {
          after(refresher.refresh(registration, Trigger.SCHEDULED, late(now)));
        }
      } catch (RuntimeException e) {
        // The executor would swallow it silently; the key's claim lease brings it back.
        LOG.error("scheduled refresh of key '{}' failed unexpectedly", key(), e);
      } finally {
        finish();
      }
    }
  }

  /** Where the keys of a batch source due at one time gather before they start. */
  private record BatchSlot(String source, long plannedAtMillis) {}

  /**
   * Keys of one batch source due at the same time (their times are aligned on the source's batch
   * window), refreshed together on one worker with one query ({@link Refresher#refreshBatch}). Keys
   * claimed later for the same time join it until it starts or holds {@code maxBatch}; each keeps
   * its own claim, lease renewal and drop, as a key refreshed alone does.
   */
  private final class DueBatch implements Runnable {
    private final BatchSlot slot;
    private final List<DueRefresh> members = new ArrayList<>();
    private boolean closed;

    DueBatch(BatchSlot slot) {
      this.slot = slot;
    }

    /** Called holding {@link #openBatches}' lock. */
    boolean add(DueRefresh task, int maxBatch) {
      if (closed || members.size() >= maxBatch) {
        return false;
      }
      members.add(task);
      return true;
    }

    @Override
    public void run() {
      List<DueRefresh> joined;
      synchronized (openBatches) {
        closed = true;
        openBatches.remove(slot, this);
        joined = new ArrayList<>(members);
      }
      List<DueRefresh> begun = new ArrayList<>();
      for (DueRefresh task : joined) {
        if (task.begin()) {
          begun.add(task);
        }
      }
      try {
        long now = clock.millis();
        List<DueRefresh> running = new ArrayList<>();
        List<Registration> registrations = new ArrayList<>();
        for (DueRefresh task : begun) {
          if (task.mayRun(now)) {
            running.add(task);
            registrations.add(task.registration);
          }
        }
        if (!registrations.isEmpty()) {
          Map<String, RefreshOutcome> outcomes =
              refresher.refreshBatch(registrations, Trigger.SCHEDULED, running.get(0).late(now));
          for (DueRefresh task : running) {
            task.after(outcomes.get(task.key()));
          }
        }
      } catch (RuntimeException e) {
        // The executor would swallow it silently; the keys' claim leases bring them back.
        LOG.error("scheduled batch refresh of {} keys of source '{}' failed unexpectedly", begun.size(), slot.source(), e);
      } finally {
        begun.forEach(DueRefresh::finish);
      }
    }
  }

  /** Open batches by source and due time; a batch leaves when it starts. Guarded by its own lock. */
  private final Map<BatchSlot, DueBatch> openBatches = new HashMap<>();
  /** Batches opened by the current tick, scheduled at its end. Guarded by {@link #openBatches}. */
  private final List<DueBatch> opened = new ArrayList<>();

  /** Adds a claimed key of a batch source to the batch of its source and due time, opening one if needed. */
  private void joinBatch(DueRefresh task, int maxBatch) {
    BatchSlot slot = new BatchSlot(task.registration.source(), task.plannedAtMillis);
    synchronized (openBatches) {
      DueBatch open = openBatches.get(slot);
      if (open != null && open.add(task, maxBatch)) {
        return;
      }
      DueBatch created = new DueBatch(slot);
      created.add(task, maxBatch);
      openBatches.put(slot, created);
      opened.add(created);
    }
  }

  /**
   * Schedules the batches the tick's claims opened, once the tick has claimed all it could: keys of
   * one source and time that came in several claims (a page per claim, a claim per shard) then go
   * together even when already due, as after a data loss, whose refill makes them due at once.
   */
  private void startOpenedBatches() {
    List<DueBatch> starting;
    synchronized (openBatches) {
      starting = new ArrayList<>(opened);
      opened.clear();
    }
    long now = clock.millis();
    for (DueBatch batch : starting) {
      try {
        workers.schedule(batch, Math.max(0, batch.slot.plannedAtMillis() - now), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // stopping: its keys are given back to the index with the other waiting ones
      }
    }
  }

  /**
   * A key whose lock another refresh holds is due again when that lock's lease ends, not when this
   * claim's lease does: if the holder died or froze mid-refresh (the case a claim lease exists
   * for), the lock outlives this claim by up to a lock lease, and a key that then waited for a
   * second claim lease would come {@code claimLease} late and could expire. Only while the key's
   * score is still this claim's: a holder that is alive writes its value and reschedules the key
   * for its next cycle, and that wins whichever comes first.
   */
  private void comeBackWhenTheLockEnds(String key, double leaseScore, Instant lockedUntil) {
    try {
      // Claimers take keys up to a lookahead early and start those already late at once: due a
      // lookahead after the lock's end, the key is not started (and turned back again) before it.
      long dueAgain = lockedUntil.toEpochMilli() + settings.lookahead().toMillis() + LOCK_END_MARGIN_MILLIS;
      leases.renew(Map.of(key, leaseScore), dueAgain);
      LOG.debug("key '{}' is locked by another refresh until {}; due again then", key, lockedUntil);
    } catch (CacheUnavailableException e) {
      LOG.debug("key '{}' locked; could not move it to its lock's end ({}); its claim lease brings it back", key, e.getMessage());
    }
  }

  /** Margin before a lease's end within which a waiting key is no longer started. */
  private long leaseSafetyMillis() {
    return Math.min(1000, settings.claimLease().toMillis() / 10);
  }
}

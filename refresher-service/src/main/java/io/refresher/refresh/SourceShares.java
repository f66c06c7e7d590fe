package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.ToIntFunction;

/**
 * Each source's share of its datasource's connection pool on this replica: a source may run at
 * most its share of the pool's connections at once, so one source whose queries hang (a lock in
 * the database, a missing index) cannot take the whole pool and delay the keys of the other
 * sources on it. A refresh over its source's share is not started: it is throttled and retried
 * after {@code retryBase}, like one over the datasource's load bound, and holds no worker while it
 * waits.
 *
 * <p>Decorates the datasource load bound ({@link SourceLoad}): the shared bound first, then the
 * share, taken with the rate permit right before the query ({@link Admission#awaitRate}).
 */
public final class SourceShares implements SourceLoad {

  /** Told when a refresh was held back by its source's share. */
  public interface Listener {
    void onShareFull(String source);

    Listener NONE = source -> {};
  }

  private final SourceLoad next;
  private final ToIntFunction<String> slotsOfSource;
  private final Listener listener;
  private final Map<String, Semaphore> bySource = new ConcurrentHashMap<>();

  /**
   * @param slotsOfSource how many queries of a source may run at once on this replica; 0 or less
   *     for no share (the source is alone on its datasource, or unknown)
   */
  public SourceShares(SourceLoad next, ToIntFunction<String> slotsOfSource, Listener listener) {
    this.next = next;
    this.slotsOfSource = slotsOfSource;
    this.listener = listener;
  }

  /** The slots of a source's share: {@code ceil(share × pool)}, at least 1. */
  public static int slots(double share, int poolSize) {
    return Math.max(1, (int) Math.ceil(share * poolSize));
  }

  @Override
  public Optional<Admission> admit(Registration registration) {
    Optional<Admission> admitted = next.admit(registration);
    String source = registration.source();
    int slots = slotsOfSource.applyAsInt(source);
    if (slots <= 0 || admitted.isEmpty()) {
      return admitted;
    }
    Semaphore share = bySource.computeIfAbsent(source, name -> new Semaphore(slots));
    Admission inner = admitted.get();
    return Optional.of(
        new Admission() {
          private boolean holding;
          private boolean closed;

          /**
           * The share is taken here, right before the query, not at admission: a refresh waiting
           * for the datasource's rate holds no connection, and taking the share while waiting
           * would hold back others (a rate-paced refill would run out of order).
           */
          @Override
          public boolean awaitRate() {
            if (!inner.awaitRate()) {
              return false;
            }
            if (!holding && !share.tryAcquire()) {
              listener.onShareFull(source);
              return false;
            }
            holding = true;
            return true;
          }

          @Override
          public void close() {
            if (closed) {
              return;
            }
            closed = true;
            try {
              inner.close();
            } finally {
              if (holding) {
                share.release();
              }
            }
          }
        });
  }

  /** Queries of the source running now on this replica (for tests and metrics). */
  public int running(String source) {
    Semaphore share = bySource.get(source);
    int slots = slotsOfSource.applyAsInt(source);
    return share == null || slots <= 0 ? 0 : slots - share.availablePermits();
  }
}

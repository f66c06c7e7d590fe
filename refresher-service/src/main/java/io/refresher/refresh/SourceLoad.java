package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.util.Optional;

/**
 * The load bound of the sources' datasources: how many source queries may start per second and
 * run at once, across all replicas together. Every refresh asks for admission before it takes the
 * key's lock, whatever its trigger (scheduled, prewarm, manual, registration), so no path can go
 * around the bound.
 *
 * <p>The concurrency slot is waited for before the key's lock (a waiting refresh holds nothing
 * another replica could use), the rate permit right before the query (see {@link
 * Admission#awaitRate}); both before the compute clock starts, so a refresh that waited for its
 * turn is not mistaken for a slow source by the adaptive TTR.
 */
public interface SourceLoad {

  /**
   * A concurrency slot for one source query; closing it gives the slot back. Never throws on
   * close.
   */
  interface Admission extends AutoCloseable {

    /**
     * Waits for the rate permit, within what is left of the wait budget, right before the query
     * runs: the rate is counted as close to the query as it can be, so that the one-second windows
     * the database sees hold the bound, not only the windows in which permits were taken.
     *
     * @return false when the budget ran out (the caller gives up and retries later)
     * @throws CacheUnavailableException when the shared bound cannot be reached
     */
    boolean awaitRate();

    @Override
    void close();

    /** No bound: nothing to wait for, nothing to give back. */
    Admission FREE =
        new Admission() {
          @Override
          public boolean awaitRate() {
            return true;
          }

          @Override
          public void close() {}
        };
  }

  /**
   * Waits, up to the datasource's wait budget, for a concurrency slot for the registration's
   * source.
   *
   * @return the admission, or empty when the budget ran out (the caller retries later)
   * @throws CacheUnavailableException when the shared bound cannot be reached
   */
  Optional<Admission> admit(Registration registration);

  /** No bound at all. */
  SourceLoad UNBOUNDED = registration -> Optional.of(Admission.FREE);
}

package io.refresher.refresh;

import io.refresher.registry.Registration;
import java.util.Optional;

/**
 * The load bound of the sources' datasources: how many source queries may start per second and
 * run at once, across all replicas together. Every refresh asks for admission before it takes the
 * key's lock, whatever its trigger (scheduled, prewarm, manual, registration), so no path can go
 * around the bound.
 *
 * <p>Waiting happens here, before the lock and before the compute clock starts: a refresh that
 * waited for its turn is not mistaken for a slow source by the adaptive TTR.
 */
public interface SourceLoad {

  /** Room to run one source query; closing it gives the concurrency slot back. Never throws. */
  interface Admission extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Waits, up to the datasource's wait budget, for room to run the registration's source.
   *
   * @return the admission, or empty when the budget ran out (the caller retries later)
   * @throws CacheUnavailableException when the shared bound cannot be reached
   */
  Optional<Admission> admit(Registration registration);

  /** No bound at all. */
  SourceLoad UNBOUNDED = registration -> Optional.of(() -> {});
}

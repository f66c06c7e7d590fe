package io.refresher.refresh;

import io.refresher.registry.Registration;
import io.refresher.source.SourceException;

/** Computes the current value of a registered key from its source. */
public interface ValueLoader {

  /**
   * Runs the registration's source.
   *
   * @return the value exactly as it will be stored in Redis
   * @throws SourceException for every failure, timeouts included
   */
  String load(Registration registration) throws SourceException;
}

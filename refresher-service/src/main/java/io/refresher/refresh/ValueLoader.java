package io.refresher.refresh;

import io.refresher.registry.Registration;
import io.refresher.source.SourceException;

/** Computes the current value of a registered key from its source. */
public interface ValueLoader {

  /**
   * Runs the registration's source.
   *
   * <p>An implementation that knows the largest value a refresh may write ({@link
   * RefreshSettings#maxValueBytes}) should stop reading a result as soon as its value passes it and
   * throw {@link SourceException.Kind#VALUE_TOO_LARGE}, instead of building the whole value first;
   * the caller checks the size of what it returns either way.
   *
   * @return the value exactly as it will be stored in Redis
   * @throws SourceException for every failure, timeouts included
   */
  String load(Registration registration) throws SourceException;

  /**
   * Runs the registration's source, or only asks it whether the value computed with {@code
   * validator} still holds, when the source can say so more cheaply than computing it again.
   *
   * @param validator the validator stored with the value now served, or null (no value, or none
   *     stored): then the value is always computed
   * @throws SourceException for every failure, timeouts included
   */
  default Loaded loadIfChanged(Registration registration, String validator) throws SourceException {
    return Loaded.value(load(registration));
  }

  /**
   * Whether the registration's source can revalidate a value: only then does a refresh read the
   * stored validator first (one more Redis round trip).
   */
  default boolean revalidates(Registration registration) {
    return false;
  }

  /** The registration's source's batch form, when it has one: its keys may then be refreshed together. */
  default java.util.Optional<io.refresher.source.BatchForm> batchForm(Registration registration) {
    return java.util.Optional.empty();
  }

  /**
   * Runs the batch form of the registrations' source (one source, each of its keys at most once)
   * once for all their keys.
   *
   * @return by key, every registration's value or its own failure: a key without a row gets its
   *     source's not-found rule (the marker, or a failure of that key alone)
   * @throws SourceException when the query itself fails (every key of the batch fails with it)
   */
  default java.util.Map<String, BatchItem> loadBatch(java.util.List<Registration> registrations) throws SourceException {
    throw new SourceException(SourceException.Kind.ERROR, "source '" + registrations.get(0).source() + "' has no batch form");
  }
}

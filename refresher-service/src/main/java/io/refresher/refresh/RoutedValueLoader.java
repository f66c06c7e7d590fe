package io.refresher.refresh;

import io.refresher.registry.Registration;
import io.refresher.source.SourceException;
import java.util.Map;

/**
 * The loader of each source: SQL sources run on JDBC, HTTP sources as requests; the refresh path
 * sees one {@link ValueLoader}.
 */
public final class RoutedValueLoader implements ValueLoader {

  private final Map<String, ValueLoader> bySource;
  private final ValueLoader otherwise;

  /**
   * @param bySource the loader of each source that does not use {@code otherwise}
   * @param otherwise the loader of every other source (and of sources no longer configured, which
   *     it reports)
   */
  public RoutedValueLoader(Map<String, ValueLoader> bySource, ValueLoader otherwise) {
    this.bySource = Map.copyOf(bySource);
    this.otherwise = otherwise;
  }

  private ValueLoader of(Registration registration) {
    return bySource.getOrDefault(registration.source(), otherwise);
  }

  @Override
  public String load(Registration registration) throws SourceException {
    return of(registration).load(registration);
  }

  @Override
  public Loaded loadIfChanged(Registration registration, String validator) throws SourceException {
    return of(registration).loadIfChanged(registration, validator);
  }

  @Override
  public boolean revalidates(Registration registration) {
    return of(registration).revalidates(registration);
  }

  @Override
  public java.util.Optional<io.refresher.source.BatchForm> batchForm(Registration registration) {
    return of(registration).batchForm(registration);
  }

  @Override
  public java.util.Map<String, BatchItem> loadBatch(java.util.List<Registration> registrations) throws SourceException {
    return of(registrations.get(0)).loadBatch(registrations);
  }
}

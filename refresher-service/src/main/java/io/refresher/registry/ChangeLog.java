package io.refresher.registry;

import java.util.List;

/** The registry's change log, newest first (PostgreSQL's {@code refresher_audit}). */
public interface ChangeLog {

  /** The most entries one page holds. */
  int MAX_PAGE = 1000;

  /**
   * @param key only this key's changes ({@code template:<name>} for a template's), or null for all
   * @param before only changes older than this id ({@link Change#id()}), or 0 for the newest
   * @param limit at most this many, 1 to {@link #MAX_PAGE}
   * @throws io.refresher.failure.RegistryUnavailableException when PostgreSQL cannot be reached
   */
  List<Change> page(String key, long before, int limit);
}

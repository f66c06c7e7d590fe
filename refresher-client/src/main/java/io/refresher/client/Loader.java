package io.refresher.client;

/** Computes a key's value from its source (a database query, a remote call...). */
@FunctionalInterface
public interface Loader {

  /**
   * The value to cache. Null means "no value": it is returned to the callers but not cached. A
   * checked exception reaches callers wrapped in a {@link LoaderException}; an unchecked one as is.
   */
  String load() throws Exception;
}

package io.refresher.refresh;

/**
 * The benchmarks' way to package-private code of the refresh path. It lives in the bench module
 * (same package name, so it sees what the package sees), not in the service: the service's API is
 * unchanged, and nothing here ships with it.
 */
public final class BenchAccess {

  private BenchAccess() {}

  /** {@link Refresher#utf8Length}, the value size check of every refresh. */
  public static long utf8Length(String text) {
    return Refresher.utf8Length(text);
  }
}

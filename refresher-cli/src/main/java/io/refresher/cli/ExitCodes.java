package io.refresher.cli;

/** What the command's exit status means, for scripts and pipelines. */
final class ExitCodes {

  /** Done: applied, nothing to change, read. */
  static final int OK = 0;
  /** {@code diff} (or {@code apply --dry-run} with {@code --exit-code}) found differences. */
  static final int DIFFERENCES = 1;
  /** Bad usage, or a registrations file that cannot be read or is invalid: nothing was sent. */
  static final int USAGE = 2;
  /** The service refused a call (a 4xx: invalid input, a wrong or read-only token, not found). */
  static final int REFUSED = 3;
  /** The service could not be reached, or stayed unavailable (5xx) through the retries. */
  static final int UNAVAILABLE = 4;
  /** {@code refresh}: some keys failed to refresh, or are not registered. */
  static final int NOT_ALL_REFRESHED = 5;

  private ExitCodes() {}
}

package io.refresher.persistence;

import io.refresher.registry.RegistryRefusedException;
import io.refresher.failure.RegistryUnavailableException;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;
import org.jdbi.v3.core.ConnectionException;

/**
 * What a failed database call means, decided once, here, for every Jdbi adapter. Only a failure
 * that may pass by itself is "unavailable" (the API answers 503 with Retry-After): the database
 * cannot be reached or is shutting down, a connection broke, the pool or the statement timed out,
 * the server is out of resources, a transaction lost a serialisation race. Input the database
 * refuses (a data exception, a constraint) is the caller's error and never worth retrying. Anything
 * else is a fault (a bad row, SQL the database does not understand): it is rethrown as it is, to
 * be logged with its cause and answered with 500.
 *
 * <p>PostgreSQL's SQLSTATE classes: 08 connection exception, 53 insufficient resources, 57P01-03
 * shutdown and cannot-connect-now, 57014 query canceled (the statement timeout), 40001/40P01
 * serialisation failure and deadlock, 55P03 lock not available; 22 data exception (22021 invalid
 * byte sequence, 22P05 untranslatable character: a NUL), 23 integrity constraint violation.
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
public final class PersistenceFailures {

  private static final Set<String> TRANSIENT_STATES = Set.of("57P01", "57P02", "57P03", "57014", "40001", "40P01", "55P03");

  private PersistenceFailures() {}

  /**
   * The exception to throw for {@code failure}: {@link RegistryUnavailableException} when it is
   * transient, {@link RegistryRefusedException} when the database refused the input, else {@code
   * failure} itself.
   */
  public static RuntimeException classify(RuntimeException failure) {
    String state = sqlState(failure);
    if (isTransient(failure, state)) {
      return new RegistryUnavailableException("registry database unavailable: " + rootMessage(failure), failure);
    }
    if (state != null && state.startsWith("22")) {
      return new RegistryRefusedException(
          RegistryRefusedException.Reason.INVALID_VALUE, "the database refused a value: " + serverMessage(failure), failure);
    }
    if (state != null && state.startsWith("23")) {
      return new RegistryRefusedException(
          RegistryRefusedException.Reason.CONFLICT, "the database refused the change: " + serverMessage(failure), failure);
    }
    return failure;
  }

  /** The SQLSTATE of the first SQL exception in the causes that has one. */
  static String sqlState(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = next(cause)) {
      if (cause instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }

  private static boolean isTransient(Throwable failure, String state) {
    if (state != null) {
      if (state.startsWith("08") || state.startsWith("53") || TRANSIENT_STATES.contains(state)) {
        return true;
      }
      if (state.startsWith("22") || state.startsWith("23")) {
        return false;
      }
    }
    for (Throwable cause = failure; cause != null; cause = next(cause)) {
      // Hikari's "connection is not available, request timed out" is an SQLTransientConnectionException
      if (cause instanceof SQLTransientException
          || cause instanceof SQLRecoverableException
          || cause instanceof SQLNonTransientConnectionException
          || cause instanceof ConnectionException
          || cause instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private static Throwable next(Throwable cause) {
    Throwable next = cause.getCause();
    return next == cause ? null : next;
  }

  /** The database's own sentence (PostgreSQL's first line, without "ERROR: "), never the statement. */
  private static String serverMessage(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = next(cause)) {
      if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getMessage() != null) {
        String first = sql.getMessage().lines().findFirst().orElse("").trim();
        return first.startsWith("ERROR: ") ? first.substring("ERROR: ".length()) : first;
      }
    }
    return rootMessage(failure);
  }

  private static String rootMessage(Throwable failure) {
    Throwable root = failure;
    for (Throwable cause = failure; cause != null; cause = next(cause)) {
      root = cause;
    }
    return root.getMessage();
  }
}

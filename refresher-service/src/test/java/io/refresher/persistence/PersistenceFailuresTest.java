package io.refresher.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.RegistryRefusedException;
import io.refresher.failure.RegistryUnavailableException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which database failures are "unavailable, retry later" (503): only connectivity, shutdown,
 * resources and timeouts. A NUL in a query parameter made PostgreSQL refuse the statement
 * (22021), which was answered 503 with Retry-After, so clients retried it forever.
 */
class PersistenceFailuresTest {

  private static RuntimeException failed(String sqlState, String message) {
    return new UnableToExecuteStatementException(new SQLException(message, sqlState), null);
  }

  @ParameterizedTest(name = "SQLSTATE {0}")
  @ValueSource(strings = {"08001", "08006", "08003", "57P01", "57P02", "57P03", "53300", "53100", "57014", "40001", "40P01", "55P03"})
  void classify_connectivityShutdownResourcesOrTimeout_unavailable(String state) {
    assertThat(PersistenceFailures.classify(failed(state, "ERROR: it failed")))
        .isInstanceOf(RegistryUnavailableException.class);
  }

  @Test
  void classify_poolTimedOut_unavailable() {
    // What Hikari throws when no connection comes within connectionTimeout, wrapped by Jdbi.
    RuntimeException failure =
        new ConnectionException(
            new SQLTransientConnectionException("registry - Connection is not available, request timed out after 1000ms"));

    assertThat(PersistenceFailures.classify(failure)).isInstanceOf(RegistryUnavailableException.class);
  }

  @Test
  void classify_connectionRefusedWithoutSqlState_unavailable() {
    RuntimeException failure =
        new UnableToExecuteStatementException(new SQLException("I/O error", new ConnectException("Connection refused")), null);

    assertThat(PersistenceFailures.classify(failure)).isInstanceOf(RegistryUnavailableException.class);
  }

  @ParameterizedTest(name = "SQLSTATE {0}")
  @ValueSource(strings = {"22021", "22P05", "22001", "22P02"})
  void classify_dataException_refusedAsInvalidValueNamingTheDatabasesReason(String state) {
    RuntimeException classified =
        PersistenceFailures.classify(failed(state, "ERROR: invalid byte sequence for encoding \"UTF8\": 0x00\n  Where: unnamed portal parameter $1"));

    assertThat(classified).isInstanceOf(RegistryRefusedException.class);
    assertThat(((RegistryRefusedException) classified).reason()).isEqualTo(RegistryRefusedException.Reason.INVALID_VALUE);
    assertThat(classified.getMessage())
        .isEqualTo("the database refused a value: invalid byte sequence for encoding \"UTF8\": 0x00");
  }

  @ParameterizedTest(name = "SQLSTATE {0}")
  @ValueSource(strings = {"23505", "23503", "23514", "23502"})
  void classify_constraintViolation_refusedAsConflict(String state) {
    RuntimeException classified = PersistenceFailures.classify(failed(state, "ERROR: duplicate key value"));

    assertThat(classified).isInstanceOf(RegistryRefusedException.class);
    assertThat(((RegistryRefusedException) classified).reason()).isEqualTo(RegistryRefusedException.Reason.CONFLICT);
  }

  @ParameterizedTest(name = "SQLSTATE {0}")
  @ValueSource(strings = {"42P01", "42703", "42601", "XX000", "0A000"})
  void classify_fault_rethrownAsItIs(String state) {
    RuntimeException failure = failed(state, "ERROR: relation \"refresher_key\" does not exist");

    assertThat(PersistenceFailures.classify(failure)).isSameAs(failure);
  }

  @Test
  void classify_unreadableRowWithoutSqlState_rethrownAsItIs() {
    RuntimeException failure =
        new UnableToExecuteStatementException(new SQLException("params of key 'k' are not JSON"), null);

    assertThat(PersistenceFailures.classify(failure)).isSameAs(failure);
  }
}

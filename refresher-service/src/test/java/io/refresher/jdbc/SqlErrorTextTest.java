package io.refresher.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

class SqlErrorTextTest {

  /** A server error as PostgreSQL sends it: one field per letter, each ended by a NUL. */
  private static PSQLException serverError(String... fields) {
    return new PSQLException(new ServerErrorMessage(String.join("\0", fields) + "\0"));
  }

  @Test
  void serverError_sqlStateAndTheMessage_withoutDetailHintOrWhere() {
    PSQLException e =
        serverError(
            "SERROR", "C23505", "Mduplicate key value violates unique constraint \"account_email_key\"",
            "DKey (email)=(ann@example.com) already exists.", "Htry another", "WSQL function \"f\" line 1");

    assertThat(e.getMessage()).as("the driver's own message has it all").contains("ann@example.com");
    assertThat(SqlErrorText.of(e)).isEqualTo("SQLSTATE 23505: duplicate key value violates unique constraint \"account_email_key\"");
  }

  @Test
  void serverMessageOverSeveralLines_onlyTheFirst() {
    PSQLException e = serverError("SERROR", "CP0001", "Mlookup of account 1 refused\nbecause of ann@example.com");

    assertThat(SqlErrorText.of(e)).isEqualTo("SQLSTATE P0001: lookup of account 1 refused");
  }

  @Test
  void longFirstLine_cut() {
    PSQLException e = serverError("SERROR", "CP0001", "M" + "x".repeat(1_000));

    assertThat(SqlErrorText.of(e)).hasSize("SQLSTATE P0001: ".length() + SqlErrorText.MAX_LINE_CHARS + 3).endsWith("x...");
  }

  @Test
  void notFromTheServer_theFirstLineOfTheDriversMessage() {
    assertThat(SqlErrorText.of(new SQLException("Connection is not available\n  pool: 10 active", "08003")))
        .isEqualTo("SQLSTATE 08003: Connection is not available");
    assertThat(SqlErrorText.of(new SQLException("no state"))).isEqualTo("no state");
    assertThat(SqlErrorText.of(new SQLException())).isEqualTo("SQLException");
  }
}

package io.refresher.jdbc;

import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * What a failed query may say on its key: its SQLSTATE and the first line of the server's message
 * ({@code SQLSTATE 23505: duplicate key value violates unique constraint "account_email_key"}),
 * bounded. PostgreSQL's full error also has Detail, Hint and Where lines, which quote row data
 * ({@code Key (email)=(ann@example.com) already exists.}), and a {@code RAISE} message can run over
 * several lines that a function fills with anything: those stay in the service's log.
 */
final class SqlErrorText {

  /** The longest first line kept; a line cut there ends with "...". */
  static final int MAX_LINE_CHARS = 200;

  private SqlErrorText() {}

  static String of(SQLException e) {
    String line = firstLine(serverMessage(e));
    String state = e.getSQLState();
    return state == null || state.isBlank() ? line : "SQLSTATE " + state + ": " + line;
  }

  /** The server's own message without its Detail, Hint and Where; the driver's message when the server sent none. */
  private static String serverMessage(SQLException e) {
    if (e instanceof PSQLException psql) {
      ServerErrorMessage server = psql.getServerErrorMessage();
      if (server != null && server.getMessage() != null) {
        return server.getMessage();
      }
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static String firstLine(String text) {
    String stripped = text.strip();
    int end = 0;
    while (end < stripped.length() && stripped.charAt(end) != '\n' && stripped.charAt(end) != '\r') {
      end++;
    }
    String line = stripped.substring(0, end).strip();
    return line.length() <= MAX_LINE_CHARS ? line : line.substring(0, MAX_LINE_CHARS) + "...";
  }
}

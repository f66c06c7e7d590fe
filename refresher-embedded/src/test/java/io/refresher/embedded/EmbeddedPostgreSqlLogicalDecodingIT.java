package io.refresher.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL can feed change capture from its log: a server started for it decodes a
 * publication's changes through the built-in {@code pgoutput} plugin (its binaries ship it), and
 * takes the replication connections a capture library streams them on. The usual server does
 * not, by design: it writes the smaller log the other tests and the benchmark measure.
 */
class EmbeddedPostgreSqlLogicalDecodingIT {

  @Test
  void aServerForCapture_decodesAPublicationsChangesWithPgoutput_andTakesReplicationConnections() throws SQLException {
    try (EmbeddedPostgreSql postgres = EmbeddedPostgreSql.startWithLogicalDecoding()) {
      String url = postgres.createDatabase("capture");
      try (Connection connection = DriverManager.getConnection(url, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE product (id bigint PRIMARY KEY, price numeric NOT NULL)");
        statement.execute("INSERT INTO product VALUES (42, 10)");
        statement.execute("CREATE PUBLICATION refresher FOR TABLE product");
        statement.execute("SELECT pg_create_logical_replication_slot('refresher', 'pgoutput')");
        statement.execute("UPDATE product SET price = 11 WHERE id = 42");
        statement.execute("DELETE FROM product WHERE id = 42");

        // pgoutput's messages: B(egin), R(elation), U(pdate), C(ommit), then the delete's B, D, C.
        // Decoding reads the log as far as it is flushed, which with synchronous_commit=off is up
        // to the WAL writer's next round (200 ms): wait for it.
        await("both changes decoded")
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(() -> assertThat(messageKinds(statement)).isEqualTo("BRUCBDC"));
      }

      Properties replication = new Properties();
      replication.setProperty("user", EmbeddedPostgreSql.USER);
      replication.setProperty("password", EmbeddedPostgreSql.PASSWORD);
      replication.setProperty("replication", "database");
      replication.setProperty("assumeMinServerVersion", "9.4");
      replication.setProperty("preferQueryMode", "simple");
      try (Connection walSender = DriverManager.getConnection(url, replication);
          Statement statement = walSender.createStatement();
          ResultSet system = statement.executeQuery("IDENTIFY_SYSTEM")) {
        assertThat(system.next()).isTrue();
        assertThat(system.getString("xlogpos")).as("the log position a capture starts from").matches("[0-9A-F]+/[0-9A-F]+");
      }
    }
  }

  private static String messageKinds(Statement statement) throws SQLException {
    StringBuilder kinds = new StringBuilder();
    try (ResultSet changes =
        statement.executeQuery(
            "SELECT data FROM pg_logical_slot_peek_binary_changes('refresher', NULL, NULL,"
                + " 'proto_version', '1', 'publication_names', 'refresher')")) {
      while (changes.next()) {
        kinds.append((char) changes.getBytes(1)[0]);
      }
    }
    return kinds.toString();
  }

  @Test
  void theUsualServer_refusesLogicalSlots() {
    try (EmbeddedPostgreSql postgres = EmbeddedPostgreSql.start()) {
      String url = postgres.createDatabase("no_capture");
      assertThatThrownBy(
              () -> {
                try (Connection connection = DriverManager.getConnection(url, EmbeddedPostgreSql.USER, EmbeddedPostgreSql.PASSWORD);
                    Statement statement = connection.createStatement()) {
                  statement.execute("SELECT pg_create_logical_replication_slot('refresher', 'pgoutput')");
                }
              })
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("wal_level");
    }
  }
}

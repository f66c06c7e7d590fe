package io.refresher.persistence;

import io.refresher.wiring.Threads;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/**
 * What the probe concludes from each kind of failure. Connections are stand-ins that answer {@code
 * SELECT 1} or fail as a real server would: refused, broken by {@code pg_terminate_backend}, or
 * silent (a read timeout). The real server's behaviour is {@code PostgresFaultsIT}'s.
 */
class DatabaseProbeTest {

  private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-01-01T00:00:00Z"));

  /** Connections handed out in order; an empty queue means the server refuses connections. */
  private final Deque<Connection> connections = new ArrayDeque<>();
  private int opened;
  private final DatabaseAvailability availability = new DatabaseAvailability(CLOCK);
  private final DatabaseProbe probe =
      new DatabaseProbe(
          this::open, availability, Duration.ofSeconds(1), CLOCK, Threads.scheduler("test-postgres-probe-", 1));

  @Test
  void probe_answered_available() {
    connections.add(answering());

    probe.probe();

    assertThat(availability.isAvailable()).isTrue();
  }

  @Test
  void probe_refused_downWithTheCause() {
    probe.probe();

    assertThat(availability.outage()).hasValueSatisfying(outage -> assertThat(outage.cause()).contains("refused"));
  }

  @Test
  void probe_keptConnectionTerminated_newConnectionAnswers_staysAvailable() {
    connections.add(answering());
    probe.probe();
    connections.clear();
    connections.add(answering());
    terminateKept();

    probe.probe();

    assertThat(availability.isAvailable()).as("a terminated backend is no outage").isTrue();
    assertThat(opened).isEqualTo(2);
  }

  @Test
  void probe_keptConnectionTimesOut_downAtOnceWithoutASecondAttempt() {
    connections.add(silentAfterFirstAnswer());
    probe.probe();
    connections.add(answering());

    probe.probe();

    assertThat(availability.isAvailable()).as("nothing answered within the timeout").isFalse();
    assertThat(opened).as("no second attempt: it would only double the time to notice").isEqualTo(1);
  }

  @Test
  void probe_downThenAnswered_availableAgainAndTheOutageKeepsItsStart() {
    probe.probe();
    probe.probe();
    Instant since = availability.outage().orElseThrow().since();
    connections.add(answering());

    probe.probe();

    assertThat(availability.isAvailable()).isTrue();
    assertThat(since).isEqualTo(CLOCK.instant());
  }

  private Connection open() throws SQLException {
    Connection next = connections.poll();
    if (next == null) {
      throw new SQLException("Connection to 127.0.0.1:5432 refused.", "08001");
    }
    opened++;
    return next;
  }

  private boolean terminated;

  private void terminateKept() {
    terminated = true;
  }

  /** Answers SELECT 1 until {@link #terminateKept()} breaks the first connection handed out. */
  private Connection answering() {
    boolean first = opened == 0;
    return connection(() -> {
      if (first && terminated) {
        throw new SQLException("FATAL: terminating connection due to administrator command", "57P01");
      }
    });
  }

  /** Answers once, then every read times out (the server froze). */
  private Connection silentAfterFirstAnswer() {
    int[] calls = {0};
    return connection(() -> {
      if (calls[0]++ > 0) {
        throw new SQLException("An I/O error occurred while sending to the backend.", "08006", new SocketTimeoutException("Read timed out"));
      }
    });
  }

  private interface Query {
    void run() throws SQLException;
  }

  private static Connection connection(Query query) {
    ResultSet rs = proxy(ResultSet.class, (method, args) -> switch (method) {
      case "next" -> true;
      default -> null;
    });
    Statement statement = proxy(Statement.class, (method, args) -> {
      if ("executeQuery".equals(method)) {
        query.run();
        return rs;
      }
      return null;
    });
    return proxy(Connection.class, (method, args) -> "createStatement".equals(method) ? statement : null);
  }

  private interface Answer {
    Object answer(String method, Object[] args) throws SQLException;
  }

  private static <T> T proxy(Class<T> type, Answer answer) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
      if (method.getDeclaringClass() == Object.class) {
        return "equals".equals(method.getName()) ? self == args[0] : "hashCode".equals(method.getName()) ? System.identityHashCode(self) : type.getSimpleName();
      }
      Object result = answer.answer(method.getName(), args);
      if (result == null && method.getReturnType() == boolean.class) {
        return false;
      }
      return result;
    }));
  }
}

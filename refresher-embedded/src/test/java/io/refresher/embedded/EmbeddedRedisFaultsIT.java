package io.refresher.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process faults of {@link EmbeddedRedis}, seen by a raw RESP connection with a 500 ms timeout. */
class EmbeddedRedisFaultsIT {

  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

  @TempDir Path dataDirectory;

  private static RespConnection connect(EmbeddedRedis redis) throws IOException {
    return RespConnection.open(redis.port(), COMMAND_TIMEOUT);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void killThenStartAgain_aNewEmptyProcessAnswersOnTheSamePort() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      long before = redis.pid();
      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("SET", "k", "v")).isEqualTo("OK");

        redis.kill();

        assertThat(alive(before)).isFalse();
        assertThat(redis.isRunning()).isFalse();
        assertThatThrownBy(() -> connection.call("PING")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> connect(redis)).isInstanceOf(ConnectException.class);
      }

      redis.startAgain();

      assertThat(redis.pid()).isNotEqualTo(before);
      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("PING")).isEqualTo("PONG");
        assertThat(connection.call("GET", "k")).isNull();
      }
    }
  }

  @Test
  void frozen_connectionsStayOpenButNothingAnswersUntilThawed() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start();
        RespConnection connection = connect(redis)) {
      assertThat(connection.call("SET", "k", "v")).isEqualTo("OK");
      long pid = redis.pid();

      redis.freeze();
      try {
        assertThat(redis.isFrozen()).isTrue();
        assertThatThrownBy(() -> connection.call("GET", "k")).isInstanceOf(SocketTimeoutException.class);
        // The kernel still completes new connections (the listen backlog); nothing answers on them.
        try (RespConnection late = connect(redis)) {
          assertThatThrownBy(() -> late.call("PING")).isInstanceOf(SocketTimeoutException.class);
        }
        connection.send("SET", "k2", "written during the stall");
      } finally {
        redis.thaw();
      }

      // A timed-out command is not a command that did not run: the replies arrive now, in order.
      assertThat(connection.read()).as("the GET that timed out").isEqualTo("v");
      assertThat(connection.read()).as("the SET sent while frozen").isEqualTo("OK");
      assertThat(connection.call("GET", "k")).isEqualTo("v");
      assertThat(connection.call("GET", "k2")).isEqualTo("written during the stall");
      assertThat(redis.isFrozen()).isFalse();
      assertThat(redis.pid()).isEqualTo(pid);
      redis.thaw(); // Not frozen: nothing happens.
    }
  }

  @Test
  void kill_endsAFrozenProcess() throws Exception {
    // Redis handles SIGTERM, and a stopped process keeps a handled signal pending: only SIGKILL ends it.
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      long before = redis.pid();
      redis.freeze();
      try {
        redis.kill();
      } finally {
        redis.thaw();
      }
      assertThat(alive(before)).isFalse();
      assertThat(redis.isFrozen()).isFalse();

      redis.startAgain();
      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("PING")).isEqualTo("PONG");
      }
    }
  }

  @Test
  void restartKeepingData_anotherProcessWithTheSameKeysAndTtls() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.startPersistent(dataDirectory)) {
      int port = redis.port();
      long before = redis.pid();
      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("SET", "k", "v", "EX", "600")).isEqualTo("OK");
      }

      redis.restartKeepingData();

      assertThat(redis.pid()).isNotEqualTo(before);
      assertThat(alive(before)).isFalse();
      assertThat(redis.port()).isEqualTo(port);
      assertThat(dataDirectory.resolve("dump.rdb")).isRegularFile();
      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("GET", "k")).isEqualTo("v");
        assertThat((Long) connection.call("TTL", "k")).isBetween(1L, 600L);
      }
    }
  }

  @Test
  void persistentKill_startAgainGoesBackToTheLastSnapshot_startAgainEmptyToNothing() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.startPersistent(dataDirectory)) {
      try (RespConnection connection = connect(redis)) {
        connection.call("SET", "saved", "1");
        redis.save();
        connection.call("SET", "unsaved", "2");
      }

      redis.kill();
      redis.startAgain();

      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("GET", "saved")).isEqualTo("1");
        assertThat(connection.call("GET", "unsaved")).isNull();
      }

      redis.kill();
      redis.startAgainEmpty();

      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("DBSIZE")).isEqualTo(0L);
      }
    }
  }

  @Test
  void restart_losesTheDataEvenWithASnapshot() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.startPersistent(dataDirectory)) {
      try (RespConnection connection = connect(redis)) {
        connection.call("SET", "k", "v");
      }
      redis.save();

      redis.restart();

      try (RespConnection connection = connect(redis)) {
        assertThat(connection.call("DBSIZE")).isEqualTo(0L);
      }
    }
  }

  @Test
  void misuseIsRefusedWithTheReason() {
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      assertThatThrownBy(redis::restartKeepingData)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("startPersistent");
      assertThatThrownBy(redis::startAgain)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("kill() or stop() it first");
      redis.kill();
      assertThatThrownBy(redis::pid).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(redis::freeze).isInstanceOf(IllegalStateException.class);
      redis.thaw(); // Nothing runs: nothing happens.
    }
  }
}

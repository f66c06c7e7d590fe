package io.refresher.client.redisson;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisResponseTimeoutException;
import org.redisson.client.RedisTimeoutException;

/** Which failed writes may be sent again: only those Redis surely did not run. */
class RedissonOutcomesTest {

  @Test
  void aCallNeverWrittenOrRefused_isSafeToSendAgain() {
    assertThat(RedissonDriver.surelyNotRun(new RedisConnectionException("Unable to connect"))).isTrue();
    assertThat(RedissonDriver.surelyNotRun(new RedisTimeoutException("Command still hasn't been written into connection!")))
        .isTrue();
    assertThat(RedissonDriver.surelyNotRun(new RedisOutOfMemoryException("OOM command not allowed"))).isTrue();
    assertThat(RedissonDriver.surelyNotRun(new RedisReadonlyException("READONLY You can't write against a read only replica.")))
        .isTrue();
    assertThat(RedissonDriver.surelyNotRun(new IllegalStateException("batch", new RedisConnectionException("refused"))))
        .as("found through the cause chain")
        .isTrue();
  }

  @Test
  void aCallWhoseAnswerWasLost_isNotSentAgain() {
    assertThat(RedissonDriver.surelyNotRun(new RedisResponseTimeoutException("Redis server response timeout (300 ms)")))
        .as("a response timeout, although it is a RedisTimeoutException")
        .isFalse();
    assertThat(RedissonDriver.surelyNotRun(new RedisException("Connection closed"))).isFalse();
    assertThat(RedissonDriver.surelyNotRun(new IllegalStateException("unknown"))).isFalse();
    assertThat(RedissonDriver.surelyNotRun(
            new IllegalStateException("batch", new RedisResponseTimeoutException("timeout"))))
        .isFalse();
  }
}

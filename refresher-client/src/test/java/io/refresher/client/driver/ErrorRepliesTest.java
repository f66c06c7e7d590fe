package io.refresher.client.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which error replies mean Redis did not run the call, whatever library shows them. */
class ErrorRepliesTest {

  @Test
  void refusals_areNotRun() {
    for (String message :
        List.of(
            "OOM command not allowed when used memory > 'maxmemory'.",
            "READONLY You can't write against a read only replica.",
            "LOADING Redis is loading the dataset in memory",
            "BUSY Redis is busy running a script.",
            "CLUSTERDOWN The cluster is down",
            "TRYAGAIN Multiple keys request during rehashing of slot",
            "MOVED 3999 127.0.0.1:6381",
            "NOSCRIPT No matching script. Please use EVAL.",
            "noauth Authentication required.")) {
      assertThat(ErrorReplies.refusedWithoutRunning(message)).as(message).isTrue();
    }
  }

  @Test
  void errorsOfACommandThatRan_orUnknown_areNot() {
    assertThat(ErrorReplies.refusedWithoutRunning("ERR Error running script (call to f_1234): @user_script:3: oops"))
        .as("a script may have written before it failed")
        .isFalse();
    assertThat(ErrorReplies.refusedWithoutRunning("WRONGTYPE Operation against a key holding the wrong kind of value")).isFalse();
    assertThat(ErrorReplies.refusedWithoutRunning(null)).isFalse();
    assertThat(ErrorReplies.refusedWithoutRunning("")).isFalse();
    assertThat(ErrorReplies.isNoScript("NOSCRIPT No matching script")).isTrue();
    assertThat(ErrorReplies.isNoScript("ERR NOSCRIPT")).isFalse();
  }

  @Test
  void scriptNames_areRedisSha1s() {
    // SCRIPT LOAD "return 1" answers this.
    assertThat(RedisScript.sha1Of("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  }
}

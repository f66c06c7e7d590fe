package io.refresher.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

  @Test
  void aPlainCallerId_isKept() {
    assertThat(RequestIds.idOf("deploy-42.step_3")).isEqualTo("deploy-42.step_3");
    assertThat(RequestIds.idOf("x".repeat(RequestIds.MAX_LENGTH))).hasSize(RequestIds.MAX_LENGTH);
  }

  @Test
  void noId_orOneThatIsNotAPlainToken_isReplacedByANewUuid() {
    for (String header : new String[] {null, "", "two words", "line\nbreak", "{\"json\":1}", "x".repeat(RequestIds.MAX_LENGTH + 1)}) {
      String id = RequestIds.idOf(header);
      assertThat(id).as(String.valueOf(header)).isNotEqualTo(header);
      assertThat(UUID.fromString(id).toString()).isEqualTo(id);
    }
    assertThat(RequestIds.idOf(null)).as("a new one each time").isNotEqualTo(RequestIds.idOf(null));
  }
}

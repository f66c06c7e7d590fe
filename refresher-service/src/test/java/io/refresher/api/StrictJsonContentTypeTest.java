package io.refresher.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StrictJsonContentTypeTest {

  @ParameterizedTest
  @ValueSource(strings = {"application/json", "Application/JSON", " application/json ", "application/json; charset=utf-8", "application/json;charset=\"UTF-8\""})
  void isJson_jsonInUtf8_accepted(String contentType) {
    assertThat(StrictJsonContentType.isJson(contentType)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "application/merge-patch+json",
        "application/json;;;",
        "application/json;",
        "application/json; charset=iso-8859-1",
        "application/json; profile=x",
        "application/json; charset",
        "application/jsonx",
        "text/json",
        "text/plain",
        ""
      })
  void isJson_anythingElse_refused(String contentType) {
    assertThat(StrictJsonContentType.isJson(contentType)).isFalse();
  }
}

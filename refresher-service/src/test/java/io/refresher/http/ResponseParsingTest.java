package io.refresher.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.source.SourceException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading what a response says: Retry-After, validators, the value at a JSON Pointer, the body's text. */
class ResponseParsingTest {

  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  // Retry-After

  @ParameterizedTest(name = "Retry-After [{0}] -> {1} s")
  @CsvSource(
      delimiter = '|',
      value = {
        "3                                 | 3",
        "' 120 '                           | 120",
        "0                                 | 0",
        "Sun, 01 Mar 2026 12:00:10 GMT     | 10",
        "Sunday, 01-Mar-26 12:01:00 GMT    | 60",
        "Sun Mar  1 12:00:05 2026          | 5",
        "Sun, 01 Mar 2026 11:00:00 GMT     | 0",
        "99999999999999999999              | 31622400",
      })
  void retryAfter_secondsOrHttpDate_isTheDelay(String header, long seconds) {
    assertThat(RetryAfter.parse(header, NOW)).isEqualTo(Duration.ofSeconds(seconds));
  }

  @ParameterizedTest(name = "Retry-After [{0}] -> none")
  @CsvSource(value = {"-1", "3.5", "soon", "''", "'1 2'"})
  void retryAfter_neitherForm_isNone(String header) {
    assertThat(RetryAfter.parse(header, NOW)).isNull();
  }

  /** The server's clock an hour ahead of this one: its Date says so, and the delay is what it meant. */
  @Test
  void retryAfter_httpDate_isReadAgainstTheResponsesDate() {
    assertThat(RetryAfter.parse("Sun, 01 Mar 2026 13:00:10 GMT", "Sun, 01 Mar 2026 13:00:00 GMT", NOW))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(RetryAfter.parse("Sun, 01 Mar 2026 12:59:00 GMT", "Sun, 01 Mar 2026 13:00:00 GMT", NOW))
        .as("a date already past on the server's clock")
        .isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("30", "Sun, 01 Mar 2026 13:00:00 GMT", NOW)).as("seconds need no clock").isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void retryAfter_httpDate_withoutAValidDate_isReadAgainstTheTimeTheResponseCame() {
    assertThat(RetryAfter.parse("Sun, 01 Mar 2026 12:00:10 GMT", null, NOW)).isEqualTo(Duration.ofSeconds(10));
    assertThat(RetryAfter.parse("Sun, 01 Mar 2026 12:00:10 GMT", "yesterday", NOW)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void retryAfter_absent_isNone() {
    assertThat(RetryAfter.parse(null, NOW)).isNull();
  }

  // Validators

  @Test
  void validators_etagPreferred_thenLastModified_roundTripToConditionalHeaders() {
    String date = "Wed, 21 Oct 2015 07:28:00 GMT";

    assertThat(HttpValidators.of("\"abc\"", date)).contains("etag:\"abc\"");
    assertThat(HttpValidators.of("W/\"abc\"", null)).contains("etag:W/\"abc\"");
    assertThat(HttpValidators.of(null, date)).contains("last-modified:" + date);
    assertThat(HttpValidators.of(null, null)).isEmpty();
    assertThat(HttpValidators.conditional("etag:\"abc\""))
        .contains(new HttpValidators.Conditional("If-None-Match", "\"abc\""));
    assertThat(HttpValidators.conditional("last-modified:" + date))
        .contains(new HttpValidators.Conditional("If-Modified-Since", date));
  }

  @Test
  void validators_unusable_areIgnored() {
    assertThat(HttpValidators.of("\"a\r\nX: y\"", null)).isEmpty();
    assertThat(HttpValidators.of("x".repeat(600), null)).isEmpty();
    assertThat(HttpValidators.conditional("version:2026-01-01")).as("a SQL source's").isEmpty();
    assertThat(HttpValidators.conditional("etag:")).isEmpty();
    assertThat(HttpValidators.conditional("etag:\"a\"\nX: y")).isEmpty();
    assertThat(HttpValidators.conditional(null)).isEmpty();
  }

  // The value

  private static String value(String pointer, String body) throws SourceException {
    return new ResponseValue(JSON, pointer).of(body.getBytes(StandardCharsets.UTF_8), null, "source 's'");
  }

  @Test
  void pointer_textNode_isItsText_otherNodes_compactJson_numbersAsSent() throws Exception {
    String body = "{\"data\": {\"name\": \"Zoë \\\"Z\\\"\", \"price\": 1.10, \"big\": 12345678901234567890.123,"
        + " \"items\": [ {\"id\": 1}, {\"id\": 2} ], \"a/b\": 5, \"m~n\": 6}}";

    assertThat(value("/data/name", body)).isEqualTo("Zoë \"Z\"");
    assertThat(value("/data/price", body)).isEqualTo("1.10");
    assertThat(value("/data/big", body)).isEqualTo("12345678901234567890.123");
    assertThat(value("/data/items", body)).isEqualTo("[{\"id\":1},{\"id\":2}]");
    assertThat(value("/data/items/1/id", body)).isEqualTo("2");
    assertThat(value("/data/a~1b", body)).isEqualTo("5");
    assertThat(value("/data/m~0n", body)).isEqualTo("6");
  }

  @Test
  void pointer_matchingNothingOrNull_isNoValue() {
    SourceException missing = catchThrowableOfType(SourceException.class, () -> value("/data/gone", "{\"data\": {}}"));
    SourceException isNull = catchThrowableOfType(SourceException.class, () -> value("/data", "{\"data\": null}"));

    assertThat(missing.kind()).isEqualTo(SourceException.Kind.NO_VALUE);
    assertThat(missing.getMessage()).isEqualTo("source 's': JSON Pointer /data/gone matches nothing in the response");
    assertThat(isNull.kind()).isEqualTo(SourceException.Kind.NO_VALUE);
  }

  @ParameterizedTest(name = "[{0}]")
  @CsvSource(delimiter = '|', value = {"<html>oops</html>", "{\"a\": 1} trailing", "''", "{\"a\": ", "{\"a\": 1, \"a\": 2}"})
  void pointer_bodyNotOneJsonDocument_isError(String body) {
    SourceException e = catchThrowableOfType(SourceException.class, () -> value("/a", body));

    assertThat(e.kind()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage()).startsWith("source 's' answered");
  }

  @Test
  void noPointer_bodyAsIs_inItsDeclaredCharset() throws Exception {
    byte[] latin1 = "café".getBytes(StandardCharsets.ISO_8859_1);

    assertThat(value(null, "  {\"a\": 1}\n")).isEqualTo("  {\"a\": 1}\n");
    assertThat(new ResponseValue(JSON, null).of(latin1, "ISO-8859-1", "s")).isEqualTo("café");
  }

  @Test
  void noPointer_bytesNotValidInTheCharset_orAnUnknownCharset_isError() {
    byte[] latin1 = "café".getBytes(StandardCharsets.ISO_8859_1);
    SourceException invalid = catchThrowableOfType(SourceException.class, () -> new ResponseValue(JSON, null).of(latin1, null, "s"));
    SourceException unknown =
        catchThrowableOfType(SourceException.class, () -> new ResponseValue(JSON, null).of(latin1, "x-klingon", "s"));

    assertThat(invalid.kind()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(invalid.getMessage()).isEqualTo("s answered a body that is not valid UTF-8 text");
    assertThat(unknown.getMessage()).contains("charset 'x-klingon'");
  }

  @Test
  void snippet_oneLine_capped() {
    assertThat(HttpExchange.snippet("  {\"error\":\n\t\"down\"}  ".getBytes(StandardCharsets.UTF_8), true)).isEqualTo("{\"error\": \"down\"}");
    assertThat(HttpExchange.snippet("x".repeat(500).getBytes(StandardCharsets.UTF_8), true)).hasSize(203).endsWith("...");
    assertThat(HttpExchange.snippet("short".getBytes(StandardCharsets.UTF_8), false)).isEqualTo("short...");
  }
}

package io.refresher.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The bound on parameter values: {@link RegistrationLimits#maxParamLength} characters as given. */
class ParamLengthRuleTest {

  private static final Duration TTL = Duration.ofMinutes(5);

  private static final SourceDefinition SEARCH =
      new SourceDefinition(
          "search",
          "default",
          "SELECT * FROM product WHERE name LIKE :q AND price >= :minPrice",
          ordered("q", ParamType.STRING, "minPrice", ParamType.DOUBLE),
          ResultShape.ROWS,
          Duration.ofSeconds(2));

  private final RegistrationValidator validator =
      new RegistrationValidator(new SourceCatalog(List.of(SEARCH)), RegistrationLimits.withMaxParamLength(10));

  @Test
  void validate_valueOfExactlyTheLimit_accepted() {
    assertThat(validator.validate("k", "search", Map.of("q", "0123456789", "minPrice", 1), TTL))
        .containsEntry("q", "0123456789");
  }

  @Test
  void validate_valueOverTheLimit_namesTheParameterTheLimitAndTheLengthNotTheValue() {
    InvalidRegistrationException e = invalid(Map.of("q", "0123456789x", "minPrice", 1));

    assertThat(e.errors()).containsExactly(new FieldError("params.q", "must be at most 10 characters long (it has 11)"));
  }

  @Test
  void validate_limitCountsCharactersNotUtf16Units() {
    String tenEmoji = "\uD83D\uDE00".repeat(10); // 10 code points, 20 chars, 40 UTF-8 bytes

    assertThat(validator.validate("k", "search", Map.of("q", tenEmoji, "minPrice", 1), TTL)).containsEntry("q", tenEmoji);
    assertThat(invalid(Map.of("q", tenEmoji + "x", "minPrice", 1)).errors())
        .containsExactly(new FieldError("params.q", "must be at most 10 characters long (it has 11)"));
  }

  @Test
  void validate_numberWrittenAsLongString_refusedBeforeItBecomesInfinity() {
    InvalidRegistrationException e = invalid(Map.of("q", "a", "minPrice", "1".repeat(400)));

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("params.minPrice");
  }

  @Test
  void validate_tooLongAndWrongType_oneErrorForTheParameter() {
    InvalidRegistrationException e = invalid(Map.of("q", "a", "minPrice", "x".repeat(400)));

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("params.minPrice");
  }

  @Test
  void checkSource_templateParams_boundedToo() {
    List<FieldError> errors = new java.util.ArrayList<>();

    validator.checkSource("search", Map.of("minPrice", "9".repeat(11)), Set.of("q"), errors);

    assertThat(errors).extracting(FieldError::field).containsExactly("params.minPrice");
  }

  private InvalidRegistrationException invalid(Map<String, Object> params) {
    return catchThrowableOfType(
        InvalidRegistrationException.class, () -> validator.validate("k", "search", params, TTL));
  }

  private static Map<String, ParamType> ordered(String n1, ParamType t1, String n2, ParamType t2) {
    Map<String, ParamType> params = new LinkedHashMap<>();
    params.put(n1, t1);
    params.put(n2, t2);
    return params;
  }
}

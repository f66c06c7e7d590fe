package io.refresher.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegistrationValidatorTest {

  private static final Duration TTL = Duration.ofMinutes(5);

  private static final SourceDefinition PRODUCT_BY_ID =
      new SourceDefinition(
          "product-by-id",
          "default",
          "SELECT id, name FROM product WHERE id = :id",
          Map.of("id", ParamType.LONG),
          ResultShape.ROW,
          Duration.ofSeconds(2));

  private static final SourceDefinition SEARCH =
      new SourceDefinition(
          "search",
          "catalog",
          "SELECT * FROM product WHERE name LIKE :q AND price >= :minPrice AND active = :active LIMIT :limit",
          ordered("q", ParamType.STRING, "minPrice", ParamType.DOUBLE, "active", ParamType.BOOLEAN, "limit", ParamType.LONG),
          ResultShape.ROWS,
          Duration.ofSeconds(2));

  private final RegistrationValidator validator =
      new RegistrationValidator(new SourceCatalog(List.of(PRODUCT_BY_ID, SEARCH)), RegistrationLimits.DEFAULT);

  @Test
  void validate_unknownSource_namesFieldSourceAndListsConfiguredSources() {
    InvalidRegistrationException e = invalid("product:42", "no-such-source", Map.of("id", 42), TTL);

    assertThat(e.errors())
        .containsExactly(
            new FieldError("source", "must name a configured source (one of [product-by-id, search])"));
  }

  @Test
  void validate_missingSource_namesFieldSource() {
    assertThat(invalid("product:42", null, Map.of(), TTL).errors())
        .containsExactly(new FieldError("source", "is required"));
    assertThat(invalid("product:42", "  ", Map.of(), TTL).errors())
        .containsExactly(new FieldError("source", "is required"));
  }

  @Test
  void validate_missingParam_namesParamsDotName() {
    InvalidRegistrationException e = invalid("product:42", "product-by-id", Map.of(), TTL);

    assertThat(e.errors())
        .containsExactly(
            new FieldError("params.id", "is required by source 'product-by-id' (a whole number)"));
  }

  @Test
  void validate_nullParams_treatedAsNoParams() {
    InvalidRegistrationException e = invalid("product:42", "product-by-id", null, TTL);

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("params.id");
  }

  @Test
  void validate_extraParam_namesTheExtraParam() {
    InvalidRegistrationException e =
        invalid("product:42", "product-by-id", Map.of("id", 42, "color", "red"), TTL);

    assertThat(e.errors())
        .containsExactly(
            new FieldError("params.color", "is not a parameter of source 'product-by-id' (it takes [id])"));
  }

  @Test
  void validate_wrongType_namesParamAndRule() {
    InvalidRegistrationException e = invalid("product:42", "product-by-id", Map.of("id", "forty-two"), TTL);

    assertThat(e.errors()).containsExactly(new FieldError("params.id", "must be a whole number"));
  }

  @Test
  void validate_fractionForLong_isRefused() {
    InvalidRegistrationException e = invalid("product:42", "product-by-id", Map.of("id", 7.5), TTL);

    assertThat(e.errors()).containsExactly(new FieldError("params.id", "must be a whole number"));
  }

  @Test
  void validate_nullParamValue_isRefused() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("id", null);

    InvalidRegistrationException e = invalid("product:42", "product-by-id", params, TTL);

    assertThat(e.errors()).containsExactly(new FieldError("params.id", "must be a whole number, not null"));
  }

  @Test
  void validate_objectOrArrayParamValue_isRefused() {
    assertThat(invalid("product:42", "product-by-id", Map.of("id", Map.of("n", 1)), TTL).errors())
        .containsExactly(new FieldError("params.id", "must be a whole number"));
    assertThat(invalid("product:42", "product-by-id", Map.of("id", List.of(1)), TTL).errors())
        .containsExactly(new FieldError("params.id", "must be a whole number"));
  }

  @Test
  void validate_stringParamWithNulOrLoneSurrogate_refusedNamingIt() {
    // PostgreSQL cannot hold U+0000 (the registration failed in the database, answered 503), and a
    // lone surrogate was stored as '?'.
    Map<String, Object> params = Map.of("q", "a\u0000b", "minPrice", 1.0, "active", true, "limit", 10);
    Map<String, Object> surrogate = Map.of("q", "a\ud800b", "minPrice", 1.0, "active", true, "limit", 10);

    assertThat(invalid("search:x", "search", params, TTL).errors())
        .containsExactly(new FieldError("params.q", TextRules.RULE));
    assertThat(invalid("search:x", "search", surrogate, TTL).errors())
        .containsExactly(new FieldError("params.q", TextRules.RULE));
  }

  @Test
  void validate_numberGivenAsTextWithNul_refusedRatherThanTrimmed() {
    // Long.parseLong(text.trim()) would read "42\u0000" as 42.
    assertThat(invalid("product:42", "product-by-id", Map.of("id", "42\u0000"), TTL).errors())
        .containsExactly(new FieldError("params.id", TextRules.RULE));
  }

  @Test
  void validate_ttlBelowOneSecond_isRefused() {
    InvalidRegistrationException e =
        invalid("product:42", "product-by-id", Map.of("id", 42), Duration.ofMillis(999));

    assertThat(e.errors()).containsExactly(new FieldError("ttl", "must be between PT1S and PT720H"));
  }

  @Test
  void validate_ttlAboveThirtyDays_isRefused() {
    InvalidRegistrationException e =
        invalid("product:42", "product-by-id", Map.of("id", 42), Duration.ofDays(30).plusMillis(1));

    assertThat(e.errors()).containsExactly(new FieldError("ttl", "must be between PT1S and PT720H"));
  }

  @Test
  void validate_ttlAtBounds_isAccepted() {
    assertThat(validator.validate("product:42", "product-by-id", Map.of("id", 42L), Duration.ofSeconds(1)))
        .containsOnlyKeys("id");
    assertThat(validator.validate("product:42", "product-by-id", Map.of("id", 42L), Duration.ofDays(30)))
        .containsOnlyKeys("id");
  }

  @Test
  void validate_nullTtl_isRequired() {
    InvalidRegistrationException e = invalid("product:42", "product-by-id", Map.of("id", 42), null);

    assertThat(e.errors())
        .containsExactly(new FieldError("ttl", "is required (ISO-8601 duration such as PT5M)"));
  }

  @Test
  void validate_negativeTtl_isRefused() {
    InvalidRegistrationException e =
        invalid("product:42", "product-by-id", Map.of("id", 42), Duration.ofSeconds(-5));

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("ttl");
  }

  @Test
  void validate_badKey_namesFieldKey() {
    InvalidRegistrationException e = invalid("refresher:meta:x", "product-by-id", Map.of("id", 42), TTL);

    assertThat(e.errors())
        .containsExactly(
            new FieldError("key", "must not start with 'refresher:' (reserved for the service)"));
  }

  @Test
  void validate_severalBrokenRules_collectsAllOfThem() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("q", "phone");
    params.put("minPrice", "cheap");
    params.put("active", "yes");
    params.put("zeta", 1);
    params.put("alpha", 2);

    InvalidRegistrationException e = invalid("", "search", params, Duration.ZERO);

    assertThat(e.errors())
        .extracting(FieldError::field)
        .containsExactly("key", "ttl", "params.minPrice", "params.active", "params.limit", "params.alpha", "params.zeta");
    assertThat(e.getMessage())
        .contains("key must not be empty")
        .contains("ttl must be between PT1S and PT720H")
        .contains("params.minPrice must be a finite number")
        .contains("params.active must be true or false")
        .contains("params.limit is required by source 'search' (a whole number)")
        .contains("params.alpha is not a parameter of source 'search'")
        .contains("params.zeta is not a parameter of source 'search'");
  }

  @Test
  void validate_validRequest_returnsParamsConvertedToDeclaredTypes() {
    // JSON numbers and strings as Jackson reads them; the validator's contract is to return them
    // converted to the declared types (long, double, boolean, string).
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("q", 42);
    params.put("minPrice", "9.5");
    params.put("active", "true");
    params.put("limit", new BigDecimal("20.0"));

    Map<String, Object> converted = validator.validate("search:phones", "search", params, TTL);

    assertThat(converted)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("q", "42", "minPrice", 9.5d, "active", Boolean.TRUE, "limit", 20L));
  }

  @Test
  void validate_longGivenAsString_returnsLong() {
    Map<String, Object> converted = validator.validate("product:42", "product-by-id", Map.of("id", "42"), TTL);

    assertThat(converted).containsExactly(Map.entry("id", 42L));
  }

  @Test
  void validate_validRequestWithNativeTypes_returnsSameValues() {
    Map<String, Object> converted = validator.validate("product:42", "product-by-id", Map.of("id", 42L), TTL);

    assertThat(converted).containsExactly(Map.entry("id", 42L));
  }

  @Test
  void validate_anyError_throwsInvalidRegistrationException() {
    assertThatThrownBy(() -> validator.validate("product:42", "product-by-id", Map.of(), TTL))
        .isInstanceOf(InvalidRegistrationException.class)
        .hasMessage("params.id is required by source 'product-by-id' (a whole number)");
  }

  private InvalidRegistrationException invalid(
      String key, String source, Map<String, Object> params, Duration ttl) {
    InvalidRegistrationException e =
        catchThrowableOfType(
            InvalidRegistrationException.class, () -> validator.validate(key, source, params, ttl));
    assertThat(e).as("validation should have failed").isNotNull();
    return e;
  }

  private static Map<String, ParamType> ordered(Object... namesAndTypes) {
    Map<String, ParamType> map = new LinkedHashMap<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      map.put((String) namesAndTypes[i], (ParamType) namesAndTypes[i + 1]);
    }
    return map;
  }
}

package io.refresher.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ParamTypeTest {

  static Stream<Arguments> longAccepted() {
    return Stream.of(
        Arguments.of(7, 7L),
        Arguments.of(7L, 7L),
        Arguments.of((short) 7, 7L),
        Arguments.of("7", 7L),
        Arguments.of(" 7 ", 7L),
        Arguments.of("-12", -12L),
        Arguments.of(new BigDecimal("7.0"), 7L),
        Arguments.of(new BigDecimal("7"), 7L),
        Arguments.of(7.0d, 7L),
        Arguments.of(new BigInteger("9223372036854775807"), Long.MAX_VALUE),
        Arguments.of(String.valueOf(Long.MIN_VALUE), Long.MIN_VALUE));
  }

  @ParameterizedTest
  @MethodSource("longAccepted")
  void convert_longFromWholeValue_returnsLong(Object given, long expected) {
    assertThat(ParamType.LONG.convert(given)).isInstanceOf(Long.class).isEqualTo(expected);
  }

  // Long.parseLong takes any Unicode digit: "٤٢" (Arabic-Indic) and "４２" (full width) were 42.
  static Stream<Object> longRefused() {
    return Stream.of(
        "٤٢",
        "４２",
        "+٤",
        7.5d,
        new BigDecimal("7.5"),
        "x",
        "",
        "7.0",
        true,
        new BigInteger("9223372036854775808"),
        1e19d,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        List.of(7),
        Map.of("n", 7));
  }

  @ParameterizedTest
  @MethodSource("longRefused")
  void convert_longFromNonWholeValue_throwsNamingRule(Object given) {
    assertThatThrownBy(() -> ParamType.LONG.convert(given))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be a whole number");
  }

  static Stream<Arguments> doubleAccepted() {
    return Stream.of(
        Arguments.of(7, 7.0d),
        Arguments.of(7L, 7.0d),
        Arguments.of(2.5d, 2.5d),
        Arguments.of(new BigDecimal("2.5"), 2.5d),
        Arguments.of("2.5", 2.5d),
        Arguments.of(" -0.25 ", -0.25d),
        Arguments.of("1e3", 1000.0d));
  }

  @ParameterizedTest
  @MethodSource("doubleAccepted")
  void convert_doubleFromNumberOrNumericText_returnsDouble(Object given, double expected) {
    assertThat(ParamType.DOUBLE.convert(given)).isInstanceOf(Double.class).isEqualTo(expected);
  }

  // Not numbers a query can use: NaN and the infinities, given as text or as a JSON number too large
  // for a double (1e400, which Jackson reads as infinity); they were stored as "NaN" or "Infinity".
  // Nor Java's own literals, which Double.parseDouble reads: "1d" was stored as 1.0, "0x1p3" as 8.0.
  static Stream<Object> doubleRefused() {
    return Stream.of(
        "x", "", true, List.of(1.0), Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Float.NaN, "NaN",
        "Infinity", "-Infinity", " NaN ", "1e400", "1" + "0".repeat(400), new BigDecimal("1e400"), "1d", "2.5f", " 1D ",
        "0x1p3", "1e3d");
  }

  @ParameterizedTest
  @MethodSource("doubleRefused")
  void convert_doubleFromNonNumber_throwsNamingRule(Object given) {
    assertThatThrownBy(() -> ParamType.DOUBLE.convert(given))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be a finite number");
  }

  static Stream<Arguments> booleanAccepted() {
    return Stream.of(
        Arguments.of(true, true),
        Arguments.of(false, false),
        Arguments.of("true", true),
        Arguments.of("false", false));
  }

  @ParameterizedTest
  @MethodSource("booleanAccepted")
  void convert_booleanFromBooleanOrItsText_returnsBoolean(Object given, boolean expected) {
    assertThat(ParamType.BOOLEAN.convert(given)).isInstanceOf(Boolean.class).isEqualTo(expected);
  }

  static Stream<Object> booleanRefused() {
    return Stream.of("yes", "1", 1, 0L, "", List.of(true));
  }

  @ParameterizedTest
  @MethodSource("booleanRefused")
  void convert_booleanFromOtherValue_throwsNamingRule(Object given) {
    assertThatThrownBy(() -> ParamType.BOOLEAN.convert(given))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be true or false");
  }

  static Stream<Arguments> stringAccepted() {
    return Stream.of(
        Arguments.of("abc", "abc"),
        Arguments.of("", ""),
        Arguments.of(" padded ", " padded "),
        Arguments.of(42, "42"),
        Arguments.of(42L, "42"),
        Arguments.of(2.5d, "2.5"),
        Arguments.of(new BigDecimal("1.10"), "1.10"),
        Arguments.of(true, "true"));
  }

  @ParameterizedTest
  @MethodSource("stringAccepted")
  void convert_stringFromScalar_returnsText(Object given, String expected) {
    assertThat(ParamType.STRING.convert(given)).isEqualTo(expected);
  }

  @Test
  void convert_stringFromNumberTooLargeForADouble_throwsNamingRule() {
    // 1e400 arrives as infinity: its text would be "Infinity", not what was sent
    assertThatThrownBy(() -> ParamType.STRING.convert(Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be a string");
    assertThatThrownBy(() -> ParamType.STRING.convert(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be a string");
  }

  @Test
  void convert_stringFromArrayOrObject_throwsNamingRule() {
    assertThatThrownBy(() -> ParamType.STRING.convert(List.of("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be a string");
    assertThatThrownBy(() -> ParamType.STRING.convert(Map.of("a", "b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be a string");
  }

  @Test
  void convert_nullForEveryType_throwsNotNull() {
    for (ParamType type : ParamType.values()) {
      assertThatThrownBy(() -> type.convert(null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("must be " + type.description() + ", not null");
    }
  }

  @Test
  void jsonName_eachType_isLowerCaseName() {
    assertThat(ParamType.STRING.jsonName()).isEqualTo("string");
    assertThat(ParamType.LONG.jsonName()).isEqualTo("long");
    assertThat(ParamType.DOUBLE.jsonName()).isEqualTo("double");
    assertThat(ParamType.BOOLEAN.jsonName()).isEqualTo("boolean");
  }

  @Test
  void fromJson_anyCaseWithSpaces_returnsType() {
    assertThat(ParamType.fromJson("long")).isEqualTo(ParamType.LONG);
    assertThat(ParamType.fromJson(" Boolean ")).isEqualTo(ParamType.BOOLEAN);
    for (ParamType type : ParamType.values()) {
      assertThat(ParamType.fromJson(type.jsonName())).isEqualTo(type);
    }
  }

  @Test
  void fromJson_unknownName_throws() {
    assertThatThrownBy(() -> ParamType.fromJson("integer")).isInstanceOf(IllegalArgumentException.class);
  }
}

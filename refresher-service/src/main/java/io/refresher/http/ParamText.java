package io.refresher.http;

/**
 * A parameter's value as text, before any encoding: strings as they are, whole numbers in digits,
 * other numbers as Java (and JSON) write a double ({@code 2.5}, {@code 3.0}, {@code 1.0E-7}),
 * booleans as {@code true} and {@code false}.
 */
final class ParamText {

  private ParamText() {}

  static String of(String name, Object value) throws TemplateValueException {
    if (value == null) {
      // the loader converts every declared parameter first: only a template naming an undeclared one
      throw new TemplateValueException("parameter '" + name + "' has no value");
    }
    if (value instanceof java.util.List<?>) {
      // only a batch request takes the keys' values: as a whole JSON value of its body, or as a
      // whole query value (repeated), both checked at start
      throw new TemplateValueException(
          "parameter '" + name + "' holds a batch's values: it can stand only as a whole value of the JSON body or of a query parameter");
    }
    return value.toString();
  }
}

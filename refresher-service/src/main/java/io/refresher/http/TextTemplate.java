package io.refresher.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A piece of an HTTP source's request as configured, with {@code {param}} placeholders: a path
 * segment, a query value, a header value, a string of the body. Parsed once, at start (and by the
 * configuration's validation, so that both read the same syntax); rendering only joins parts.
 *
 * <p>Syntax: {@code {name}} is a placeholder ({@value #NAME_RULE}); {@code {{} and {@code }}} are
 * a literal brace. Any other brace is an error: a typo such as {@code {id} }} or {@code {product
 * id}} is refused at start rather than sent as text.
 */
public final class TextTemplate {

  /** What a placeholder's name may be, as said in messages. */
  public static final String NAME_RULE = "a letter or _, then letters, digits, _, . or -";

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]*");

  /** Literal text, or the value of a parameter. */
  sealed interface Part {}

  record Literal(String text) implements Part {}

  record Placeholder(String name) implements Part {}

  private final String source;
  private final List<Part> parts;
  private final Set<String> placeholders;

  private TextTemplate(String source, List<Part> parts) {
    this.source = source;
    this.parts = List.copyOf(parts);
    Set<String> names = new LinkedHashSet<>();
    for (Part part : parts) {
      if (part instanceof Placeholder placeholder) {
        names.add(placeholder.name());
      }
    }
    this.placeholders = Collections.unmodifiableSet(names);
  }

  /**
   * @throws IllegalArgumentException saying where the syntax is broken, e.g. "has '{' at
   *     position 9 that does not open a {param} placeholder (write {{ for a literal brace)"
   */
  public static TextTemplate parse(String text) {
    List<Part> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '{' && i + 1 < text.length() && text.charAt(i + 1) == '{') {
        literal.append('{');
        i += 2;
      } else if (c == '}' && i + 1 < text.length() && text.charAt(i + 1) == '}') {
        literal.append('}');
        i += 2;
      } else if (c == '{') {
        int close = text.indexOf('}', i + 1);
        String name = close < 0 ? null : text.substring(i + 1, close);
        if (name == null || !NAME.matcher(name).matches()) {
          throw new IllegalArgumentException(
              "has '{' at position " + i + " that does not open a {param} placeholder (a name is " + NAME_RULE
                  + "; write {{ for a literal brace)");
        }
        if (literal.length() > 0) {
          parts.add(new Literal(literal.toString()));
          literal.setLength(0);
        }
        parts.add(new Placeholder(name));
        i = close + 1;
      } else if (c == '}') {
        throw new IllegalArgumentException(
            "has '}' at position " + i + " outside a placeholder (write }} for a literal brace)");
      } else {
        literal.append(c);
        i++;
      }
    }
    if (literal.length() > 0) {
      parts.add(new Literal(literal.toString()));
    }
    return new TextTemplate(text, parts);
  }

  /** The parameter names used, in order of first use. */
  public Set<String> placeholders() {
    return placeholders;
  }

  /** The name when the whole text is one placeholder ({@code "{id}"}): a JSON body takes the typed value then. */
  public Optional<String> wholePlaceholder() {
    return parts.size() == 1 && parts.get(0) instanceof Placeholder placeholder
        ? Optional.of(placeholder.name())
        : Optional.empty();
  }

  /** The literal text between the placeholders, braces unescaped: what validation checks as configured text. */
  public List<String> literals() {
    List<String> literals = new ArrayList<>();
    for (Part part : parts) {
      if (part instanceof Literal text) {
        literals.add(text.text());
      }
    }
    return literals;
  }

  List<Part> parts() {
    return parts;
  }

  /**
   * Joins the parts: literal text through {@code literal}, each placeholder's value through {@code
   * value} (which encodes it for where it stands, or refuses it).
   */
  String render(UnaryOperator<String> literal, PlaceholderRenderer value) throws TemplateValueException {
    StringBuilder out = new StringBuilder();
    for (Part part : parts) {
      if (part instanceof Literal text) {
        out.append(literal.apply(text.text()));
      } else {
        out.append(value.render(((Placeholder) part).name()));
      }
    }
    return out.toString();
  }

  /** Renders one placeholder, or refuses its value. */
  @FunctionalInterface
  interface PlaceholderRenderer {
    String render(String name) throws TemplateValueException;
  }

  /** The template as configured. */
  @Override
  public String toString() {
    return source;
  }
}

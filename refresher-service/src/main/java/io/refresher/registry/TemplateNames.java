package io.refresher.registry;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a template name looks like: short, lower case, safe in a URL path segment, a log line and
 * an audit row ({@code template:<name>}) without escaping.
 */
public final class TemplateNames {

  public static final int MAX_LENGTH = 64;

  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

  private TemplateNames() {}

  /** The broken rule, if any, phrased for an error message. */
  public static Optional<String> violation(String name) {
    if (name == null || name.isEmpty()) {
      return Optional.of("is required: PUT /v1/templates/{name}");
    }
    if (name.length() > MAX_LENGTH || !NAME.matcher(name).matches()) {
      return Optional.of(
          "must be 1 to " + MAX_LENGTH + " characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit");
    }
    return Optional.empty();
  }
}

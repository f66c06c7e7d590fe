package io.refresher.access;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A template pattern that would cover an uncovered key, and the uncovered keys grouped by it: the
 * parts of a key that look like identifiers (digits, or a hexadecimal id such as a UUID) become
 * placeholders, {@code id} for the first, {@code id2}, {@code id3}... after it. {@code
 * product:42} suggests {@code product:{id}}; {@code user:7:cart} suggests {@code user:{id}:cart};
 * {@code session:1f0e9c2a-4b7d-4e11-9a3c-5d2e8b7f6a10} suggests {@code session:{id}}.
 */
public final class PatternSuggestions {

  /** An identifier: digits, or a UUID, or 8+ hexadecimal characters with a digit in them. */
  private static final Pattern IDENTIFIER =
      Pattern.compile(
          "(?<![A-Za-z0-9])(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]{8,}|[0-9]+)(?![A-Za-z0-9])");

  /**
   * Uncovered keys that one pattern would cover.
   *
   * @param rate the keys' reads per second together
   * @param examples the hottest few of them
   */
  public record Suggestion(String pattern, double rate, int keys, List<String> examples) {}

  private static final int EXAMPLES = 3;

  private PatternSuggestions() {}

  /** The pattern that would cover the key; the key itself when nothing in it looks like an id. */
  public static String suggest(String key) {
    Matcher matcher = IDENTIFIER.matcher(key);
    StringBuilder pattern = new StringBuilder();
    int placeholders = 0;
    int last = 0;
    while (matcher.find()) {
      pattern.append(key, last, matcher.start());
      placeholders++;
      pattern.append(placeholders == 1 ? "{id}" : "{id" + placeholders + "}");
      last = matcher.end();
    }
    return pattern.append(key.substring(last)).toString();
  }

  /** The keys grouped by their suggested pattern, the most read pattern first. */
  public static List<Suggestion> group(List<UncoveredKey> keys) {
    Map<String, List<UncoveredKey>> byPattern = new LinkedHashMap<>();
    for (UncoveredKey key : keys) {
      byPattern.computeIfAbsent(suggest(key.key()), pattern -> new ArrayList<>()).add(key);
    }
    List<Suggestion> suggestions = new ArrayList<>();
    byPattern.forEach(
        (pattern, members) -> {
          members.sort(Comparator.comparingDouble(UncoveredKey::rate).reversed());
          suggestions.add(
              new Suggestion(
                  pattern,
                  members.stream().mapToDouble(UncoveredKey::rate).sum(),
                  members.size(),
                  members.stream().limit(EXAMPLES).map(UncoveredKey::key).toList()));
        });
    suggestions.sort(Comparator.comparingDouble(Suggestion::rate).reversed());
    return suggestions;
  }
}

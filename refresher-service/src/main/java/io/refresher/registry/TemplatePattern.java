package io.refresher.registry;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The shape of a family of keys, such as {@code product:{id}}: literal text with named
 * placeholders. <code>{{</code> and <code>}}</code> stand for a literal brace, so {@code
 * user:{{{id}}}:cart} matches {@code user:{42}:cart} (whose Redis hash tag is {@code {42}}).
 *
 * <p>A placeholder matches one or more characters other than <code>:</code>, <code>/</code>,
 * <code>{</code> and <code>}</code>: the separators keys are built with end a placeholder, so {@code product:{id}} matches
 * {@code product:7} but neither {@code product:7:reviews} nor {@code product:}. A pattern matches a
 * whole key, never a part of one. When a key can be split in several ways ({@code {name}.{ext}}
 * and {@code a.b.c}), each placeholder takes as much as it can, left to right ({@code a.b} and
 * {@code c}), as a greedy regular expression would.
 *
 * <p>Matching takes time linear in the key's length times the pattern's: keys come from
 * applications at high rates, and a backtracking regular expression is polynomial (a 500-character
 * key that almost matched {@code {a}.{b}.{c}.{d}.{e}:end} took over a minute). See {@link #match}.
 */
public final class TemplatePattern {

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final String text;
  private final List<String> placeholders;
  private final Set<String> placeholderSet;
  /** Literal text before each placeholder, then after the last one: one more than placeholders. */
  private final List<String> literals;
  private final String literalPrefix;
  private final String literalSuffix;
  private final int literalLength;

  private TemplatePattern(String text, List<String> placeholders, List<String> literals, int literalLength) {
    this.text = text;
    this.placeholders = placeholders;
    this.placeholderSet = Collections.unmodifiableSet(new LinkedHashSet<>(placeholders));
    this.literals = literals;
    this.literalPrefix = literals.get(0);
    this.literalSuffix = literals.get(literals.size() - 1);
    this.literalLength = literalLength;
  }

  /**
   * What reading a pattern found: the compiled pattern when it breaks no rule, and either way the
   * valid placeholder names it contains, so that a caller can check them against a source even
   * when another rule is broken.
   *
   * @param pattern null when {@code errors} is not empty
   * @param errors every broken rule, each for the field {@code pattern}
   */
  public record Parsed(TemplatePattern pattern, Set<String> placeholders, List<FieldError> errors) {
    public Parsed {
      placeholders = Collections.unmodifiableSet(new LinkedHashSet<>(placeholders));
      errors = List.copyOf(errors);
    }
  }

  /**
   * The pattern of {@code text}.
   *
   * @throws InvalidRegistrationException naming every broken rule (field {@code pattern})
   */
  public static TemplatePattern parse(String text) {
    Parsed parsed = check(text);
    if (!parsed.errors().isEmpty()) {
      throw new InvalidRegistrationException(parsed.errors());
    }
    return parsed.pattern();
  }

  /** Reads {@code text}, collecting every broken rule rather than stopping at the first. */
  public static Parsed check(String text) {
    if (text == null || text.isEmpty()) {
      return new Parsed(null, Set.of(), List.of(error("is required, such as 'product:{id}'")));
    }
    List<String> rules = new ArrayList<>(textRules(text));
    Tokens tokens = Tokens.read(text, rules);
    if (tokens.placeholders.isEmpty() && !tokens.sawPlaceholderSyntax) {
      rules.add("must contain at least one placeholder such as {id} (write '{{' and '}}' for literal braces)");
    }
    List<FieldError> errors = rules.stream().map(TemplatePattern::error).toList();
    if (!errors.isEmpty()) {
      return new Parsed(null, new LinkedHashSet<>(tokens.placeholders), errors);
    }
    return new Parsed(tokens.compile(text), new LinkedHashSet<>(tokens.placeholders), List.of());
  }

  /** The rules on the text as a whole, the same as on a key. */
  private static List<String> textRules(String text) {
    List<String> rules = new ArrayList<>();
    if (text.getBytes(StandardCharsets.UTF_8).length > KeyRules.MAX_KEY_BYTES) {
      rules.add("must be at most " + KeyRules.MAX_KEY_BYTES + " bytes in UTF-8");
    }
    if (text.chars().anyMatch(c -> Character.getType(c) == Character.CONTROL || c == '\u2028' || c == '\u2029')) {
      rules.add("must not contain control characters or line separators");
    }
    if (TextRules.hasLoneSurrogate(text)) {
      rules.add("must be valid UTF-8 text");
    }
    if (text.startsWith(KeyRules.RESERVED_PREFIX)) {
      rules.add("must not start with '" + KeyRules.RESERVED_PREFIX + "' (reserved for the service)");
    }
    return rules;
  }

  /**
   * The placeholder values of {@code key}, by name in pattern order, when the pattern matches the
   * whole key.
   *
   * <p>Right to left, for each placeholder {@code j} it marks the positions where its value may end:
   * the literal after it follows there, and the rest of the pattern matches after that literal.
   * Then, left to right, each placeholder takes the last such end within its run of value
   * characters. Work: one pass over the key per placeholder, with a literal comparison per position.
   */
  public Optional<Map<String, String>> match(String key) {
    int k = placeholders.size();
    if (key == null
        || !key.startsWith(literalPrefix)
        || !key.endsWith(literalSuffix)
        || key.length() < literalPrefix.length() + literalSuffix.length() + k) {
      return Optional.empty();
    }
    int n = key.length();
    // run[p]: how many value characters start at p.
    int[] run = new int[n + 1];
    for (int p = n - 1; p >= 0; p--) {
      run[p] = isValueChar(key.charAt(p)) ? run[p + 1] + 1 : 0;
    }
    // lastEnd[j][x]: the largest q <= x where placeholder j+1 may end, or -1.
    int[][] lastEnd = new int[k][];
    // startOk[p]: the rest of the pattern, from the current placeholder on, can match key[p..].
    boolean[] restMatches = new boolean[n + 1];
    for (int j = k - 1; j >= 0; j--) {
      String after = literals.get(j + 1);
      boolean[] nextRest = restMatches;
      int[] last = new int[n + 1];
      int best = -1;
      for (int q = 0; q <= n; q++) {
        boolean ok;
        if (j == k - 1) {
          ok = q + after.length() == n && key.startsWith(after, q);
        } else {
          ok = q + after.length() <= n && key.startsWith(after, q) && nextRest[q + after.length()];
        }
        if (ok) {
          best = q;
        }
        last[q] = best;
      }
      lastEnd[j] = last;
      boolean[] here = new boolean[n + 1];
      for (int p = 0; p < n; p++) {
        int farthest = p + run[p];
        here[p] = run[p] > 0 && last[farthest] > p;
      }
      restMatches = here;
    }
    int position = literalPrefix.length();
    if (!restMatches[position]) {
      return Optional.empty();
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (int j = 0; j < k; j++) {
      int end = lastEnd[j][position + run[position]];
      values.put(placeholders.get(j), key.substring(position, end));
      position = end + literals.get(j + 1).length();
    }
    return Optional.of(values);
  }

  /**
   * The key this pattern gives for placeholder values, the inverse of {@link #match}: empty when a
   * placeholder has no value, a value is empty or holds a separator (<code>:</code>, <code>/</code>,
   * <code>{</code>, <code>}</code>), or the key would split back into other values ({@code
   * {name}.{ext}} with {@code a} and {@code b.c} gives {@code a.b.c}, which is the key of {@code
   * a.b} and {@code c}): such a key is not the one those values compute. Values of names that are
   * not placeholders are ignored.
   */
  public Optional<String> render(Map<String, String> values) {
    StringBuilder key = new StringBuilder(literalPrefix);
    for (int j = 0; j < placeholders.size(); j++) {
      String value = values.get(placeholders.get(j));
      if (value == null || value.isEmpty() || !value.chars().allMatch(c -> isValueChar((char) c))) {
        return Optional.empty();
      }
      key.append(value).append(literals.get(j + 1));
    }
    String rendered = key.toString();
    Optional<Map<String, String>> back = match(rendered);
    if (back.isEmpty()) {
      return Optional.empty();
    }
    for (Map.Entry<String, String> value : back.get().entrySet()) {
      if (!value.getValue().equals(values.get(value.getKey()))) {
        return Optional.empty();
      }
    }
    return Optional.of(rendered);
  }

  private static boolean isValueChar(char c) {
    return c != ':' && c != '/' && c != '{' && c != '}';
  }

  /** The placeholder names, in the order they appear. */
  public Set<String> placeholders() {
    return placeholderSet;
  }

  /** How many literal characters (escaped braces counting one) the pattern has: its specificity. */
  public int literalLength() {
    return literalLength;
  }

  /** The literal text before the first placeholder, with escapes resolved: every key it matches starts with it. */
  public String literalPrefix() {
    return literalPrefix;
  }

  /** The pattern as written. */
  public String text() {
    return text;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TemplatePattern pattern && pattern.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }

  private static FieldError error(String rule) {
    return new FieldError("pattern", rule);
  }

  /** The pattern as literal runs and placeholders, read left to right. */
  private static final class Tokens {
    /** Literal text (escapes resolved) before each placeholder, then the text after the last one. */
    private final List<String> literals = new ArrayList<>();
    private final List<String> placeholders = new ArrayList<>();
    /** Whether anything looked like a placeholder, valid or not: "no placeholder" is then not the problem. */
    private boolean sawPlaceholderSyntax;

    static Tokens read(String text, List<String> rules) {
      Tokens tokens = new Tokens();
      Set<String> duplicates = new LinkedHashSet<>();
      StringBuilder literal = new StringBuilder();
      // the placeholder just read, while no literal text has followed it
      String adjacent = null;
      int i = 0;
      while (i < text.length()) {
        char c = text.charAt(i);
        boolean doubled = i + 1 < text.length() && text.charAt(i + 1) == c;
        if (c == '{' && !doubled) {
          int close = closingBrace(text, i + 1);
          if (close < 0) {
            rules.add("has an unmatched '{' at position " + i + " (write '{{' for a literal '{')");
            adjacent = null;
            i++;
            continue;
          }
          String name = text.substring(i + 1, close);
          tokens.sawPlaceholderSyntax = true;
          i = close + 1;
          if (!NAME.matcher(name).matches()) {
            rules.add(
                "has an invalid placeholder name {" + name + "}: names are letters, digits and '_', not starting with a digit");
            adjacent = null;
            continue;
          }
          if (adjacent != null) {
            rules.add(
                "has adjacent placeholders {" + adjacent + "}{" + name + "}: separate them with literal text, or the split is ambiguous");
          }
          if (tokens.placeholders.contains(name)) {
            duplicates.add(name);
          } else {
            tokens.literals.add(literal.toString());
            tokens.placeholders.add(name);
            literal.setLength(0);
          }
          adjacent = name;
          continue;
        }
        if (c == '}' && !doubled) {
          rules.add("has an unmatched '}' at position " + i + " (write '}}' for a literal '}')");
          i++;
        } else {
          // an escaped brace ("{{" or "}}") or any other character: literal text
          literal.append(c);
          i += (c == '{' || c == '}') ? 2 : 1;
        }
        adjacent = null;
      }
      tokens.literals.add(literal.toString());
      for (String name : duplicates) {
        rules.add("uses the placeholder {" + name + "} more than once; each name may appear once");
      }
      return tokens;
    }

    /** Index of the '}' closing a placeholder opened before {@code from}, or -1 when another '{' or the end comes first. */
    private static int closingBrace(String text, int from) {
      for (int j = from; j < text.length(); j++) {
        char c = text.charAt(j);
        if (c == '}') {
          return j;
        }
        if (c == '{') {
          return -1;
        }
      }
      return -1;
    }

    TemplatePattern compile(String text) {
      int literalLength = 0;
      for (String literal : literals) {
        literalLength += literal.codePointCount(0, literal.length());
      }
      return new TemplatePattern(text, List.copyOf(placeholders), List.copyOf(literals), literalLength);
    }
  }
}

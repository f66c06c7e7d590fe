package io.refresher.testing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression selects, found by a small tokenizer rather than a full
 * parser: an identifier is a metric name unless it calls a function or aggregation (followed by
 * {@code (} or by {@code by}/{@code without}), is a keyword, or sits in a label list ({@code by
 * (...)}, {@code on (...)}, ...), a selector's braces, a range's brackets or a string. A selector
 * {@code {__name__=~"..."}} yields its regex. Each name says whether it is read under {@code
 * rate()}, {@code irate()}, {@code increase()} or {@code resets()}, which need a counter.
 */
public final class PromQlNames {

  /** One metric selected: its name (or name regex) and whether a counter function reads it. */
  public record Use(String name, boolean regex, boolean underCounterFunction) {}

  private static final Set<String> COUNTER_FUNCTIONS = Set.of("rate", "irate", "increase", "resets");
  private static final Set<String> LABEL_LIST_KEYWORDS =
      Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
  private static final Set<String> KEYWORDS = Set.of("bool", "and", "or", "unless", "offset", "inf", "nan", "atan2");
  private static final Pattern NAME_MATCHER = Pattern.compile("__name__\\s*(=~|=)\\s*\"([^\"]*)\"");
  private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*[A-Za-z_][A-Za-z0-9_]*\\s*\\)\\s*$", Pattern.DOTALL);

  private PromQlNames() {}

  /** The metrics of a Grafana variable query: {@code label_values(<selector>, <label>)}. */
  public static List<Use> ofGrafanaVariable(String query) {
    Matcher matcher = LABEL_VALUES.matcher(query);
    return matcher.matches() ? of(matcher.group(1)) : of(query);
  }

  public static List<Use> of(String expr) {
    List<Use> uses = new ArrayList<>();
    // The function (or "" for a plain parenthesis) each open parenthesis belongs to.
    Deque<String> open = new ArrayDeque<>();
    String pendingFunction = null;
    boolean lastWasMetric = false;
    int i = 0;
    int n = expr.length();
    while (i < n) {
      char c = expr.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipString(expr, i);
        lastWasMetric = false;
      } else if (c == '{') {
        int end = skipTo(expr, i, '}');
        Matcher name = NAME_MATCHER.matcher(expr.substring(i, end));
        if (!lastWasMetric && name.find()) {
          uses.add(new Use(name.group(2), name.group(1).equals("=~"), underCounterFunction(open)));
        }
        i = end;
        lastWasMetric = false;
      } else if (c == '[') {
        i = skipTo(expr, i, ']');
      } else if (c == '(') {
        open.push(pendingFunction == null ? "" : pendingFunction);
        pendingFunction = null;
        lastWasMetric = false;
        i++;
      } else if (c == ')') {
        if (!open.isEmpty()) {
          open.pop();
        }
        lastWasMetric = false;
        i++;
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1)))) {
        while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '.' || expr.charAt(i) == '_')) {
          i++;
        }
        lastWasMetric = false;
      } else if (Character.isLetter(c) || c == '_' || c == ':') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '_' || expr.charAt(i) == ':')) {
          i++;
        }
        String word = expr.substring(start, i);
        String next = nextToken(expr, i);
        lastWasMetric = false;
        if (LABEL_LIST_KEYWORDS.contains(word.toLowerCase())) {
          int paren = expr.indexOf('(', i);
          i = skipTo(expr, paren, ')');
        } else if (KEYWORDS.contains(word.toLowerCase())) {
          if (word.equalsIgnoreCase("offset")) {
            i = skipDuration(expr, i);
          }
        } else if (next.equals("(") || next.equals("by") || next.equals("without")) {
          pendingFunction = word;
        } else {
          uses.add(new Use(word, false, underCounterFunction(open)));
          lastWasMetric = true;
        }
      } else {
        lastWasMetric = false;
        i++;
      }
    }
    return uses;
  }

  private static boolean underCounterFunction(Deque<String> open) {
    return open.stream().anyMatch(COUNTER_FUNCTIONS::contains);
  }

  private static String nextToken(String expr, int from) {
    int i = from;
    while (i < expr.length() && Character.isWhitespace(expr.charAt(i))) {
      i++;
    }
    if (i >= expr.length()) {
      return "";
    }
    if (expr.charAt(i) == '(') {
      return "(";
    }
    int start = i;
    while (i < expr.length() && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '_')) {
      i++;
    }
    return expr.substring(start, i).toLowerCase();
  }

  private static int skipString(String expr, int start) {
    char quote = expr.charAt(start);
    int i = start + 1;
    while (i < expr.length() && expr.charAt(i) != quote) {
      i += expr.charAt(i) == '\\' && quote != '`' ? 2 : 1;
    }
    return Math.min(i + 1, expr.length());
  }

  /** The index after the {@code close} that ends the group opened at {@code start}, strings skipped. */
  private static int skipTo(String expr, int start, char close) {
    int i = start + 1;
    while (i < expr.length() && expr.charAt(i) != close) {
      char c = expr.charAt(i);
      i = c == '"' || c == '\'' || c == '`' ? skipString(expr, i) : i + 1;
    }
    return Math.min(i + 1, expr.length());
  }

  private static int skipDuration(String expr, int from) {
    int i = from;
    while (i < expr.length() && Character.isWhitespace(expr.charAt(i))) {
      i++;
    }
    while (i < expr.length() && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '-')) {
      i++;
    }
    return i;
  }
}

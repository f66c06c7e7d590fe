package io.refresher.client.driver;

import java.util.Locale;
import java.util.Set;

/**
 * Redis's error replies that it gives instead of running a command, by their first word: a call
 * answered with one of them surely did not run, whatever library carried it. ({@code ERR} and a
 * script's own errors are not among them: a script may have written before failing.)
 */
public final class ErrorReplies {

  private static final Set<String> REFUSED_WITHOUT_RUNNING =
      Set.of(
          "OOM", "READONLY", "LOADING", "BUSY", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "NOAUTH",
          "WRONGPASS", "NOPERM", "NOSCRIPT", "MOVED", "ASK", "NOREPLICAS", "MISCONF");

  private ErrorReplies() {}

  /** Whether an error reply with this message (as the library shows it) means "not run". */
  public static boolean refusedWithoutRunning(String message) {
    if (message == null) {
      return false;
    }
    String trimmed = message.trim();
    int space = trimmed.indexOf(' ');
    String code = (space < 0 ? trimmed : trimmed.substring(0, space)).toUpperCase(Locale.ROOT);
    return REFUSED_WITHOUT_RUNNING.contains(code);
  }

  /** Whether the reply says Redis does not have the script ({@code EVAL} it instead). */
  public static boolean isNoScript(String message) {
    return message != null && message.trim().toUpperCase(Locale.ROOT).startsWith("NOSCRIPT");
  }
}

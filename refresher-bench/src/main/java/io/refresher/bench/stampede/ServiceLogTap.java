package io.refresher.bench.stampede;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * Counts what the in-process service logs at WARN and above during a run, by message (keys and
 * numbers left out), so that the report can say what went wrong inside it: refreshes that could
 * not reach Redis, a dispatcher that could not claim, and the Redis client's own reason.
 */
final class ServiceLogTap extends AppenderBase<ILoggingEvent> implements AutoCloseable {

  private static final Pattern QUOTED = Pattern.compile("'[^']*'");
  private static final Pattern NUMBER = Pattern.compile("\\d+");
  private static final String[] CAUSES = {
    "Unable to acquire connection", "still hasn't been written", "response timeout", "Unable to write command",
    "Redis unavailable", "timed out"
  };

  private final Map<String, Integer> counts = new TreeMap<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  ServiceLogTap() {
    setName("stampede-service-log-tap");
    setContext(root.getLoggerContext());
    start();
    root.addAppender(this);
  }

  @Override
  protected void append(ILoggingEvent event) {
    if (!event.getLevel().isGreaterOrEqual(Level.WARN) || !event.getLoggerName().startsWith("io.refresher")) {
      return;
    }
    String message = event.getFormattedMessage();
    int cut = message.indexOf(" (");
    String head = cut > 0 ? message.substring(0, cut) : message;
    head = NUMBER.matcher(QUOTED.matcher(head).replaceAll("'…'")).replaceAll("N");
    if (head.length() > 140) {
      head = head.substring(0, 140) + "…";
    }
    String cause = cause(message, event.getThrowableProxy());
    String line = head + (cause == null ? "" : " [" + cause + "]");
    synchronized (counts) {
      counts.merge(line, 1, Integer::sum);
    }
  }

  private static String cause(String message, IThrowableProxy thrown) {
    StringBuilder text = new StringBuilder(message);
    for (IThrowableProxy t = thrown; t != null; t = t.getCause()) {
      text.append(' ').append(t.getMessage());
    }
    for (String cause : CAUSES) {
      if (text.indexOf(cause) >= 0) {
        return cause;
      }
    }
    return null;
  }

  Map<String, Integer> counts() {
    synchronized (counts) {
      return new TreeMap<>(counts);
    }
  }

  @Override
  public void close() {
    root.detachAppender(this);
    stop();
  }
}

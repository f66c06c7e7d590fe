package io.refresher.bench.throughput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR CPU profile of this JVM over a step: which component the sampled Java threads were
 * running (the database driver, Redis client, Netty, the service's own code, metrics, ...) and the
 * hottest methods. Answers "where does the time go" without another tool.
 */
final class JfrProfile implements AutoCloseable {

  /** Components by package prefix, first match wins (the order matters: most specific first). */
  private static final Map<String, String> COMPONENTS = new LinkedHashMap<>();

  static {
    COMPONENTS.put("org.postgresql", "PostgreSQL JDBC driver");
    COMPONENTS.put("com.zaxxer.hikari", "HikariCP pool");
    COMPONENTS.put("org.redisson", "Redisson (Redis client)");
    COMPONENTS.put("io.netty", "Netty (network I/O)");
    COMPONENTS.put("com.codahale.metrics", "Dropwizard metrics");
    COMPONENTS.put("io.dropwizard.metrics", "Dropwizard metrics");
    COMPONENTS.put("ch.qos.logback", "logging");
    COMPONENTS.put("org.slf4j", "logging");
    COMPONENTS.put("org.jdbi", "Jdbi (registry)");
    COMPONENTS.put("com.fasterxml.jackson", "Jackson (JSON)");
    COMPONENTS.put("io.refresher.bench", "benchmark harness");
    COMPONENTS.put("io.refresher", "service code");
    COMPONENTS.put("org.eclipse.jetty", "Jetty");
    COMPONENTS.put("org.quartz", "Quartz");
    COMPONENTS.put("java.util.concurrent", "JDK concurrency (executors, futures)");
    COMPONENTS.put("java.", "JDK (other)");
    COMPONENTS.put("jdk.", "JDK (other)");
    COMPONENTS.put("sun.", "JDK (other)");
  }

  private final Recording recording;
  private final Path file;

  private JfrProfile(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  static JfrProfile start() throws Exception {
    Recording recording = new Recording(Configuration.getConfiguration("profile"));
    recording.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(10));
    Path file = Files.createTempFile("refresher-bench", ".jfr");
    recording.setDestination(file);
    recording.start();
    return new JfrProfile(recording, file);
  }

  /** Samples by component of the innermost frame that is not JDK code, and the hottest methods. */
  record Result(long samples, Map<String, Long> byComponent, List<Map.Entry<String, Long>> hotMethods, Path file) {}

  Result stop() throws IOException {
    recording.stop();
    Map<String, Long> components = new HashMap<>();
    Map<String, Long> methods = new HashMap<>();
    long samples = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
      if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace stack = event.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      List<RecordedFrame> frames = stack.getFrames();
      RecordedFrame top = frames.get(0);
      methods.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(), 1L, Long::sum);
      components.merge(component(frames), 1L, Long::sum);
    }
    List<Map.Entry<String, Long>> hot = new ArrayList<>(methods.entrySet());
    hot.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    return new Result(samples, sortedByValue(components), hot.subList(0, Math.min(15, hot.size())), file);
  }

  /**
   * The component a sample is charged to: the innermost frame outside the JDK, so that a HashMap
   * lookup inside the driver counts for the driver; all-JDK stacks by the innermost frame.
   */
  private static String component(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      String type = frame.getMethod().getType().getName();
      if (!(type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun."))) {
        return componentOf(type);
      }
    }
    return componentOf(frames.get(0).getMethod().getType().getName());
  }

  private static String componentOf(String type) {
    for (Map.Entry<String, String> component : COMPONENTS.entrySet()) {
      if (type.startsWith(component.getKey())) {
        return component.getValue();
      }
    }
    return "other libraries";
  }

  private static Map<String, Long> sortedByValue(Map<String, Long> counts) {
    List<Map.Entry<String, Long>> entries = new ArrayList<>(counts.entrySet());
    entries.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    Map<String, Long> sorted = new LinkedHashMap<>();
    entries.forEach(entry -> sorted.put(entry.getKey(), entry.getValue()));
    return sorted;
  }

  @Override
  public void close() {
    recording.close();
  }
}

package io.refresher.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * One benchmark run's results: a Markdown report ({@code report.md}), a JSON summary ({@code
 * summary.json}) and PNG charts, all in one directory ({@code bench/results/<date>-<label>/}).
 *
 * <p>Phases add {@link Section}s in the order they run. Every throughput a phase reports should
 * also be given as a fraction of the run's {@link #ceiling()}, measured first on the same machine:
 * an absolute figure from another machine proves nothing.
 */
public final class BenchReport {

  private final Path directory;
  private final String title;
  private final Map<String, Object> machine = new LinkedHashMap<>();
  private final List<Section> sections = new ArrayList<>();
  private volatile Ceiling ceiling;
  private final Map<String, Double> shared = new java.util.concurrent.ConcurrentHashMap<>();

  /** Shared figure: the service's highest sustained refreshes/s (set by the throughput phase). */
  public static final String SERVICE_MAX_REFRESHES = "service.maxRefreshesPerSecond";

  public BenchReport(Path directory, String title) {
    this.directory = directory;
    this.title = title;
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path directory() {
    return directory;
  }

  /** A fact about the machine or the run (cores, CPU, memory, versions, options). */
  public void machine(String name, Object value) {
    machine.put(name, value);
  }

  /**
   * The essential work of a refresh measured without the service: source queries and value writes
   * per second on these servers. Set by the ceiling phase, read by the others.
   */
  public void ceiling(Ceiling measured) {
    this.ceiling = measured;
  }

  /** The run's ceiling, or null before (or without) the ceiling phase. */
  public Ceiling ceiling() {
    return ceiling;
  }

  /** {@code throughput} as a fraction of the ceiling, formatted ("0.83×"), or "n/a" without one. */
  public String ofCeiling(double refreshesPerSecond) {
    Ceiling c = ceiling;
    return c == null || c.refreshesPerSecond() <= 0
        ? "n/a"
        : Fmt.ratio(refreshesPerSecond / c.refreshesPerSecond());
  }

  /** A figure one phase measured for the phases after it (see the constants). */
  public void share(String name, double value) {
    shared.put(name, value);
  }

  public java.util.OptionalDouble shared(String name) {
    Double value = shared.get(name);
    return value == null ? java.util.OptionalDouble.empty() : java.util.OptionalDouble.of(value);
  }

  /** Keys of summary.json that are not sections: a section may not take them. */
  private static final java.util.Set<String> RESERVED = java.util.Set.of("title", "machine", "ceiling");

  /**
   * A new section; its {@code id} is its key in summary.json ({@code title}, {@code machine} and
   * {@code ceiling} are taken). By convention a phase's sections have its id, or its id and a dash
   * before more ({@code ceiling-measurement}).
   */
  public Section section(String id, String heading) {
    if (RESERVED.contains(id)) {
      throw new IllegalArgumentException("section id '" + id + "' is a key of its own in summary.json");
    }
    Section section = new Section(id, heading);
    sections.add(section);
    return section;
  }

  /**
   * The ceiling: how many refreshes per second the essential work allows on this machine, and its
   * parts.
   *
   * @param refreshesPerSecond the lower of the two when both run at once (the bound a refresher
   *     can reach)
   * @param queriesPerSecond source queries per second (same query and clients as the service's)
   * @param writesPerSecond value + metadata writes per second (pipelined)
   */
  public record Ceiling(double refreshesPerSecond, double queriesPerSecond, double writesPerSecond) {}

  /** One phase's part of the report. */
  public final class Section {
    private final String id;
    private final String heading;
    private final StringBuilder markdown = new StringBuilder();
    private final Map<String, Object> summary = new LinkedHashMap<>();

    private Section(String id, String heading) {
      this.id = id;
      this.heading = heading;
    }

    /** A paragraph of Markdown. */
    public Section paragraph(String text) {
      markdown.append(text.strip()).append("\n\n");
      return this;
    }

    /** A table; cells are printed as given (format numbers with {@link Fmt}). */
    public Section table(String caption, List<String> header, List<List<String>> rows) {
      if (caption != null && !caption.isBlank()) {
        markdown.append("**").append(caption.strip()).append("**\n\n");
      }
      markdown.append("| ").append(String.join(" | ", header)).append(" |\n");
      markdown.append("|").append("---|".repeat(header.size())).append("\n");
      for (List<String> row : rows) {
        markdown.append("| ").append(String.join(" | ", row)).append(" |\n");
      }
      markdown.append("\n");
      return this;
    }

    /** Saves the chart as {@code <fileStem>.png} in the run's directory and shows it here. */
    public Section chart(String fileStem, String caption, Chart<?, ?> chart) {
      try {
        BitmapEncoder.saveBitmap(chart, directory.resolve(fileStem).toString(), BitmapEncoder.BitmapFormat.PNG);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      markdown.append("![").append(caption).append("](").append(fileStem).append(".png)\n\n");
      return this;
    }

    /** A value of this section in {@code summary.json} (numbers, strings, lists, maps, records). */
    public Section put(String name, Object value) {
      summary.put(name, value);
      return this;
    }
  }

  /** Writes {@code report.md} and {@code summary.json}; may be called again after more sections. */
  public synchronized void write() {
    StringBuilder md = new StringBuilder();
    md.append("# ").append(title).append("\n\n");
    md.append("## Machine and run\n\n| | |\n|---|---|\n");
    machine.forEach((name, value) -> md.append("| ").append(name).append(" | ").append(value).append(" |\n"));
    md.append("\n");
    Ceiling c = ceiling;
    if (c != null) {
      md.append("Ceiling of this run: **")
          .append(Fmt.rate(c.refreshesPerSecond()))
          .append(" refreshes/s** (source queries ")
          .append(Fmt.rate(c.queriesPerSecond()))
          .append("/s, value writes ")
          .append(Fmt.rate(c.writesPerSecond()))
          .append("/s, measured without the service). Throughputs below are also given as a fraction of it.\n\n");
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("title", title);
    json.put("machine", machine);
    json.put("ceiling", c);
    for (Section section : sections) {
      md.append("## ").append(section.heading).append("\n\n").append(section.markdown);
      json.put(section.id, section.summary);
    }
    try {
      Files.writeString(directory.resolve("report.md"), md.toString(), StandardCharsets.UTF_8);
      new ObjectMapper()
          .findAndRegisterModules()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(directory.resolve("summary.json").toFile(), json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package io.refresher.bench;

import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.refresher.config.RefresherConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The service's configuration in the benchmark: {@code bench.yml} with its {@code @...@}
 * placeholders filled in, as a file for {@code RefresherApplication.run("server", file)} and parsed
 * as the service parses it (so that the ceiling builds its clients from the same settings).
 *
 * @param redisUrl {@code redis://host:port[/db]}
 * @param dbUrl the JDBC URL of the service's database (also the {@code item} source's)
 * @param ttr the refresh's fixed TTR (initial = min = max)
 * @param workers {@code scheduler.workers}; the default source pool has {@code workers + 2}
 *     connections ({@link #sourcePoolSize()})
 * @param nettyThreads {@code redis.nettyThreads} (0: Redisson's default, twice the cores)
 */
public record BenchConfig(String redisUrl, String dbUrl, Duration ttr, int workers, int nettyThreads) {

  /**
   * The service's refresh workers in every phase (system property {@code bench.workers}, as the
   * throughput phase reads it): the scale phase loads the service to a fraction of the throughput
   * phase's maximum, and the ceiling's source pool has as many connections as theirs.
   *
   * <p>Default 16, the shipped {@code scheduler.workers}. It was 64 until two {@code --quick} runs
   * on this 2-core machine (2026-12-05) showed the same maximum with either (10,091/s with 64,
   * 10,329/s with 16) but not the same overload: at twice the maximum, 64 workers' queries kept
   * 64 PostgreSQL backends busy on 2 cores and the rate fell to 0.60 of the maximum, while 16 kept
   * 0.99 of it.
   */
  public static final int WORKERS = Integer.getInteger("bench.workers", 16);

  /** The admin token in {@code bench.yml}. */
  static final String ADMIN_TOKEN = "bench-token-0123456789abcdef";

  public static BenchConfig of(String redisUrl, String dbUrl, Duration ttr) {
    return new BenchConfig(redisUrl, dbUrl, ttr, WORKERS, 0);
  }

  /**
   * Connections of the service's default source pool (the {@code item} source's): {@code max(2,
   * workers + 2)}, as {@code ServiceWiring} sizes it.
   */
  public int sourcePoolSize() {
    return Math.max(2, workers + 2);
  }

  /** Writes the configuration to a temporary file (deleted when the JVM exits). */
  public Path write() {
    try {
      Path file = Files.createTempFile("refresher-bench", ".yml");
      file.toFile().deleteOnExit();
      Files.writeString(file, render(), StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The configuration as the service reads it (validated). */
  RefresherConfiguration parse() {
    Path file = write();
    try {
      return new YamlConfigurationFactory<>(
              RefresherConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
          .build(new FileConfigurationSourceProvider(), file.toString());
    } catch (Exception e) {
      throw new IllegalStateException("bench.yml does not parse: " + e.getMessage(), e);
    } finally {
      file.toFile().delete();
    }
  }

  String render() {
    String template;
    try (InputStream in = BenchConfig.class.getResourceAsStream("/bench.yml")) {
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return template
        .replace("@REDIS_URL@", redisUrl)
        .replace("@DB_URL@", dbUrl)
        .replace("@TTR@", ttr.toMillis() + "ms")
        .replace("@WORKERS@", Integer.toString(workers))
        .replace("@NETTY@", Integer.toString(nettyThreads));
  }
}

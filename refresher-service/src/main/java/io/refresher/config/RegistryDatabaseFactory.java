package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The service's own PostgreSQL ({@code database:}): a {@link DatabaseFactory} plus the probe that
 * tells the service whether the database is there. The probe runs one {@code SELECT 1} every
 * {@link #getProbeInterval() probeInterval}, each bounded by {@link #getProbeTimeout()
 * probeTimeout}; while it fails, readiness is down and requests that need the registry fail at once
 * instead of each waiting out the pool's {@code connectionTimeout}.
 */
public class RegistryDatabaseFactory extends DatabaseFactory {

  @NotNull
  @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
  private Duration probeInterval = Duration.seconds(1);

  /** Whole seconds, as pgjdbc takes its connect and socket timeouts. */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @MaxDuration(value = 1, unit = TimeUnit.MINUTES)
  private Duration probeTimeout = Duration.seconds(2);

  /**
   * Whether the service applies pending schema migrations at start (the default). {@code false}:
   * it only validates the schema and refuses to start while migrations are pending, for
   * deployments where {@code db migrate} runs separately first (deploy/README.md, the migration
   * Job).
   */
  private boolean migrateAtStart = true;

  @JsonProperty
  public Duration getProbeInterval() {
    return probeInterval;
  }

  @JsonProperty
  public void setProbeInterval(Duration probeInterval) {
    this.probeInterval = probeInterval;
  }

  @JsonProperty
  public Duration getProbeTimeout() {
    return probeTimeout;
  }

  @JsonProperty
  public void setProbeTimeout(Duration probeTimeout) {
    this.probeTimeout = probeTimeout;
  }

  @JsonProperty
  public boolean isMigrateAtStart() {
    return migrateAtStart;
  }

  @JsonProperty
  public void setMigrateAtStart(boolean migrateAtStart) {
    this.migrateAtStart = migrateAtStart;
  }

  /**
   * Opens the probe's own connection, outside every pool: a pool waits its {@code
   * connectionTimeout} and keeps retrying, the probe wants one bounded attempt. Connecting, logging
   * in and every reply are bounded by {@code probeTimeout}; no login thread is left behind (pgjdbc
   * logs in on a thread of its own when a login timeout is set, and that thread would outlive a
   * timed-out attempt).
   */
  public Connection openProbeConnection() throws SQLException {
    Properties properties = new Properties();
    properties.putAll(getProperties());
    properties.setProperty("user", getUser());
    properties.setProperty("password", getPassword());
    properties.putIfAbsent("ApplicationName", "refresher-probe");
    String seconds = Long.toString(wholeSeconds(probeTimeout));
    properties.setProperty("connectTimeout", seconds);
    properties.setProperty("socketTimeout", seconds);
    properties.setProperty("loginTimeout", "0");
    return DriverManager.getConnection(getUrl(), properties);
  }
}

package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.AutoCloseableManager;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A JDBC database reached through a HikariCP pool: the service's own PostgreSQL, or a named extra
 * datasource that sources read from.
 *
 * <p>The password is never part of {@link #toString()} and never logged; it comes from an
 * environment variable through {@code config.yml}.
 */
public class DatabaseFactory {

  @NotBlank private String url;

  @NotNull private String user = "";

  @NotNull private String password = "";

  @Min(1)
  @Max(500)
  private int maxPoolSize = 10;

  @NotNull
  @MinDuration(value = 250, unit = TimeUnit.MILLISECONDS)
  private Duration connectionTimeout = Duration.seconds(5);

  /**
   * Longest wait for any one reply from the database (pgjdbc {@code socketTimeout}): a frozen or
   * unreachable server fails a statement, or a login, after this instead of blocking its thread
   * until the server comes back. Keep it above the slowest statement: a source's timeout must be
   * below it (checked at start).
   */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  private Duration socketTimeout = Duration.seconds(30);

  @NotNull private Map<String, String> properties = new LinkedHashMap<>();

  /** Change capture from this datasource's write-ahead log; none when null. */
  @jakarta.validation.Valid private CaptureFactory capture;

  /** Source queries started per second on this datasource, all replicas together; 0: no bound. */
  @Min(0)
  @Max(1_000_000)
  private int maxQueriesPerSecond = 0;

  /**
   * Consistency audit samples per second on this datasource, all replicas together (each runs its source
   * once or twice, within the load bound); 0: not audited.
   */
  @DecimalMin("0")
  @DecimalMax("10000")
  @JsonProperty
  private double auditSamplesPerSecond = 0;

  /** Source queries running at once on this datasource, all replicas together; 0: no bound. */
  @Min(0)
  @Max(100_000)
  private int maxConcurrent = 0;

  /** Longest a refresh waits for its turn under the bound before it is retried later. */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration maxWait = Duration.seconds(10);

  /**
   * The most of this datasource's pool one source may use at once on a replica (a fraction; a
   * source alone on its datasource has the whole pool). Over it, the refresh is retried later.
   * 1.0 (the default) sets no share: a static share also turns back the bursts of a healthy source
   * (a rate-paced refill took 13.4 s instead of 11.8 s with 0.5), so it is for datasources whose
   * sources can hang.
   */
  @DecimalMin(value = "0.0", inclusive = false)
  @DecimalMax("1.0")
  private double sourceShare = 1.0;

  @JsonProperty
  public double getSourceShare() {
    return sourceShare;
  }

  @JsonProperty
  public void setSourceShare(double sourceShare) {
    this.sourceShare = sourceShare;
  }

  @JsonProperty
  public CaptureFactory getCapture() {
    return capture;
  }

  @JsonProperty
  public void setCapture(CaptureFactory capture) {
    this.capture = capture;
  }

  @JsonProperty
  public String getUrl() {
    return url;
  }

  @JsonProperty
  public void setUrl(String url) {
    this.url = url;
  }

  @JsonProperty
  public String getUser() {
    return user;
  }

  @JsonProperty
  public void setUser(String user) {
    this.user = user;
  }

  @JsonProperty
  public String getPassword() {
    return password;
  }

  @JsonProperty
  public void setPassword(String password) {
    this.password = password;
  }

  @JsonProperty
  public int getMaxPoolSize() {
    return maxPoolSize;
  }

  @JsonProperty
  public void setMaxPoolSize(int maxPoolSize) {
    this.maxPoolSize = maxPoolSize;
  }

  @JsonProperty
  public Duration getConnectionTimeout() {
    return connectionTimeout;
  }

  @JsonProperty
  public void setConnectionTimeout(Duration connectionTimeout) {
    this.connectionTimeout = connectionTimeout;
  }

  @JsonProperty
  public Duration getSocketTimeout() {
    return socketTimeout;
  }

  @JsonProperty
  public void setSocketTimeout(Duration socketTimeout) {
    this.socketTimeout = socketTimeout;
  }

  /** Extra JDBC driver properties (for PostgreSQL: sslmode, ApplicationName, ...). */
  @JsonProperty
  public Map<String, String> getProperties() {
    return properties;
  }

  @JsonProperty
  public void setProperties(Map<String, String> properties) {
    this.properties = properties;
  }

  public double getAuditSamplesPerSecond() {
    return auditSamplesPerSecond;
  }

  public void setAuditSamplesPerSecond(double auditSamplesPerSecond) {
    this.auditSamplesPerSecond = auditSamplesPerSecond;
  }

  @JsonProperty
  public int getMaxQueriesPerSecond() {
    return maxQueriesPerSecond;
  }

  @JsonProperty
  public void setMaxQueriesPerSecond(int maxQueriesPerSecond) {
    this.maxQueriesPerSecond = maxQueriesPerSecond;
  }

  @JsonProperty
  public int getMaxConcurrent() {
    return maxConcurrent;
  }

  @JsonProperty
  public void setMaxConcurrent(int maxConcurrent) {
    this.maxConcurrent = maxConcurrent;
  }

  @JsonProperty
  public Duration getMaxWait() {
    return maxWait;
  }

  @JsonProperty
  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }

  /** The load bound of the sources that read from this datasource. */
  public io.refresher.refresh.LoadBound loadBound(String datasource) {
    return new io.refresher.refresh.LoadBound(
        datasource, maxQueriesPerSecond, maxConcurrent, maxWait.toJavaDuration());
  }

  /**
   * Builds a pool the service's lifecycle closes at stop, with its gauges on {@code /metrics}
   * ({@code <pool>.pool.ActiveConnections}, {@code TotalConnections}, {@code PendingConnections}...,
   * where borrowed connections that never come back show).
   *
   * @param schema looked up first for unqualified names (the service's own tables); null: none
   */
  public HikariDataSource build(Environment environment, String poolName, boolean readOnly, int poolSize, String schema) {
    HikariDataSource pool = build(poolName, readOnly, poolSize, schema);
    pool.setMetricRegistry(environment.metrics());
    environment.lifecycle().manage(new AutoCloseableManager(pool));
    return pool;
  }

  /**
   * Builds a pool. A read-only pool makes every session read-only on the server side
   * ({@code readOnlyMode=always}), so a source's SQL cannot write even if it tries.
   */
  public HikariDataSource build(String poolName, boolean readOnly, int poolSize) {
    return build(poolName, readOnly, poolSize, null);
  }

  /**
   * Builds a pool whose sessions look up unqualified names in {@code schema} first (the service's
   * own tables), then in {@code public}.
   */
  public HikariDataSource build(String poolName, boolean readOnly, int poolSize, String schema) {
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName(poolName);
    hikari.setJdbcUrl(url);
    hikari.setUsername(user);
    hikari.setPassword(password);
    hikari.setMaximumPoolSize(poolSize);
    // A source pool keeps all its connections open: a refresh takes its rate permit right before its
    // query, and a query that then waited for a new connection would start late and bunch up with
    // the next window's (the storm demo saw 119 queries in a second under a bound of 100 while the
    // pool grew from 2 to 30).
    // The service's own pools (registry, Quartz) keep no idle minimum: a pool that must keep one
    // retries opening connections all through an outage, with a backoff that grows to 5 s (fixed in
    // HikariCP), and after the database is back the first requests waited out that backoff (5 s
    // measured). Without one, nothing tries while nothing waits (the registry refuses at once during
    // a known outage), and the first request after it starts a fresh attempt. Connections stay
    // open while used (idleTimeout, 10 min).
    hikari.setMinimumIdle(readOnly ? poolSize : 0);
    hikari.setConnectionTimeout(connectionTimeout.toMilliseconds());
    // Checking an idle connection before handing it out takes a round trip of a millisecond; on a
    // frozen server it would otherwise wait Hikari's default 5 s before trying another one.
    hikari.setValidationTimeout(Math.max(250, Math.min(1000, connectionTimeout.toMilliseconds())));
    // Start even when the database is down: the service serves what it can and reports not-ready.
    hikari.setInitializationFailTimeout(-1);
    hikari.setReadOnly(readOnly);
    if (url.startsWith("jdbc:postgresql:")) {
      // pg_stat_activity names the pool each session belongs to.
      hikari.addDataSourceProperty("ApplicationName", poolName);
      // Bounds for a server that accepts TCP but never answers (SIGSTOP, a VM pause, a dead host
      // behind a live load balancer): the TCP connect, then every read, logins included. Without
      // them a query or a login attempt blocks its thread until the server comes back.
      hikari.addDataSourceProperty("connectTimeout", Long.toString(wholeSeconds(connectionTimeout)));
      hikari.addDataSourceProperty("socketTimeout", Long.toString(wholeSeconds(socketTimeout)));
    }
    properties.forEach(hikari::addDataSourceProperty);
    if (schema != null) {
      hikari.addDataSourceProperty("currentSchema", schema + ",public");
    }
    if (readOnly && url.startsWith("jdbc:postgresql:")) {
      hikari.addDataSourceProperty("readOnlyMode", "always");
    }
    return new HikariDataSource(hikari);
  }

  /** pgjdbc takes its timeouts in whole seconds; never round a bound down to "no bound" (0). */
  public static long wholeSeconds(Duration duration) {
    return Math.max(1, (duration.toMilliseconds() + 999) / 1000);
  }

  @Override
  public String toString() {
    return "DatabaseFactory{url=" + url + ", user=" + user + ", maxPoolSize=" + maxPoolSize
        + ", maxQueriesPerSecond=" + maxQueriesPerSecond + ", maxConcurrent=" + maxConcurrent + "}";
  }
}

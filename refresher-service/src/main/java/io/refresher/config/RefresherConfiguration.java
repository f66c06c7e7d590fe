package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;

/** The service's configuration ({@code config.yml}); every block validates itself at start. */
@WiredSources
public class RefresherConfiguration extends Configuration {

  @Valid @NotNull private RedisFactory redis = new RedisFactory();

  @Valid @NotNull private RegistryDatabaseFactory database;

  @Valid @NotNull private Map<String, DatabaseFactory> datasources = new LinkedHashMap<>();

  @Valid @NotNull private Map<String, HttpEndpointFactory> httpEndpoints = new LinkedHashMap<>();

  @Valid @NotNull private Map<String, SourceFactory> sources = new LinkedHashMap<>();

  @Valid @NotNull private ChangesFactory changes = new ChangesFactory();

  @Valid @NotNull private RefreshFactory refresh = new RefreshFactory();

  @Valid @NotNull private SchedulerFactory scheduler = new SchedulerFactory();

  @Valid @NotNull private AuditFactory audit = new AuditFactory();

  @Valid @NotNull private TracingFactory tracing = new TracingFactory();

  @Valid @NotNull private AccessFactory access = new AccessFactory();

  @Valid @NotNull private AdminFactory admin = new AdminFactory();

  @JsonProperty
  public RedisFactory getRedis() {
    return redis;
  }

  @JsonProperty
  public void setRedis(RedisFactory redis) {
    this.redis = redis;
  }

  /** The service's own PostgreSQL: registry, epochs, Quartz tables; also the "default" datasource. */
  @JsonProperty
  public RegistryDatabaseFactory getDatabase() {
    return database;
  }

  @JsonProperty
  public void setDatabase(RegistryDatabaseFactory database) {
    this.database = database;
  }

  /** Named HTTP endpoints that HTTP sources send their requests to. */
  @JsonProperty
  public Map<String, HttpEndpointFactory> getHttpEndpoints() {
    return httpEndpoints;
  }

  @JsonProperty
  public void setHttpEndpoints(Map<String, HttpEndpointFactory> httpEndpoints) {
    this.httpEndpoints = httpEndpoints;
  }

  /** How notifications of changed data (sources' {@code changes:}) are handled. */
  @JsonProperty
  public ChangesFactory getChanges() {
    return changes;
  }

  @JsonProperty
  public void setChanges(ChangesFactory changes) {
    this.changes = changes;
  }

  /** Extra named datasources that sources may read from. */
  @JsonProperty
  public Map<String, DatabaseFactory> getDatasources() {
    return datasources;
  }

  @JsonProperty
  public void setDatasources(Map<String, DatabaseFactory> datasources) {
    this.datasources = datasources;
  }

  @JsonProperty
  public Map<String, SourceFactory> getSources() {
    return sources;
  }

  @JsonProperty
  public void setSources(Map<String, SourceFactory> sources) {
    this.sources = sources;
  }

  @JsonProperty
  public RefreshFactory getRefresh() {
    return refresh;
  }

  @JsonProperty
  public void setRefresh(RefreshFactory refresh) {
    this.refresh = refresh;
  }

  @JsonProperty
  public AuditFactory getAudit() {
    return audit;
  }

  @JsonProperty
  public void setAudit(AuditFactory audit) {
    this.audit = audit;
  }

  @JsonProperty
  public TracingFactory getTracing() {
    return tracing;
  }

  @JsonProperty
  public void setTracing(TracingFactory tracing) {
    this.tracing = tracing;
  }

  @JsonProperty
  public SchedulerFactory getScheduler() {
    return scheduler;
  }

  @JsonProperty
  public void setScheduler(SchedulerFactory scheduler) {
    this.scheduler = scheduler;
  }

  @JsonProperty
  public AccessFactory getAccess() {
    return access;
  }

  @JsonProperty
  public void setAccess(AccessFactory access) {
    this.access = access;
  }

  @JsonProperty
  public AdminFactory getAdmin() {
    return admin;
  }

  @JsonProperty
  public void setAdmin(AdminFactory admin) {
    this.admin = admin;
  }

}

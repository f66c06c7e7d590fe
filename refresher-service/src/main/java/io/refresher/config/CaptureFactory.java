package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code capture:} block of a datasource: read its row changes from the write-ahead log
 * (logical replication, {@code pgoutput}) and refresh or evict the keys they name. See {@code
 * docs/sources.md} ("Change capture").
 *
 * <pre>
 *   datasources:
 *     catalog:
 *       url: ...
 *       capture:
 *         publication: refresher_catalog   # CREATE PUBLICATION refresher_catalog FOR TABLE public.product
 *         slot: refresher_catalog          # created by the service at its first start
 *         tables:
 *           public.product:
 *             sources: [product-by-id]     # the templates of these sources, filled from the row
 *             keys: ["product-name:{name}"]
 *             keyColumn: cache_key         # or a column holding the key
 * </pre>
 */
public class CaptureFactory {

  private static final String IDENTIFIER = "[a-z_][a-z0-9_]{0,62}";

  /** The publication to read: created by an operator (it needs the tables' owner). */
  @NotNull
  @Pattern(regexp = IDENTIFIER, message = "must be a lower-case PostgreSQL identifier ([a-z_][a-z0-9_]{0,62})")
  @JsonProperty
  private String publication;

  /** The replication slot: the service creates it when missing; one per deployment and datasource. */
  @Pattern(regexp = IDENTIFIER, message = "must be a lower-case PostgreSQL identifier ([a-z_][a-z0-9_]{0,62})")
  @JsonProperty
  private String slot;

  /**
   * The role the log is read as (it needs {@code REPLICATION}); the datasource's own when none. Its
   * password comes from the environment, as the datasource's does.
   */
  @JsonProperty private String user;

  @JsonProperty private String password;

  /** The captured tables, by {@code schema.table} (a name without a schema is in {@code public}). */
  @NotEmpty @Valid @JsonProperty private Map<String, CaptureTableFactory> tables = new LinkedHashMap<>();

  /**
   * How often the reader confirms its position when no captured table changes: without it, the
   * slot holds the WAL of every other table's changes until a captured one changes.
   */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration heartbeatInterval = Duration.seconds(10);

  /** How often every replica reads the slot's lag for the metrics. */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration lagInterval = Duration.seconds(5);

  public String getUser() {
    return user;
  }

  public void setUser(String user) {
    this.user = user == null || user.isBlank() ? null : user;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public String getPublication() {
    return publication;
  }

  public void setPublication(String publication) {
    this.publication = publication;
  }

  /** The slot's name; {@code refresher_<datasource>} when none is set. */
  public String slotName(String datasource) {
    return slot != null ? slot : "refresher_" + datasource.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }

  public String getSlot() {
    return slot;
  }

  public void setSlot(String slot) {
    this.slot = slot;
  }

  public Map<String, CaptureTableFactory> getTables() {
    return tables;
  }

  public void setTables(Map<String, CaptureTableFactory> tables) {
    this.tables = tables;
  }

  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getLagInterval() {
    return lagInterval;
  }

  public void setLagInterval(Duration lagInterval) {
    this.lagInterval = lagInterval;
  }

  /** {@code schema.table} for a configured table name. */
  public static String qualified(String table) {
    return table.contains(".") ? table : "public." + table;
  }

  @ValidationMethod(message = "tables must be named table or schema.table, lower-case identifiers")
  public boolean isTableNamesValid() {
    return tables.keySet().stream().allMatch(name -> name.matches(IDENTIFIER + "(\\." + IDENTIFIER + ")?"));
  }
}

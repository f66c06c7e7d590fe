package io.refresher.persistence;

import java.util.Arrays;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.output.ValidateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies, in the service's own schema {@value #SCHEMA}, the versioned SQL migrations of {@code db-migrations/} (shipped in the jar under {@code
 * db/migration}) and validates the schema against them: the service never runs on a schema it does
 * not know.
 *
 * <p>Two releases overlap during a rolling upgrade, so both directions matter (deploy/README.md,
 * "Upgrades"). Flyway serialises concurrent {@code migrate} runs of several replicas with a
 * PostgreSQL advisory lock. A release started on a schema that a <em>newer</em> release already
 * migrated is accepted: {@code ignoreMigrationPatterns} is {@code *:future} (Flyway's default, set
 * explicitly), so applied migrations newer than the last one this release knows are not a validation error (they
 * are logged). Migrations therefore have to be additive for the previous release (expand now,
 * contract in a later release).
 */
public final class SchemaMigrator {

  /**
   * The service keeps its tables in a schema of its own, so it can share a database with the data
   * its sources read (the default datasource is the service's database) without name clashes.
   */
  public static final String SCHEMA = "refresher";

  static final String LOCATION = "classpath:db/migration";

  private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrator.class);

  private final Flyway flyway;

  public SchemaMigrator(DataSource dataSource) {
    this(dataSource, LOCATION);
  }

  /** With other migration locations: tests play an older or a newer release with it. */
  SchemaMigrator(DataSource dataSource, String... locations) {
    this.flyway =
        Flyway.configure()
            .dataSource(dataSource)
            .schemas(SCHEMA)
            .createSchemas(true)
            .locations(locations)
            .table("refresher_schema_history")
            .validateMigrationNaming(true)
            // Flyway's default, stated because rolling upgrades depend on it: a release started on a
            // schema a newer release has migrated accepts the migrations it does not know.
            .ignoreMigrationPatterns("*:future")
            .load();
  }

  /** Migrates to the latest version; returns the number of migrations applied. */
  public int migrate() {
    MigrateResult result = flyway.migrate();
    LOG.info(
        "schema at version {} ({} migrations applied now)",
        result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion,
        result.migrationsExecuted);
    return result.migrationsExecuted;
  }

  /**
   * Changes nothing: checks that every migration this release ships has been applied and that the
   * applied ones match it (checksums, no failed migration), for a start with {@code
   * database.migrateAtStart: false}, where a separate {@code db migrate} run (the Kubernetes
   * migration Job) migrates. Migrations newer than this release's are accepted, as by {@link
   * #migrate()}.
   *
   * @throws PendingMigrationsException when migrations are pending or the schema does not match
   */
  public void validate() {
    MigrationInfoService info = flyway.info();
    MigrationInfo[] pending = info.pending();
    MigrationInfo current = info.current();
    String at = current == null || current.getVersion() == null ? "none (empty schema)" : current.getVersion().toString();
    if (pending.length > 0) {
      throw new PendingMigrationsException(
          "database.migrateAtStart is false and the schema "
              + SCHEMA
              + " is at version "
              + at
              + " with "
              + pending.length
              + " migration(s) pending ("
              + Arrays.stream(pending)
                  .map(m -> "V" + m.getVersion() + " " + m.getDescription())
                  .collect(Collectors.joining(", "))
              + "): run `db migrate <config.yml>` first (in Kubernetes: the migration Job,"
              + " deploy/README.md), or set database.migrateAtStart to true");
    }
    ValidateResult result = flyway.validateWithResult();
    if (!result.validationSuccessful) {
      throw new PendingMigrationsException(
          "database.migrateAtStart is false and the schema "
              + SCHEMA
              + " does not match this release's migrations: "
              + result.getAllErrorMessages());
    }
    LOG.info("schema at version {}, nothing pending (database.migrateAtStart is false: not migrated)", at);
  }

  /** The schema is not the one this release needs, and this start must not migrate it. */
  public static final class PendingMigrationsException extends IllegalStateException {
    PendingMigrationsException(String message) {
      super(message);
    }
  }
}

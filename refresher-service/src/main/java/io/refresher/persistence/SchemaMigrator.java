package io.refresher.persistence;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies, in the service's own schema {@value #SCHEMA}, the versioned SQL migrations of {@code db-migrations/} (shipped in the jar under {@code
 * db/migration}) and validates the schema against them: the service never runs on a schema it does
 * not know.
 */
public final class SchemaMigrator {

  /**
   * The service keeps its tables in a schema of its own, so it can share a database with the data
   * its sources read (the default datasource is the service's database) without name clashes.
   */
  public static final String SCHEMA = "refresher";

  private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrator.class);

  private final Flyway flyway;

  public SchemaMigrator(DataSource dataSource) {
    this.flyway =
        Flyway.configure()
            .dataSource(dataSource)
            .schemas(SCHEMA)
            .createSchemas(true)
            .locations("classpath:db/migration")
            .table("refresher_schema_history")
            .validateMigrationNaming(true)
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
}

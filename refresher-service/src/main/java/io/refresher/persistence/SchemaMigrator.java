package io.refresher.persistence;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the versioned SQL migrations of {@code db-migrations/} (shipped in the jar under {@code
 * db/migration}) and validates the schema against them: the service never runs on a schema it does
 * not know.
 */
public final class SchemaMigrator {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrator.class);

  private final Flyway flyway;

  public SchemaMigrator(DataSource dataSource) {
    this.flyway =
        Flyway.configure()
            .dataSource(dataSource)
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

package io.refresher.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.testing.RealServers;
import io.refresher.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What happens to the schema when two releases overlap, on a real PostgreSQL (deploy/README.md,
 * "Upgrades"): replicas migrating at once, a release started on a schema a newer release migrated
 * (a rollback, or an old pod still running), and the validate-only start of {@code
 * database.migrateAtStart: false}. Older and newer releases are played with copies of {@code
 * db-migrations/}, one migration fewer or one more.
 */
class SchemaMigratorIT {

  private static final Path MIGRATIONS = Path.of("..", "db-migrations");

  @TempDir Path dir;

  @Test
  void validate_freshDatabase_refusesNamingEveryPendingMigrationAndChangesNothing() {
    TestDatabase database = RealServers.newDatabase("migrator_fresh");

    assertThatThrownBy(() -> new SchemaMigrator(dataSource(database)).validate())
        .isInstanceOf(SchemaMigrator.PendingMigrationsException.class)
        .hasMessageContaining("migrateAtStart is false")
        .hasMessageContaining("none (empty schema)")
        .hasMessageContaining("6 migration(s) pending")
        .hasMessageContaining("V1 registry")
        .hasMessageContaining("V4 registration generation")
        .hasMessageContaining("db migrate");
    assertThat(database.queryLong("SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'refresher'"))
        .as("validate creates nothing")
        .isZero();
  }

  @Test
  void validate_afterMigrate_passes() {
    TestDatabase database = RealServers.newDatabase("migrator_done");
    assertThat(new SchemaMigrator(dataSource(database)).migrate()).isEqualTo(6);

    new SchemaMigrator(dataSource(database)).validate();
  }

  @Test
  void validate_oneMigrationBehind_refusesNamingIt() throws IOException {
    TestDatabase database = RealServers.newDatabase("migrator_behind");
    new SchemaMigrator(dataSource(database), location(release("older", 5))).migrate();

    assertThatThrownBy(() -> new SchemaMigrator(dataSource(database)).validate())
        .isInstanceOf(SchemaMigrator.PendingMigrationsException.class)
        .hasMessageContaining("at version 5 with 1 migration(s) pending (V6 change actor)");
  }

  @Test
  void currentRelease_onSchemaOfNewerRelease_migratesNothingAndValidates() throws IOException {
    // The overlap of a rolling upgrade (old pods still running, or starting again after a
    // rollback) once the new release's migration has run: the old release must still start.
    TestDatabase database = RealServers.newDatabase("migrator_newer");
    Path newer = release("newer", 6);
    Files.writeString(
        newer.resolve("V7__newer_release.sql"),
        "ALTER TABLE refresher_key ADD COLUMN note TEXT;\n");
    assertThat(new SchemaMigrator(dataSource(database), location(newer)).migrate()).isEqualTo(7);

    SchemaMigrator current = new SchemaMigrator(dataSource(database));
    assertThat(current.migrate()).as("nothing to do, and no validation error").isZero();
    current.validate();
    // And a release two versions back (five migrations) the same way.
    SchemaMigrator older = new SchemaMigrator(dataSource(database), location(release("older", 5)));
    assertThat(older.migrate()).isZero();
    older.validate();
  }

  @Test
  void validate_appliedMigrationEditedSinceRelease_refuses() throws IOException {
    // A migration edited after it shipped: the checksums differ, migrate and validate both refuse.
    TestDatabase database = RealServers.newDatabase("migrator_edited");
    Path edited = release("edited", 6);
    Files.writeString(
        edited.resolve("V4__registration_generation.sql"),
        Files.readString(edited.resolve("V4__registration_generation.sql")) + "\n-- edited\n");
    new SchemaMigrator(dataSource(database), location(edited)).migrate();

    assertThatThrownBy(() -> new SchemaMigrator(dataSource(database)).validate())
        .isInstanceOf(SchemaMigrator.PendingMigrationsException.class)
        .hasMessageContaining("does not match")
        .hasMessageContaining("checksum");
  }

  @Test
  void migrate_replicasStartingTogether_applyEachMigrationOnce() throws Exception {
    // Flyway takes PostgreSQL's advisory lock: one replica migrates, the others wait and find
    // nothing left to do.
    TestDatabase database = RealServers.newDatabase("migrator_together");
    int replicas = 3;
    ExecutorService pool = Executors.newFixedThreadPool(replicas);
    try {
      Callable<Integer> replica = () -> new SchemaMigrator(dataSource(database)).migrate();
      List<Future<Integer>> runs = pool.invokeAll(List.of(replica, replica, replica), 2, TimeUnit.MINUTES);
      int applied = 0;
      for (Future<Integer> run : runs) {
        applied += run.get();
      }
      assertThat(applied).as("migrations applied by all replicas together").isEqualTo(6);
    } finally {
      pool.shutdownNow();
    }
    assertThat(database.queryLong(
            "SELECT count(*) FROM refresher.refresher_schema_history WHERE type = 'SQL' AND success"))
        .isEqualTo(6);
  }

  /** A copy of the first {@code migrations} files of db-migrations/, as an older release ships them. */
  private Path release(String name, int migrations) throws IOException {
    Path release = Files.createDirectory(dir.resolve(name));
    List<Path> files;
    try (Stream<Path> listed = Files.list(MIGRATIONS)) {
      files = listed.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql")).toList();
    }
    assertThat(files).as("the shipped migrations").hasSize(6);
    for (Path file : files) {
      int version = Integer.parseInt(file.getFileName().toString().replaceAll("^V(\\d+)__.*", "$1"));
      if (version <= migrations) {
        Files.copy(file, release.resolve(file.getFileName()));
      }
    }
    return release;
  }

  private static String location(Path release) {
    return "filesystem:" + release.toAbsolutePath();
  }

  private static PGSimpleDataSource dataSource(TestDatabase database) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(database.url());
    dataSource.setUser(database.user());
    dataSource.setPassword(database.password());
    return dataSource;
  }
}

package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.refresher.persistence.SchemaMigrator;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code database.migrateAtStart: false}, as the Kubernetes prod overlay starts the service after
 * the migration Job: the service does not migrate, refuses to start while migrations are pending
 * and starts normally once {@code db migrate} has run.
 */
class MigrateAtStartIT {

  private static TestRedis redis;

  @BeforeAll
  static void servers() {
    redis = RealServers.newRedis();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @Test
  void start_migrateAtStartFalseOnEmptyDatabase_refusesNamingDbMigrateAndCreatesNothing() throws Exception {
    TestDatabase database = RealServers.newDatabase("migrate_at_start_refused");
    TestApp app = TestApp.on("migrate_at_start_refused", database, redis, "database.migrateAtStart", "false");

    Throwable failure = catchThrowable(() -> app.extension().before());
    try {
      assertThat(failure).as("the start fails").isNotNull();
      Assertions.assertThat(causes(failure))
          .anySatisfy(cause -> assertThat(cause)
              .isInstanceOf(SchemaMigrator.PendingMigrationsException.class)
              .hasMessageContaining("6 migration(s) pending")
              .hasMessageContaining("db migrate"));
      assertThat(database.queryLong("SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'refresher'"))
          .as("nothing migrated")
          .isZero();
    } finally {
      app.extension().after();
    }
  }

  @Test
  void start_migrateAtStartFalseAfterDbMigrate_startsReady() throws Exception {
    TestDatabase database = RealServers.newDatabase("migrate_at_start_done");
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(database.url());
    dataSource.setUser(database.user());
    dataSource.setPassword(database.password());
    new SchemaMigrator(dataSource).migrate();
    TestApp app = TestApp.on("migrate_at_start_done", database, redis, "database.migrateAtStart", "false");

    app.extension().before();
    try {
      await("ready")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> {
            try (Response ready = app.api("/health-check").queryParam("type", "ready").request().get()) {
              assertThat(ready.getStatus()).isEqualTo(200);
            }
          });
      try (Response registered = app.putKey("stamped:1", "{\"source\":\"stamped\",\"params\":{\"id\":1},\"ttl\":\"PT10S\"}")) {
        assertThat(registered.getStatus()).isEqualTo(201);
      }
    } finally {
      app.extension().after();
    }
  }

  private static java.util.List<Throwable> causes(Throwable failure) {
    java.util.List<Throwable> chain = new java.util.ArrayList<>();
    for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }
}

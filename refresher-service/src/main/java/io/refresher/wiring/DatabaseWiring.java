package io.refresher.wiring;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.refresher.config.RegistryDatabaseFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.health.PostgresHealthCheck;
import io.refresher.persistence.DatabaseAvailability;
import io.refresher.persistence.DatabaseProbe;
import io.refresher.persistence.FailFastDataSource;
import io.refresher.persistence.SchemaMigrator;
import java.time.InstantSource;
import org.jdbi.v3.core.Jdbi;

/**
 * The service's own PostgreSQL: the registry's pool behind the schema check, the probe that knows
 * when PostgreSQL is away, the {@code postgres} health check, and Quartz's pool.
 *
 * @param registry every read and write of the registry; refuses at once while the probe knows
 *     PostgreSQL is down, instead of every request and dispatcher batch waiting out the pool's
 *     connection timeout
 * @param quartzPool Quartz holds connections for its row locks and cluster check-ins; on a small
 *     pool of its own it never makes the dispatcher's registration lookups wait for a connection
 * @param availability what the probe found: the console's overview shows it
 */
record DatabaseWiring(Jdbi registry, HikariDataSource quartzPool, DatabaseAvailability availability) {

  /** Connections beside Quartz's threads: its cluster check-in and misfire handler hold their own. */
  private static final int QUARTZ_EXTRA_CONNECTIONS = 3;

  static DatabaseWiring wire(RefresherConfiguration config, Environment environment, InstantSource localClock) {
    RegistryDatabaseFactory database = config.getDatabase();
    HikariDataSource registryPool =
        database.build(environment, "refresher-registry", false, database.getMaxPoolSize(), SchemaMigrator.SCHEMA);
    // migrateAtStart false: a separate `db migrate` (the Kubernetes migration Job) migrates, and a
    // replica only checks that it finds the schema its release needs, refusing to start otherwise.
    SchemaMigrator migrator = new SchemaMigrator(registryPool);
    if (database.isMigrateAtStart()) {
      migrator.migrate();
    } else {
      migrator.validate();
    }
    DatabaseAvailability availability = new DatabaseAvailability(localClock);
    DatabaseProbe probe =
        new DatabaseProbe(
            database::openProbeConnection,
            availability,
            database.getProbeInterval().toJavaDuration(),
            localClock,
            environment.lifecycle().scheduledExecutorService("postgres-probe-%d").threads(1).build());
    environment.lifecycle().manage(Lifecycles.managed("PostgreSQL probe", probe::start, probe::stop));
    environment.healthChecks().register("postgres", new PostgresHealthCheck(availability, localClock));

    int quartzConnections = config.getScheduler().getQuartzThreads() + QUARTZ_EXTRA_CONNECTIONS;
    HikariDataSource quartzPool =
        database.build(environment, "refresher-quartz", false, quartzConnections, SchemaMigrator.SCHEMA);
    return new DatabaseWiring(Jdbi.create(new FailFastDataSource(registryPool, availability)), quartzPool, availability);
  }
}

package io.refresher.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.refresher.config.RefresherConfiguration;
import io.refresher.persistence.SchemaMigrator;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code db migrate config.yml}: applies the schema migrations and exits. */
public final class DbCommand extends ConfiguredCommand<RefresherConfiguration> {

  public DbCommand() {
    super("db", "Manages the service's database schema (db migrate <config.yml>)");
  }

  @Override
  public void configure(Subparser subparser) {
    subparser.addArgument("action").choices("migrate").help("migrate: apply pending migrations");
    super.configure(subparser);
  }

  @Override
  protected void run(Bootstrap<RefresherConfiguration> bootstrap, Namespace namespace, RefresherConfiguration config) {
    try (HikariDataSource dataSource = config.getDatabase().build("migrate", false, 2, SchemaMigrator.SCHEMA)) {
      int applied = new SchemaMigrator(dataSource).migrate();
      System.out.println("Applied " + applied + " migrations.");
    }
  }
}

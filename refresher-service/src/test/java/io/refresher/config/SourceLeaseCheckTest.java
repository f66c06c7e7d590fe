package io.refresher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source whose worst case (rate wait, its queries or requests, the second computation after an
 * "unchanged" whose value was gone) does not fit under {@code refresh.lockLease} is refused at
 * start, naming the source, each part and the lease. Before the check such configurations started:
 * a read could outlive the lock and the concurrency slot it ran under (StreamedReadDeadlineIT).
 */
class SourceLeaseCheckTest {

  private static final String ADMIN =
      """
      admin:
        token: 0123456789abcdef
      """;

  private final YamlConfigurationFactory<RefresherConfiguration> factory =
      new YamlConfigurationFactory<>(RefresherConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

  @TempDir Path dir;

  @Test
  void check_sqlTimeoutEqualToTheLease_failsNamingSourceAndLease() throws Exception {
    String message =
        failure(
            database("")
                + """
                refresh:
                  lockLease: 5s
                sources:
                  report:
                    sql: SELECT 1
                    timeout: 5s
                """);

    assertThat(message)
        .contains("sources.report.timeout does not fit under refresh.lockLease (5 s)")
        .contains("the worst case of one refresh is sql 5 s = 5 s");
  }

  @Test
  void check_rateWaitAndVersionQuery_countsEachPart() throws Exception {
    String message =
        failure(
            database("  maxQueriesPerSecond: 50\n  maxWait: 4s\n")
                + """
                refresh:
                  lockLease: 10s
                sources:
                  product:
                    sql: SELECT name FROM product WHERE id = :id
                    versionSql: SELECT updated_at FROM product WHERE id = :id
                    params: { id: long }
                    timeout: 2s
                """);

    assertThat(message)
        .contains("sources.product.timeout does not fit under refresh.lockLease (10 s)")
        .contains(
            "rate wait 4 s (database.maxWait) + versionSql 2 s + versionSql again after an 'unchanged' whose value was gone 2 s"
                + " + sql 2 s = 10 s");
  }

  @Test
  void check_httpSource_countsTheRequestTwiceAndItsEndpointsRateWait() throws Exception {
    String message =
        failure(
            database("")
                + """
                httpEndpoints:
                  catalog:
                    baseUrl: http://catalog.internal:8080
                    maxQueriesPerSecond: 10
                    maxWait: 1500ms
                refresh:
                  lockLease: 6s
                sources:
                  item:
                    http:
                      endpoint: catalog
                      path: /items/{id}
                    params: { id: long }
                    timeout: 2500ms
                """);

    assertThat(message)
        .contains("sources.item.timeout does not fit under refresh.lockLease (6 s)")
        .contains("rate wait 1500 ms (httpEndpoints.catalog.maxWait) + request 2500 ms + request again after a 304 whose value was gone 2500 ms = 6500 ms");
  }

  @Test
  void check_everySourceBelowTheLease_starts() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("config.yml"),
            database("  maxQueriesPerSecond: 50\n  maxWait: 4s\n")
                + """
                refresh:
                  lockLease: 10s
                sources:
                  product:
                    sql: SELECT name FROM product WHERE id = :id
                    versionSql: SELECT updated_at FROM product WHERE id = :id
                    params: { id: long }
                    timeout: 1999ms
                  report:
                    sql: SELECT 1
                    datasource: reports
                    timeout: 9s
                datasources:
                  reports:
                    url: jdbc:postgresql://localhost:5432/reports
                    maxConcurrent: 2
                    maxWait: 30s
                """);

    // the reports datasource bounds concurrency only: its wait for a slot comes before the leases
    RefresherConfiguration config = factory.build(new FileConfigurationSourceProvider(), file.toString());

    assertThat(config.getSources()).containsKeys("product", "report");
  }

  @Test
  void check_shippedDefaults_fit() {
    RefresherConfiguration config = new RefresherConfiguration();
    SourceFactory source = new SourceFactory();
    source.setSql("SELECT 1");
    source.setVersionSql("SELECT 1");
    config.getSources().put("defaults", source);
    config.setDatabase(new RegistryDatabaseFactory());

    // 3 x 5 s (and no rate wait without maxQueriesPerSecond) under the default 30 s lease
    assertThat(SourceLeaseCheck.check(config)).isEmpty();
  }

  private static String database(String extra) {
    return """
        database:
          url: jdbc:postgresql://localhost:5432/refresher
          user: refresher
          password: secret
        """
        + extra
        + ADMIN;
  }

  private String failure(String yaml) throws Exception {
    Path file = Files.writeString(dir.resolve("config.yml"), yaml);
    ConfigurationValidationException e =
        catchThrowableOfType(
            ConfigurationValidationException.class, () -> factory.build(new FileConfigurationSourceProvider(), file.toString()));
    assertThat(e).as("configuration should have been refused").isNotNull();
    return e.getMessage();
  }
}

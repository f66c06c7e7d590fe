package io.refresher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.refresher.refresh.DispatchSettings;
import io.refresher.refresh.RefreshSettings;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RefresherConfigurationTest {

  private static final String DATABASE =
      """
      database:
        url: jdbc:postgresql://localhost:5432/refresher
        user: refresher
        password: secret
      """;

  private static final String ADMIN =
      """
      admin:
        token: 0123456789abcdef
      """;

  private final YamlConfigurationFactory<RefresherConfiguration> factory =
      new YamlConfigurationFactory<>(
          RefresherConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

  @TempDir Path dir;

  @Test
  void jsonLogLayout_isAnOption_andItsLinesAreJsonWithTheRequestIdAndTheRefreshsKey() throws Exception {
    RefresherConfiguration config =
        load(
            DATABASE
                + ADMIN
                + """
                logging:
                  appenders:
                    - type: console
                      layout:
                        type: json
                """);
    var appender =
        (io.dropwizard.logging.common.ConsoleAppenderFactory<?>)
            ((io.dropwizard.logging.common.DefaultLoggingFactory) config.getLoggingFactory()).getAppenders().get(0);
    @SuppressWarnings("unchecked")
    var layoutFactory =
        (io.dropwizard.logging.common.layout.DiscoverableLayoutFactory<ch.qos.logback.classic.spi.ILoggingEvent>)
            appender.getLayout();
    var context = new ch.qos.logback.classic.LoggerContext();
    var layout = layoutFactory.build(context, java.util.TimeZone.getTimeZone("UTC"));
    layout.start();
    var event =
        new ch.qos.logback.classic.spi.LoggingEvent(
            "io.refresher.refresh.Refresher",
            context.getLogger("io.refresher.refresh.Refresher"),
            ch.qos.logback.classic.Level.WARN,
            "refresh of key \"{}\" failed",
            null,
            new Object[] {"product:42"});
    event.setMDCPropertyMap(java.util.Map.of("requestId", "deploy-42", "key", "product:42", "source", "products"));

    var line = Jackson.newObjectMapper().readTree(layout.doLayout(event));

    assertThat(line.path("level").asText()).isEqualTo("WARN");
    assertThat(line.path("message").asText()).isEqualTo("refresh of key \"product:42\" failed");
    assertThat(line.path("mdc").path("requestId").asText()).isEqualTo("deploy-42");
    assertThat(line.path("mdc").path("key").asText()).isEqualTo("product:42");
    assertThat(line.path("mdc").path("source").asText()).isEqualTo("products");
  }

  @Test
  void build_minimalFile_hasDocumentedDefaults() throws Exception {
    RefresherConfiguration config = load(DATABASE + ADMIN);

    RedisFactory redis = config.getRedis();
    assertThat(redis.getUrl()).isEqualTo("redis://127.0.0.1:6379");
    assertThat(redis.getTimeout()).isEqualTo(Duration.seconds(3));
    assertThat(redis.getConnectTimeout()).isEqualTo(Duration.seconds(5));
    assertThat(redis.getConnectionPoolSize()).isEqualTo(64);

    RegistryDatabaseFactory database = config.getDatabase();
    assertThat(database.getUrl()).isEqualTo("jdbc:postgresql://localhost:5432/refresher");
    assertThat(database.getMaxPoolSize()).isEqualTo(10);
    assertThat(database.getConnectionTimeout()).isEqualTo(Duration.seconds(5));
    assertThat(database.getSocketTimeout()).isEqualTo(Duration.seconds(30));
    assertThat(database.getProbeInterval()).isEqualTo(Duration.seconds(1));
    assertThat(database.getProbeTimeout()).isEqualTo(Duration.seconds(2));
    assertThat(database.isMigrateAtStart()).isTrue();
    assertThat(database.getProperties()).isEmpty();

    assertThat(config.getDatasources()).isEmpty();
    assertThat(config.getSources()).isEmpty();

    RefreshFactory refresh = config.getRefresh();
    assertThat(refresh.getTtr().getInitial()).isEqualTo(Duration.seconds(5));
    assertThat(refresh.getTtr().getMin()).isEqualTo(Duration.seconds(1));
    assertThat(refresh.getTtr().getMax()).isEqualTo(Duration.minutes(5));
    assertThat(refresh.getMaxTtrFraction()).isEqualTo(0.5);
    assertThat(refresh.getLockLease()).isEqualTo(Duration.seconds(30));
    assertThat(refresh.getStaleGrace()).isEqualTo(Duration.minutes(5));
    assertThat(refresh.getJitter()).isEqualTo(0.1);
    assertThat(refresh.getRetryBase()).isEqualTo(Duration.milliseconds(500));
    assertThat(refresh.getRetryMax()).isEqualTo(Duration.minutes(1));
    assertThat(refresh.getMaxValueSize()).isEqualTo(DataSize.mebibytes(1));
    assertThat(refresh.build())
        .isEqualTo(
            new RefreshSettings(
                new io.refresher.refresh.TtrSettings(
                    java.time.Duration.ofSeconds(5),
                    java.time.Duration.ofSeconds(1),
                    java.time.Duration.ofMinutes(5),
                    0.95,
                    20,
                    0.5),
                0.5,
                java.time.Duration.ofSeconds(30),
                java.time.Duration.ofMinutes(5),
                0.1,
                java.time.Duration.ofMillis(500),
                java.time.Duration.ofMinutes(1),
                1024 * 1024));

    SchedulerFactory scheduler = config.getScheduler();
    assertThat(scheduler.getWorkers()).isEqualTo(16);
    assertThat(scheduler.getMaxInFlight()).isEqualTo(5000);
    assertThat(scheduler.getClaimBatch()).isEqualTo(500);
    assertThat(scheduler.getDueShards()).isEqualTo(4);
    assertThat(scheduler.getPollInterval()).isEqualTo(Duration.milliseconds(50));
    assertThat(scheduler.getLookahead()).isEqualTo(Duration.milliseconds(250));
    assertThat(scheduler.getClaimLease()).isEqualTo(Duration.seconds(30));
    assertThat(scheduler.getReconcileInterval()).isEqualTo(Duration.minutes(5));
    assertThat(scheduler.getEpochCheckInterval()).isEqualTo(Duration.seconds(1));
    assertThat(scheduler.getQuartzName()).isEqualTo("refresher");
    assertThat(scheduler.getQuartzThreads()).isEqualTo(3);
    AuditFactory audit = config.getAudit();
    assertThat(audit.getRound().toJavaDuration()).isEqualTo(java.time.Duration.ofSeconds(10));
    assertThat(audit.getSettle().toJavaDuration()).isEqualTo(java.time.Duration.ofSeconds(2));
    assertThat(audit.getMaxWait().toJavaDuration()).isEqualTo(java.time.Duration.ofMinutes(1));
    assertThat(audit.getWindow().toJavaDuration()).isEqualTo(java.time.Duration.ofHours(1));
    assertThat(audit.getObjective()).isEqualTo(0.999);
    assertThat(config.getDatabase().getAuditSamplesPerSecond()).as("the audit is off by default").isZero();
    assertThat(scheduler.build())
        .isEqualTo(
            new DispatchSettings(
                16,
                5000,
                500,
                java.time.Duration.ofMillis(50),
                java.time.Duration.ofMillis(250),
                java.time.Duration.ofSeconds(30)));

    assertThat(config.getAdmin().getToken()).isEqualTo("0123456789abcdef");
    assertThat(config.getAdmin().getMaxBodySize().toBytes()).isEqualTo(1024 * 1024);
    assertThat(config.getAdmin().getMaxParamLength()).isEqualTo(1000);
    assertThat(config.getAdmin().registrationLimits()).isEqualTo(io.refresher.registry.RegistrationLimits.DEFAULT);
  }

  @Test
  void build_sourceWithOnlySql_hasDocumentedSourceDefaults() throws Exception {
    RefresherConfiguration config =
        load(
            DATABASE
                + ADMIN
                + """
                sources:
                  server-time:
                    sql: SELECT now()
                """);

    SourceFactory source = config.getSources().get("server-time");
    assertThat(source.effectiveDatasource()).isEqualTo("default");
    assertThat(source.getParams()).isEmpty();
    assertThat(source.getResult()).isEqualTo(ResultShape.ROWS);
    assertThat(source.getTimeout()).isEqualTo(Duration.seconds(5));
  }

  @Test
  void build_fullSource_mapsEveryField() throws Exception {
    RefresherConfiguration config =
        load(
            DATABASE
                + ADMIN
                + """
                datasources:
                  catalog:
                    url: jdbc:postgresql://catalog-db:5432/catalog
                    user: reader
                    maxPoolSize: 16
                sources:
                  product-by-id:
                    datasource: catalog
                    sql: SELECT id, name FROM product WHERE id = :id AND active = :active
                    params: { id: long, active: boolean }
                    result: row
                    timeout: 2s
                """);

    assertThat(config.getDatasources().get("catalog").getMaxPoolSize()).isEqualTo(16);
    assertThat(config.getSources().get("product-by-id").build("product-by-id"))
        .isEqualTo(
            new SourceDefinition(
                "product-by-id",
                "catalog",
                "SELECT id, name FROM product WHERE id = :id AND active = :active",
                Map.of("id", ParamType.LONG, "active", ParamType.BOOLEAN),
                ResultShape.ROW,
                java.time.Duration.ofSeconds(2)));
  }

  @Test
  void build_shippedConfigWithLiteralValues_isValid() throws Exception {
    // The config.yml at the repository root, with its variables given literal values here rather
    // than read from the environment.
    Path shipped = Path.of("..", "config.yml").toAbsolutePath().normalize();
    assertThat(shipped).exists();
    StringSubstitutor literals =
        new StringSubstitutor(
            Map.of(
                "REFRESHER_DB_URL", "jdbc:postgresql://localhost:5432/refresher",
                "REFRESHER_DB_USER", "refresher",
                "REFRESHER_DB_PASSWORD", "secret",
                "REFRESHER_ADMIN_TOKEN", "0123456789abcdef0123"));
    literals.setEnableUndefinedVariableException(true);

    RefresherConfiguration config =
        factory.build(
            new SubstitutingSourceProvider(new FileConfigurationSourceProvider(), literals), shipped.toString());

    assertThat(config.getRedis().getUrl()).isEqualTo("redis://127.0.0.1:6379");
    assertThat(config.getDatabase().getUrl()).isEqualTo("jdbc:postgresql://localhost:5432/refresher");
    assertThat(config.getSources()).containsKey("server-time");
    assertThat(config.getSources().get("server-time").getResult()).isEqualTo(ResultShape.SCALAR);
    // REFRESHER_ADMIN_READ_TOKEN and REFRESHER_REDIS_CA_CERTIFICATE unset: no read-only token, the JVM's trust store.
    assertThat(config.getAdmin().getReadToken()).isNull();
    assertThat(config.getRedis().getCaCertificate()).isNull();
    assertThat(config.getRedis().getTlsVerification()).isEqualTo(RedisFactory.TlsVerification.STRICT);
  }

  @Test
  void build_paramsNotMatchingSql_failsNamingSourceParams() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  product-by-id:
                    sql: SELECT * FROM product WHERE id = :id
                    params: { sku: string }
                """);

    assertThat(message)
        .contains("sources.product-by-id.params")
        .contains("sql uses [id], params declares [sku]");
  }

  @Test
  void build_sqlParamUndeclared_failsNamingSourceParams() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  search:
                    sql: SELECT * FROM product WHERE name LIKE :q LIMIT :limit
                    params: { q: string }
                """);

    assertThat(message).contains("sources.search.params").contains("sql uses [limit, q], params declares [q]");
  }

  @Test
  void build_valueTtlAndNotFound_mapped() throws Exception {
    RefresherConfiguration config =
        load(
            DATABASE
                + ADMIN
                + """
                sources:
                  offer:
                    sql: SELECT title, ttl_s FROM offer WHERE id = :id
                    params: { id: long }
                    result: row
                    valueTtl: { column: ttl_s, min: 30s, max: 10m }
                    notFound: { ttl: 20s }
                """);

    io.refresher.source.SourceDefinition offer = config.getSources().get("offer").build("offer");
    assertThat(offer.valueTtl()).isEqualTo(new io.refresher.source.ValueTtl("ttl_s", false, java.time.Duration.ofSeconds(30), java.time.Duration.ofMinutes(10)));
    assertThat(offer.notFound()).isEqualTo(new io.refresher.source.NotFound(java.time.Duration.ofSeconds(20), java.util.Set.of()));
  }

  @Test
  void build_batchForm() throws Exception {
    RefresherConfiguration config =
        load(
            DATABASE
                + ADMIN
                + """
                sources:
                  product:
                    sql: SELECT id, name FROM product WHERE id = :id
                    params: { id: long }
                    result: row
                    batch:
                      sql: SELECT id, name FROM product WHERE id = ANY(:id)
                      keyColumn: id
                      maxBatch: 200
                      window: 500ms
                """);

    io.refresher.source.SourceDefinition product = config.getSources().get("product").build("product");
    assertThat(product.batch())
        .isEqualTo(new io.refresher.source.BatchForm("SELECT id, name FROM product WHERE id = ANY(:id)", "id", 200, java.time.Duration.ofMillis(500)));
    assertThat(product.batch().aligned(12_345)).as("earlier only, on the window's grid").isEqualTo(12_000);
  }

  @Test
  void build_batchFormThatCannotWork_failsNamingEachRule() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  pair:
                    sql: SELECT v FROM t WHERE a = :a AND b = :b
                    params: { a: long, b: long }
                    result: rows
                    versionSql: SELECT 1
                    batch:
                      sql: SELECT v FROM t WHERE a = ANY(:c)
                      keyColumn: a
                      maxBatch: 0
                """);

    assertThat(message)
        .contains("sources.pair.batch needs a source with exactly one parameter")
        .contains("sources.pair.batch needs result row or scalar")
        .contains("sources.pair.batch cannot be combined with versionSql")
        .contains("sources.pair.batch.sql must use exactly the source's parameter [a, b]")
        .contains("maxBatch");
  }

  @Test
  void build_valueTtlOnRowsWithoutColumn_andNotFoundOnRows_failNamingThem() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  offers:
                    sql: SELECT * FROM offer
                    valueTtl: { cacheControl: true }
                    notFound: { ttl: 20s, httpStatus: [404] }
                """);

    assertThat(message)
        .contains("sources.offers.valueTtl.column must name the column holding the TTL in seconds")
        .contains("sources.offers.valueTtl.cacheControl is for HTTP sources")
        .contains("sources.offers.notFound needs result row or scalar")
        .contains("sources.offers.notFound.httpStatus is for HTTP sources");
  }

  @Test
  void build_unknownDatasource_failsNamingSourceDatasource() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  product-by-id:
                    datasource: catalog
                    sql: SELECT * FROM product WHERE id = :id
                    params: { id: long }
                """);

    assertThat(message).contains("sources.product-by-id.datasource").contains("must be 'default' or one of []");
    assertThat(message).doesNotContain("sources.product-by-id.params");
  }

  @Test
  void build_sourceTimeoutNotBelowSocketTimeout_failsNamingSourceTimeout() throws Exception {
    String message =
        failure(
            """
            database:
              url: jdbc:postgresql://localhost:5432/refresher
              socketTimeout: 10s
            """
                + ADMIN
                + """
                sources:
                  report:
                    sql: SELECT 1
                    timeout: 10s
                """);

    assertThat(message).contains("sources.report.timeout").contains("must be below its datasource's socketTimeout (10 seconds)");
  }

  @Test
  void build_positionalParameters_failsNamingSourceSql() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  product-by-id:
                    sql: SELECT * FROM product WHERE id = ?
                """);

    assertThat(message).contains("sources.product-by-id.sql").contains("must use :named parameters");
  }

  @Test
  void build_invalidSourceName_failsNamingSource() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                sources:
                  Product_By_Id:
                    sql: SELECT 1
                """);

    assertThat(message).contains("sources.Product_By_Id name must match");
  }

  @Test
  void build_datasourceNamedDefault_failsAsReserved() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                datasources:
                  default:
                    url: jdbc:postgresql://other:5432/db
                """);

    assertThat(message).contains("datasources.default is reserved");
  }

  @Test
  void build_shortAdminToken_failsNamingAdminToken() throws Exception {
    String message =
        failure(
            DATABASE
                + """
                admin:
                  token: too-short
                """);

    assertThat(message).contains("admin.token").contains("must be at least 16 characters");
  }

  @Test
  void build_adminMaxBodySize_mapped() throws Exception {
    RefresherConfiguration config =
        load(
            DATABASE
                + """
                admin:
                  token: 0123456789abcdef
                  maxBodySize: 64KiB
                """);

    assertThat(config.getAdmin().getMaxBodySize().toBytes()).isEqualTo(64 * 1024);
  }

  @Test
  void build_adminMaxBodySizeBelowOneKibibyte_failsNamingIt() throws Exception {
    String message =
        failure(
            DATABASE
                + """
                admin:
                  token: 0123456789abcdef
                  maxBodySize: 100B
                """);

    assertThat(message).contains("admin.maxBodySize");
  }

  @Test
  void build_tokenLists_overlapOldAndNewTokens_blanksIgnored() throws Exception {
    AdminFactory admin =
        load(
                DATABASE
                    + """
                    admin:
                      token: current-admin-token-0123
                      tokens: [next-admin-token-01234, ""]
                      readTokens: [current-read-token-0123, next-read-token-012345, " "]
                    """)
            .getAdmin();

    assertThat(admin.adminTokens()).containsExactly("current-admin-token-0123", "next-admin-token-01234");
    assertThat(admin.allReadTokens()).containsExactly("current-read-token-0123", "next-read-token-012345");
    assertThat(admin.toString()).doesNotContain("0123").contains("2 admin token(s)");
  }

  @Test
  void build_tokensWithoutToken_isEnough() throws Exception {
    assertThat(load(DATABASE + "admin:\n  tokens: [only-listed-token-0123]\n").getAdmin().adminTokens())
        .containsExactly("only-listed-token-0123");
  }

  @Test
  void build_shortListedToken_orOneInBothRoles_fails() throws Exception {
    assertThat(failure(DATABASE + ADMIN + "  tokens: [short]\n")).contains("every entry of tokens and readTokens must be at least 16 characters");
    assertThat(failure(DATABASE + ADMIN + "  readTokens: [0123456789abcdef]\n"))
        .contains("no token may be both an admin token (token, tokens) and a read token (readToken, readTokens)");
  }

  @Test
  void build_missingAdminToken_failsNamingAdminToken() throws Exception {
    String message = failure(DATABASE);

    assertThat(message).contains("admin.token");
  }

  @Test
  void build_withoutReadToken_hasNoReadToken() throws Exception {
    assertThat(load(DATABASE + ADMIN).getAdmin().getReadToken()).isNull();
    // config.yml's reference to an unset REFRESHER_ADMIN_READ_TOKEN substitutes as nothing.
    assertThat(load(DATABASE + "admin:\n  token: 0123456789abcdef\n  readToken:\n").getAdmin().getReadToken()).isNull();
  }

  @Test
  void build_readToken_isRead() throws Exception {
    RefresherConfiguration config =
        load(DATABASE + "admin:\n  token: 0123456789abcdef\n  readToken: read-0123456789abcdef\n");

    assertThat(config.getAdmin().getReadToken()).isEqualTo("read-0123456789abcdef");
    assertThat(config.getAdmin().toString()).doesNotContain("0123456789abcdef");
  }

  @Test
  void build_shortReadToken_failsNamingReadToken() throws Exception {
    String message = failure(DATABASE + "admin:\n  token: 0123456789abcdef\n  readToken: too-short\n");

    assertThat(message).contains("admin.readToken").contains("must be at least 16 characters");
    assertThat(message).doesNotContain("too-short");
  }

  @Test
  void build_readTokenEqualToAdminToken_fails() throws Exception {
    String message = failure(DATABASE + "admin:\n  token: 0123456789abcdef\n  readToken: 0123456789abcdef\n");

    assertThat(message).contains("readToken must differ from token");
    assertThat(message).doesNotContain("0123456789abcdef");
  }

  @Test
  void build_malformedRedisUrl_fails() throws Exception {
    for (String url : new String[] {"http://localhost:6379", "redis://", "redis://host:6379/not-a-db", "not a url"}) {
      String message = failure(DATABASE + ADMIN + "redis:\n  url: \"" + url + "\"\n");

      assertThat(message).as(url).contains("url must look like redis://");
    }
  }

  @Test
  void build_wellFormedRedisUrls_areAccepted() throws Exception {
    for (String url :
        new String[] {"redis://localhost", "redis://:pw@redis:6380/2", "rediss://user:p%40ss@cache.example.com:6380"}) {
      RefresherConfiguration config = load(DATABASE + ADMIN + "redis:\n  url: \"" + url + "\"\n");

      assertThat(config.getRedis().isUrlValid()).as(url).isTrue();
    }
  }

  @Test
  void build_redisTlsSettings_areRead() throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "not checked until the client is built");
    RefresherConfiguration config =
        load(DATABASE + ADMIN + "redis:\n  url: rediss://cache:6380\n  caCertificate: " + ca + "\n  tlsVerification: ca-only\n");

    assertThat(config.getRedis().getCaCertificate()).isEqualTo(ca.toString());
    assertThat(config.getRedis().getTlsVerification()).isEqualTo(RedisFactory.TlsVerification.CA_ONLY);
    assertThat(load(DATABASE + ADMIN).getRedis().getTlsVerification()).isEqualTo(RedisFactory.TlsVerification.STRICT);
  }

  @Test
  void build_redisTrustWithoutTls_failsNamingTheRule() throws Exception {
    String message =
        failure(DATABASE + ADMIN + "redis:\n  url: redis://cache:6379\n  caCertificate: " + dir.resolve("missing.pem") + "\n");

    assertThat(message).contains("need a rediss:// url").contains("caCertificate must name a readable file");
  }

  @Test
  void build_retryMaxBelowRetryBase_fails() throws Exception {
    String message =
        failure(
            DATABASE
                + ADMIN
                + """
                refresh:
                  retryBase: 10s
                  retryMax: 1s
                """);

    assertThat(message).contains("retryMax must not be shorter than retryBase");
  }

  @Test
  void build_missingDatabase_failsNamingDatabase() throws Exception {
    String message = failure(ADMIN);

    assertThat(message).contains("database");
  }

  private RefresherConfiguration load(String yaml) throws IOException, ConfigurationException {
    Path file = Files.writeString(dir.resolve("config.yml"), yaml);
    return factory.build(new FileConfigurationSourceProvider(), file.toString());
  }

  /** Loads a file that must fail validation; returns the message listing every violation. */
  private String failure(String yaml) throws IOException {
    Path file = Files.writeString(dir.resolve("config.yml"), yaml);
    ConfigurationValidationException e =
        catchThrowableOfType(
            ConfigurationValidationException.class,
            () -> factory.build(new FileConfigurationSourceProvider(), file.toString()));
    assertThat(e).as("configuration should have been refused").isNotNull();
    return e.getMessage();
  }
}

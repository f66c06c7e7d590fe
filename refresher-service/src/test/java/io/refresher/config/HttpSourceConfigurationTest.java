package io.refresher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.refresher.http.HttpEndpointSettings;
import io.refresher.source.HttpRequestSpec;
import io.refresher.source.SourceDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HTTP endpoints and sources in {@code config.yml}: a well-formed one maps to what the adapter
 * takes; a broken one stops the service at start with a message naming the field and the rule.
 */
class HttpSourceConfigurationTest {

  private static final String BASE =
      """
      database:
        url: jdbc:postgresql://localhost:5432/refresher
        user: refresher
        password: secret
      admin:
        token: 0123456789abcdef
      httpEndpoints:
        catalog-api:
          baseUrl: https://catalog.internal:8443/api
          headers:
            Authorization: Bearer not-a-real-token-7f3a
      """;

  private final YamlConfigurationFactory<RefresherConfiguration> factory =
      new YamlConfigurationFactory<>(
          RefresherConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

  @TempDir Path dir;

  /** A source block under {@code sources:} with the given {@code http:} lines (indented for it) and params. */
  private static String source(String http, String params) {
    return BASE
        + "sources:\n  product:\n    http:\n      endpoint: catalog-api\n"
        + http.indent(6)
        + (params.isEmpty() ? "" : "    params: {" + params + "}\n");
  }

  @Test
  void build_fullHttpSource_mapsEveryField() throws Exception {
    RefresherConfiguration config =
        load(
            source(
                """
                method: post
                path: /products/{id}
                query: { lang: "{lang}", fields: "name,price" }
                headers: { Accept: application/json, X-Tenant: "t-{tenant}" }
                body: { id: "{id}", note: "for {tenant}" }
                acceptStatus: [200, 203]
                pointer: /data
                """,
                "id: long, lang: string, tenant: string")
                + "    timeout: 3s\n");

    SourceDefinition source = config.getSources().get("product").build("product");
    HttpRequestSpec http = source.http();
    assertThat(source.isHttp()).isTrue();
    assertThat(source.datasource()).isEqualTo("catalog-api");
    assertThat(source.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(http.method()).isEqualTo("POST");
    assertThat(http.path()).isEqualTo("/products/{id}");
    assertThat(http.query()).containsExactly(java.util.Map.entry("lang", "{lang}"), java.util.Map.entry("fields", "name,price"));
    assertThat(http.headers()).containsEntry("X-Tenant", "t-{tenant}");
    assertThat(http.body().get("id").textValue()).isEqualTo("{id}");
    assertThat(http.acceptStatus()).containsExactly(200, 203);
    assertThat(http.pointer()).isEqualTo("/data");

    HttpEndpointSettings endpoint = config.getHttpEndpoints().get("catalog-api").settings("catalog-api");
    assertThat(endpoint.baseUrl()).hasToString("https://catalog.internal:8443/api");
    assertThat(endpoint.maxConnections()).isEqualTo(16);
    assertThat(endpoint.toString()).doesNotContain("not-a-real-token");
  }

  @Test
  void build_minimalHttpSource_hasGetAnd200() throws Exception {
    RefresherConfiguration config = load(source("path: /products/{id}\n", "id: long"));

    HttpRequestSpec http = config.getSources().get("product").build("product").http();
    assertThat(http.method()).isEqualTo("GET");
    assertThat(http.acceptStatus()).isEqualTo(Set.of(200));
    assertThat(http.pointer()).isNull();
    assertThat(http.body()).isNull();
  }

  @ParameterizedTest(name = "[{0}]")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "method: DELETE\\npath: /p/{id}                  | sources.product.http.method must be GET or POST",
        "path: /p/{id}\\nbody: {id: \"{id}\"}             | sources.product.http.body is only sent with method POST",
        "path: p/{id}                                    | sources.product.http.path must start with /",
        "path: /p/{id}?x=1                               | sources.product.http.path must not hold ? or #: query parameters go under query",
        "path: /p/{id}#top                               | sources.product.http.path must not hold ? or #",
        "path: /p/../{id}                                | sources.product.http.path must not have . or .. segments",
        "path: \"/p/{id\"                                | sources.product.http.path has '{' at position 3 that does not open a {param} placeholder",
        "path: \"/p/id}/{id}\"                           | sources.product.http.path has '}' at position 5 outside a placeholder",
        "path: \"/p/a b/{id}\"                           | sources.product.http.path must be URI path text: 'U+0020' must be percent-encoded",
        "path: \"/p/100%/{id}\"                          | sources.product.http.path must write % only as the start of an escape",
        "path: /p/{id}/{other}                           | sources.product.http.path uses {other}, which is not a declared parameter (params: [id])",
        "path: /p/{id}\\nquery: {q: \"{nope}\"}          | sources.product.http.query.q uses {nope}, which is not a declared parameter",
        "path: /p/{id}\\nheaders: {X-T: \"{nope}\"}      | sources.product.http.headers.X-T uses {nope}",
        "path: /p/{id}\\nheaders: {\"X T\": x}           | sources.product.http.headers.X T is not a valid header name",
        "path: /p/{id}\\nheaders: {Host: evil.example}   | sources.product.http.headers.Host is set by the HTTP client",
        "path: /p/{id}\\nheaders: {Accept-Encoding: gzip} | sources.product.http.headers.Accept-Encoding cannot be configured: a body is read and stored as sent",
        "method: POST\\npath: /p/{id}\\nbody: {a: [\"{nope}\"]} | sources.product.http.body.a[0] uses {nope}",
        "path: /p/{id}\\nacceptStatus: [200, 700]        | sources.product.http.acceptStatus must hold HTTP statuses from 100 to 599 (it has 700)",
        "path: /p/{id}\\nacceptStatus: [304]             | sources.product.http.acceptStatus must not hold 304",
        "path: /p/{id}\\npointer: data                   | sources.product.http.pointer must be a JSON Pointer: empty, or starting with /",
        "path: /p/{id}\\npointer: /a~2b                  | sources.product.http.pointer must be a JSON Pointer: ~ must be followed by 0 or 1",
        "path: /p                                        | sources.product.params declares [id], which the request never uses",
      })
  void build_brokenHttpSource_failsNamingFieldAndRule(String http, String message) throws Exception {
    String failure = failure(source(http.replace("\\n", "\n") + "\n", "id: long"));

    assertThat(failure).contains(message);
  }

  @Test
  void build_paramUsedOnlyInAHeaderOrBody_isUsed() throws Exception {
    load(source("method: POST\npath: /p\nheaders: {Accept-Language: \"{lang}\"}\nbody: {id: \"{id}\"}\n", "id: long, lang: string"));
  }

  @ParameterizedTest(name = "[{0}]")
  @CsvSource(
      delimiter = '|',
      value = {
        "ftp://catalog.internal/api                 | httpEndpoints.catalog-api.baseUrl must be an http:// or https:// URL",
        "https:///api                               | httpEndpoints.catalog-api.baseUrl must name a host",
        "https://user:pw@catalog.internal/api       | httpEndpoints.catalog-api.baseUrl must not hold user-info (user:password@)",
        "https://catalog.internal/api?key=1         | httpEndpoints.catalog-api.baseUrl must not have a query or fragment",
        "https://catalog.internal/api#x             | httpEndpoints.catalog-api.baseUrl must not have a query or fragment",
        "https://catalog internal/api               | httpEndpoints.catalog-api.baseUrl must be a URL such as https://",
        "catalog.internal/api                       | httpEndpoints.catalog-api.baseUrl must be an http:// or https:// URL",
      })
  void build_brokenBaseUrl_failsNamingTheRule(String baseUrl, String message) throws Exception {
    String failure = failure(BASE.replace("https://catalog.internal:8443/api", baseUrl));

    assertThat(failure).contains(message);
  }

  @Test
  void build_endpointHeaderValueWithLineBreak_failsWithoutShowingTheValue() throws Exception {
    String failure = failure(BASE.replace("Bearer not-a-real-token-7f3a", "\"Bearer not-a-real-token-7f3a\\r\\nX-Evil: 1\""));

    assertThat(failure)
        .contains("httpEndpoints.catalog-api.headers.Authorization must be a value of printable ASCII")
        .doesNotContain("not-a-real-token");
  }

  @Test
  void build_caCertificateWithPlainHttp_orUnreadable_fails() throws Exception {
    String failure =
        failure(
            BASE.replace("https://catalog.internal:8443/api", "http://catalog.internal/api")
                + "    caCertificate: " + dir.resolve("missing.pem") + "\n");

    assertThat(failure)
        .contains("httpEndpoints.catalog-api.caCertificate needs an https baseUrl")
        .contains("httpEndpoints.catalog-api.caCertificate must name a readable PEM file");
  }

  @Test
  void build_httpSourceWithSqlOnlyOptions_failsNamingEach() throws Exception {
    String failure =
        failure(source("path: /products/{id}\n", "id: long") + "    result: row\n    versionSql: SELECT 1\n");

    assertThat(failure)
        .contains("sources.product.result is for SQL sources; an HTTP source's value is its body, or the JSON at http.pointer")
        .contains("sources.product.versionSql is for SQL sources");
  }

  @Test
  void build_httpBatch_mapsTheRequestAndItsPointers() throws Exception {
    RefresherConfiguration config =
        load(
            source("path: /products/{id}\npointer: /data\n", "id: long")
                + """
                    batch:
                      http: { endpoint: catalog-api, method: POST, path: "/products:batchGet", body: { ids: "{id}" }, pointer: /items }
                      itemId: /id
                      itemValue: /data
                      maxBatch: 100
                """);

    io.refresher.source.BatchForm batch = config.getSources().get("product").build("product").batch();
    assertThat(batch.http().path()).isEqualTo("/products:batchGet");
    assertThat(batch.http().pointer()).isEqualTo("/items");
    assertThat(batch.itemId()).isEqualTo("/id");
    assertThat(batch.itemValue()).isEqualTo("/data");
    assertThat(batch.maxBatch()).isEqualTo(100);
    assertThat(batch.sql()).isNull();
  }

  @Test
  void build_httpBatchThatCannotWork_failsNamingEachRule() throws Exception {
    String message =
        failure(
            source("path: /products/{id}\n", "id: long")
                + """
                    batch:
                      http: { endpoint: other-api, method: GET, path: "/products", pointer: "" }
                      keyColumn: id
                """);

    assertThat(message)
        .contains("sources.product.batch of an HTTP source takes http, itemId and itemValue")
        .contains("sources.product.batch.http.endpoint must be the source's own endpoint 'catalog-api'")
        .contains("sources.product.batch.http.query of a GET batch request must hold the parameter as one query value, whole")
        .contains("sources.product.batch.http.pointer must point at the array of items")
        .contains("sources.product.batch.itemId must be the JSON Pointer");
  }

  @Test
  void build_httpBatchAsAQueryList_mapsTheRequest() throws Exception {
    RefresherConfiguration config =
        load(
            source("path: /products/{id}\n", "id: long")
                + """
                    batch:
                      http: { endpoint: catalog-api, method: GET, path: "/products", query: { id: "{id}", view: full }, pointer: /items }
                      itemId: /id
                      maxBatch: 50
                """);

    io.refresher.source.BatchForm batch = config.getSources().get("product").build("product").batch();
    assertThat(batch.http().method()).isEqualTo("GET");
    assertThat(batch.http().query()).containsEntry("id", "{id}").containsEntry("view", "full");
  }

  @Test
  void build_httpBatchWithTheParameterOutsideItsBodyOrQuery_failsNamingThePlace() throws Exception {
    String message =
        failure(
            source("path: /products/{id}\n", "id: long")
                + """
                    batch:
                      http: { endpoint: catalog-api, method: PUT, path: "/products/{id}", headers: { X-Ids: "{id}" }, body: { ids: "{id}" }, pointer: /items }
                      itemId: /id
                """);

    assertThat(message)
        .contains("sources.product.batch.http.method must be POST (the keys' values in its JSON body) or GET (the keys' values as a query list)")
        .contains("sources.product.batch.http.path must not hold the parameter")
        .contains("sources.product.batch.http.headers must not hold the parameter");
  }

  @Test
  void build_endpointNameUnfitForMetrics_fails() throws Exception {
    String failure = failure(BASE.replace("catalog-api:", "Catalog.API:"));

    assertThat(failure).contains("httpEndpoints.Catalog.API name must match [a-z0-9][a-z0-9_-]{0,63}");
  }

  private RefresherConfiguration load(String yaml) throws IOException, ConfigurationException {
    Path file = Files.writeString(dir.resolve("config.yml"), yaml);
    return factory.build(new FileConfigurationSourceProvider(), file.toString());
  }

  private String failure(String yaml) throws IOException {
    Path file = Files.writeString(dir.resolve("config.yml"), yaml);
    ConfigurationValidationException e =
        catchThrowableOfType(
            ConfigurationValidationException.class,
            () -> factory.build(new FileConfigurationSourceProvider(), file.toString()));
    assertThat(e).as("configuration should have been refused: " + yaml).isNotNull();
    return e.getMessage();
  }
}

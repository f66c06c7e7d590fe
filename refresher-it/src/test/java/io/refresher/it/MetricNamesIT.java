package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.PromQlNames;
import io.refresher.testing.PrometheusScrape;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.core.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Monitoring as code against the real exposition: every metric that an alert rule
 * (deploy/monitoring/refresher-rules.yml and prometheusrule.yaml) or a dashboard query
 * (refresher-dashboard.json) names is served at {@code /metrics/prometheus}, under exactly that
 * name, and the ones read by {@code rate()} or {@code increase()} are counters (or a histogram's or
 * summary's {@code _count}, {@code _sum}, {@code _bucket}). A renamed metric otherwise leaves an
 * alert that never fires and a panel that shows "No data", silently.
 *
 * <p>The service runs with a bounded datasource (so the per-datasource metrics exist), one key
 * whose source fails (so the per-source failure family exists), and change capture configured on a
 * database that cannot serve it (its metrics exist from the start; the reader only logs why it
 * cannot read), and the consistency audit on; names that appear only after such events would otherwise be missing from the
 * scrape.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class MetricNamesIT {

  private static final TestApp APP =
      TestApp.create(
          "metric_names",
          List.of(
              "CREATE TABLE test_switch (id bigint PRIMARY KEY, ok int NOT NULL)",
              "INSERT INTO test_switch VALUES (1, 1)"),
          "database.maxQueriesPerSecond", "1000",
          "database.auditSamplesPerSecond", "1", // the audit's families exist from the start
          "refresh.lockLease", "15s", // the rate wait (maxWait 10 s) and a source's timeout fit under it
          "database.capture.publication", "refresher_metric_names",
          "database.capture.tables.test_switch.keyColumn", "id");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  /** Series Prometheus makes itself for every target; never in the exposition. */
  private static final Set<String> SCRAPE_SERIES =
      Set.of("up", "scrape_duration_seconds", "scrape_samples_scraped", "scrape_series_added");
  private static final Set<String> COUNTING_TYPES = Set.of("counter");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An expression and where it is used, for the failure message. */
  private record Query(String where, String expr, boolean grafanaVariable) {}

  @Test
  void monitoringQueries_metricNames_allServedWithTheRightType() throws Exception {
    try (Response registered = APP.putKey("metric-names:1", "{\"source\":\"switchable\",\"params\":{\"id\":1},\"ttl\":\"PT2S\"}")) {
      assertThat(registered.getStatus()).isEqualTo(201);
    }
    APP.database().execute("UPDATE test_switch SET ok = 0 WHERE id = 1");
    String exposition =
        await("a failed refresh shows in the exposition")
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(250))
            .until(MetricNamesIT::scrape, body -> body.contains("refresher_source_failures_total{"));

    Map<String, String> types = new HashMap<>();
    Set<String> samples = new LinkedHashSet<>();
    for (String line : exposition.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        types.put(parts[2], parts[3]);
      } else if (!line.isBlank() && !line.startsWith("#")) {
        int end = line.indexOf('{') >= 0 ? line.indexOf('{') : line.indexOf(' ');
        samples.add(line.substring(0, end));
      }
    }

    List<Query> queries = queries();
    assertThat(queries).as("queries found in deploy/monitoring").hasSizeGreaterThan(30);
    List<String> problems = new ArrayList<>();
    for (Query query : queries) {
      List<PromQlNames.Use> uses =
          query.grafanaVariable() ? PromQlNames.ofGrafanaVariable(query.expr()) : PromQlNames.of(query.expr());
      assertThat(uses).as("metrics of %s: %s", query.where(), query.expr()).isNotEmpty();
      for (PromQlNames.Use use : uses) {
        if (SCRAPE_SERIES.contains(use.name())) {
          continue;
        }
        List<String> names =
            use.regex()
                ? samples.stream().filter(Pattern.compile(use.name()).asMatchPredicate()).toList()
                : samples.contains(use.name()) ? List.of(use.name()) : List.of();
        if (names.isEmpty()) {
          problems.add(String.format(
              "metric %s is not in %s, used in %s: %s", use.name(), "/metrics/prometheus", query.where(), query.expr().strip()));
          continue;
        }
        if (use.underCounterFunction()) {
          for (String name : names) {
            String type = typeOf(name, types);
            if (!COUNTING_TYPES.contains(type)) {
              problems.add(String.format(
                  "metric %s is a %s, but rate()/increase() need a counter, used in %s: %s",
                  name, type, query.where(), query.expr().strip()));
            }
          }
        }
      }
    }
    assertThat(problems).as("metric names of the alert rules and the dashboard").isEmpty();
  }

  /**
   * The type a name's series count as: a counter's own TYPE line, or {@code counter} for the
   * {@code _count}/{@code _sum}/{@code _bucket} series of a histogram or summary (rate() applies).
   */
  private static String typeOf(String name, Map<String, String> types) {
    String own = types.get(name);
    if (own != null) {
      return own;
    }
    for (String suffix : List.of("_count", "_sum", "_bucket")) {
      if (name.endsWith(suffix)) {
        String base = types.get(name.substring(0, name.length() - suffix.length()));
        if ("histogram".equals(base) || ("summary".equals(base) && !suffix.equals("_bucket"))) {
          return "counter";
        }
        if (base != null) {
          return base + " component";
        }
      }
    }
    return "series without a TYPE line";
  }

  private static List<Query> queries() throws Exception {
    Path monitoring = repoRoot().resolve("deploy/monitoring");
    List<Query> queries = new ArrayList<>();
    JsonNode rulesFile = YAML.readTree(monitoring.resolve("refresher-rules.yml").toFile());
    JsonNode prometheusRule = YAML.readTree(monitoring.resolve("prometheusrule.yaml").toFile()).path("spec");
    addRules(queries, "refresher-rules.yml", rulesFile);
    addRules(queries, "prometheusrule.yaml", prometheusRule);
    JsonNode dashboard = JSON.readTree(monitoring.resolve("refresher-dashboard.json").toFile());
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        queries.add(new Query(
            "refresher-dashboard.json, panel '" + panel.path("title").asText() + "' target " + target.path("refId").asText(),
            target.path("expr").asText(),
            false));
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if ("query".equals(variable.path("type").asText())) {
        JsonNode query = variable.path("query");
        queries.add(new Query(
            "refresher-dashboard.json, variable $" + variable.path("name").asText(),
            query.isObject() ? query.path("query").asText() : query.asText(),
            true));
      }
    }
    return queries;
  }

  private static void addRules(List<Query> queries, String file, JsonNode spec) {
    for (JsonNode group : spec.path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        String name = rule.has("alert") ? rule.path("alert").asText() : rule.path("record").asText();
        queries.add(new Query(file + ", rule " + name, rule.path("expr").asText(), false));
      }
    }
  }

  private static String scrape() {
    return PrometheusScrape.of(EXTENSION.getAdminPort());
  }

  private static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("deploy/monitoring"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("a parent directory with deploy/monitoring").isNotNull();
    return dir;
  }
}

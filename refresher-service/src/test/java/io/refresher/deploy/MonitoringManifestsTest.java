package io.refresher.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Offline checks of deploy/monitoring (the Prometheus Operator add-on). fabric8's Kubernetes model
 * has no PrometheusRule or PodMonitor type (those are in a monitoring model this build does not
 * use), so they are read as Jackson trees; the Deployment is fabric8's typed object.
 */
class MonitoringManifestsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");
  private static final Pattern RUNBOOK = Pattern.compile("^https://\\S+/docs/operations\\.md#([a-z0-9-]+)$");

  private static Path monitoring;
  private static Path repoRoot;
  private static JsonNode prometheusRule;
  private static JsonNode rulesFile;
  private static JsonNode podMonitor;
  private static Deployment deployment;

  @BeforeAll
  @SuppressWarnings("deprecation") // as in DeployManifestsTest: resolves kind to the typed model
  static void load() throws IOException {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(dir.resolve("deploy/monitoring"))) {
      dir = dir.getParent();
    }
    repoRoot = dir;
    monitoring = dir.resolve("deploy/monitoring");
    prometheusRule = YAML.readTree(monitoring.resolve("prometheusrule.yaml").toFile());
    rulesFile = YAML.readTree(monitoring.resolve("refresher-rules.yml").toFile());
    podMonitor = YAML.readTree(monitoring.resolve("podmonitor.yaml").toFile());
    try (InputStream in = Files.newInputStream(dir.resolve("deploy/base/deployment.yaml"))) {
      deployment = (Deployment) Serialization.unmarshal(in);
    }
  }

  @Test
  void prometheusRule_spec_equalsTheRulesFile() {
    // One set of rules in two forms; a change to one only would alert differently with and
    // without the Operator.
    assertThat(prometheusRule.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(prometheusRule.path("kind").asText()).isEqualTo("PrometheusRule");
    assertThat(prometheusRule.path("spec"))
        .as("prometheusrule.yaml's spec differs from refresher-rules.yml: run"
            + " 'sh deploy/monitoring/generate-prometheusrule.sh > deploy/monitoring/prometheusrule.yaml'")
        .isEqualTo(rulesFile);
  }

  @Test
  void alertRules_each_haveForSeveritySummaryDescriptionAndRunbook() {
    List<JsonNode> rules = rules();
    assertThat(rules).hasSizeGreaterThanOrEqualTo(12);
    Set<String> names = new LinkedHashSet<>();
    for (JsonNode rule : rules) {
      String name = rule.path("alert").asText();
      assertThat(name).as("every rule is an alert").startsWith("Refresher");
      assertThat(names.add(name)).as("%s is unique", name).isTrue();
      assertThat(rule.path("expr").asText()).as("%s expr", name).isNotBlank();
      assertThat(rule.path("for").asText()).as("%s for", name).matches("\\d+[smh]");
      assertThat(rule.path("labels").path("severity").asText()).as("%s severity", name).isIn(SEVERITIES);
      assertThat(rule.path("annotations").path("summary").asText()).as("%s summary", name).isNotBlank();
      assertThat(rule.path("annotations").path("description").asText()).as("%s description", name).isNotBlank();
      assertThat(rule.path("annotations").path("runbook_url").asText()).as("%s runbook_url", name).matches(RUNBOOK);
    }
  }

  @Test
  void alertRules_runbookAnchors_areHeadingsOfTheAlertSectionOfOperationsMd() throws IOException {
    Set<String> anchors = alertSectionAnchors();
    List<String> missing = new ArrayList<>();
    for (JsonNode rule : rules()) {
      Matcher runbook = RUNBOOK.matcher(rule.path("annotations").path("runbook_url").asText());
      assertThat(runbook.matches()).isTrue();
      if (!anchors.contains(runbook.group(1))) {
        missing.add(rule.path("alert").asText() + " -> #" + runbook.group(1));
      }
    }
    assertThat(missing).as("runbook anchors without a heading in docs/operations.md, 'Alerts worth having' (have %s)", anchors)
        .isEmpty();
  }

  @Test
  void podMonitor_selector_matchesTheDeploymentsPodLabels() {
    assertThat(podMonitor.path("kind").asText()).isEqualTo("PodMonitor");
    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    Map<String, String> selector = YAML.convertValue(podMonitor.path("spec").path("selector").path("matchLabels"), Map.class);
    assertThat(selector).isNotEmpty();
    assertThat(podLabels).containsAllEntriesOf(selector);
    // job="refresher" in the rules and the dashboard comes from this pod label.
    String jobLabel = podMonitor.path("spec").path("jobLabel").asText();
    assertThat(podLabels).containsEntry(jobLabel, "refresher");
  }

  @Test
  void podMonitor_endpoint_scrapesTheAdminContainerPortAtThePrometheusPath() {
    Set<String> portNames = new LinkedHashSet<>();
    deployment.getSpec().getTemplate().getSpec().getContainers()
        .forEach(container -> container.getPorts().stream().map(ContainerPort::getName).forEach(portNames::add));
    JsonNode endpoints = podMonitor.path("spec").path("podMetricsEndpoints");
    assertThat(endpoints.size()).isEqualTo(1);
    JsonNode endpoint = endpoints.get(0);
    assertThat(portNames).contains(endpoint.path("port").asText());
    assertThat(endpoint.path("port").asText()).isEqualTo("admin");
    assertThat(endpoint.path("path").asText()).isEqualTo(io.refresher.metrics.PrometheusEndpoint.PATH);
  }

  @Test
  void kustomization_listsThePodMonitorRulesAndDashboard() throws IOException {
    JsonNode kustomization = YAML.readTree(monitoring.resolve("kustomization.yaml").toFile());
    List<String> resources = new ArrayList<>();
    kustomization.path("resources").forEach(node -> resources.add(node.asText()));
    assertThat(resources).containsExactlyInAnyOrder("podmonitor.yaml", "prometheusrule.yaml");
    List<String> files = new ArrayList<>();
    kustomization.path("configMapGenerator").forEach(gen -> gen.path("files").forEach(f -> files.add(f.asText())));
    assertThat(files).containsExactly("refresher-dashboard.json");
    for (String file : List.of("podmonitor.yaml", "prometheusrule.yaml", "refresher-dashboard.json")) {
      assertThat(monitoring.resolve(file)).exists();
    }
  }

  @Test
  void dashboard_panels_eachHaveQueriesOnThePrometheusDatasource() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(monitoring.resolve("refresher-dashboard.json").toFile());
    assertThat(dashboard.path("uid").asText()).isEqualTo("refresher");
    List<String> titles = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        continue;
      }
      titles.add(panel.path("title").asText());
      assertThat(panel.path("targets").size()).as("targets of %s", panel.path("title")).isPositive();
      assertThat(panel.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
    }
    assertThat(titles).contains(
        "Refresh rate", "Refresh lag", "Failures by source", "Failures by kind", "Hot set size and cap",
        "Access counter lag", "Prewarm progress", "Redis and PostgreSQL health", "Heap", "GC", "Threads");
  }

  private static List<JsonNode> rules() {
    List<JsonNode> rules = new ArrayList<>();
    rulesFile.path("groups").forEach(group -> group.path("rules").forEach(rules::add));
    return rules;
  }

  /** GitHub's anchors of the headings under "## Alerts worth having", up to the next "## ". */
  private static Set<String> alertSectionAnchors() throws IOException {
    List<String> lines = Files.readAllLines(repoRoot.resolve("docs/operations.md"));
    Set<String> anchors = new LinkedHashSet<>();
    boolean inSection = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## Alerts worth having");
      } else if (inSection && line.startsWith("### ")) {
        anchors.add(line.substring(4).strip().toLowerCase().replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
      }
    }
    return anchors;
  }
}

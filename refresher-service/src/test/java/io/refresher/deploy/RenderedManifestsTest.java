package io.refresher.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.refresher.config.RefresherConfiguration;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.commons.text.StringSubstitutor;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * deploy/ as kustomize renders it: the base and both overlays (dev and prod), and the migration
 * Job, each rendered by {@link Kustomize} (compared with {@code kubectl kustomize} where kubectl is
 * installed) into fabric8's typed objects. {@link DeployManifestsTest} checks the base's files one
 * by one; this class checks what each environment would actually apply, and production's rules.
 */
class RenderedManifestsTest {

  private static final String SECRET_NAME = "refresher-secrets";
  private static final String CLIENT_NAMESPACE_LABEL = "refresher.io/client";
  private static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
  private static final Pattern DIGEST_REFERENCE = Pattern.compile("^[a-z0-9.\\-/:]+@sha256:[0-9a-f]{64}$");
  private static final String MIGRATE_AT_START = "REFRESHER_DB_MIGRATE_AT_START";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static Path deployDir;
  private static final Map<String, Rendered> RENDERED = new LinkedHashMap<>();

  @BeforeAll
  static void render() throws IOException {
    Path dir = Paths.get("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("deploy/base"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("repository root with deploy/base").isNotNull();
    deployDir = dir.resolve("deploy");
    for (String overlay : List.of("base", "overlays/dev", "overlays/prod", "jobs/migrate", "overlays/prod/migrate")) {
      RENDERED.put(overlay, new Rendered(Kustomize.build(deployDir.resolve(overlay))));
    }
  }

  // ---- every environment --------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod", "jobs/migrate", "overlays/prod/migrate"})
  void rendered_objects_areTypedWithoutUnknownFieldsOrSecrets(String overlay) {
    Rendered rendered = RENDERED.get(overlay);
    assertThat(rendered.objects).isNotEmpty();
    List<String> unknown = new ArrayList<>();
    for (HasMetadata object : rendered.objects) {
      assertThat(object.getClass().getName())
          .as("%s %s is a known Kubernetes kind", object.getKind(), object.getMetadata().getName())
          .doesNotContain("GenericKubernetesResource");
      assertThat(object).isNotInstanceOf(Secret.class);
      DeployManifestsTest.collectUnknownFields(object, overlay + ":" + object.getKind(), unknown);
      assertThat(object.getMetadata().getLabels())
          .as("labels of %s %s", object.getKind(), object.getMetadata().getName())
          .containsEntry("app.kubernetes.io/part-of", "refresher");
    }
    assertThat(unknown).as("fields the Kubernetes model does not know").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void deployment_probes_callHealthCheckOnTheHttpPort(String overlay) {
    Rendered rendered = RENDERED.get(overlay);
    Container container = rendered.container();
    assertProbe(container, container.getStartupProbe(), "alive");
    assertProbe(container, container.getReadinessProbe(), "ready");
    assertProbe(container, container.getLivenessProbe(), "alive");
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void deployment_resources_memoryRequestEqualsLimitAndNoCpuLimit(String overlay) {
    assertResources(RENDERED.get(overlay).container());
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void deployment_securityContext_isRestrictedWithWritableTmpOnly(String overlay) {
    Rendered rendered = RENDERED.get(overlay);
    assertRestricted(rendered.podSpec(), rendered.container());
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void deployment_spread_selectsItsOwnPodsByHostname(String overlay) {
    Rendered rendered = RENDERED.get(overlay);
    List<TopologySpreadConstraint> byHost = rendered.podSpec().getTopologySpreadConstraints().stream()
        .filter(c -> "kubernetes.io/hostname".equals(c.getTopologyKey()))
        .toList();
    assertThat(byHost).as("one spread over nodes (two would contradict each other)").hasSize(1);
    assertThat(byHost.get(0).getMaxSkew()).isEqualTo(1);
    assertSelects(byHost.get(0).getLabelSelector(), rendered.podLabels());
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void selectors_ofServicePdbAndNetworkPolicy_matchTheDeploymentsPods(String overlay) {
    Rendered rendered = RENDERED.get(overlay);
    Map<String, String> pods = rendered.podLabels();
    assertThat(pods).containsAllEntriesOf(rendered.deployment().getSpec().getSelector().getMatchLabels());
    assertThat(pods).containsAllEntriesOf(rendered.single(Service.class).getSpec().getSelector());
    assertSelects(rendered.single(PodDisruptionBudget.class).getSpec().getSelector(), pods);
    rendered.all(NetworkPolicy.class).forEach(policy -> assertSelects(policy.getSpec().getPodSelector(), pods));
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void configMap_configYml_isTheRepositoryConfigAndLoadsWithTheDeploymentsEnvironment(String overlay)
      throws Exception {
    Rendered rendered = RENDERED.get(overlay);
    ConfigMap configMap = rendered.single(ConfigMap.class);
    String text = configMap.getData().get("config.yml");
    assertThat(YAML.readTree(text))
        .as("the ConfigMap's config.yml equals the repository's (and the image's) config.yml")
        .isEqualTo(YAML.readTree(deployDir.resolveSibling("config.yml").toFile()));
    VolumeMount mount = rendered.container().getVolumeMounts().stream()
        .filter(m -> "/app/config.yml".equals(m.getMountPath()))
        .findFirst()
        .orElseGet(() -> fail("nothing mounted at /app/config.yml"));
    assertThat(rendered.podSpec().getVolumes())
        .anySatisfy(volume -> {
          assertThat(volume.getName()).isEqualTo(mount.getName());
          assertThat(volume.getConfigMap().getName()).isEqualTo(configMap.getMetadata().getName());
        });

    RefresherConfiguration config = load(text, rendered.container());
    assertThat(config.getDatabase().isMigrateAtStart())
        .as("replicas migrate at start unless the overlay runs the migration Job")
        .isEqualTo(!overlay.equals("overlays/prod"));
  }

  // ---- production --------------------------------------------------------------------------

  @Test
  void prod_replicas_areThreeAndThePdbLeavesTwoDuringADrain() {
    Rendered prod = RENDERED.get("overlays/prod");
    int replicas = prod.deployment().getSpec().getReplicas();
    assertThat(replicas).isEqualTo(3);
    PodDisruptionBudget pdb = prod.single(PodDisruptionBudget.class);
    int maxUnavailable = pdb.getSpec().getMaxUnavailable().getIntVal();
    assertThat(maxUnavailable).as("a drain can proceed").isPositive();
    assertThat(replicas - maxUnavailable).as("replicas left serving during a voluntary disruption").isGreaterThanOrEqualTo(2);
    assertThat(pdb.getSpec().getUnhealthyPodEvictionPolicy()).isEqualTo("AlwaysAllow");
  }

  @Test
  void prod_spreadOverNodes_isARuleCountedPerReplicaSet() {
    Rendered prod = RENDERED.get("overlays/prod");
    TopologySpreadConstraint byHost = prod.podSpec().getTopologySpreadConstraints().stream()
        .filter(c -> "kubernetes.io/hostname".equals(c.getTopologyKey()))
        .findFirst()
        .orElseGet(() -> fail("no spread over kubernetes.io/hostname"));
    assertThat(byHost.getWhenUnsatisfiable()).as("a rule, not a preference").isEqualTo("DoNotSchedule");
    assertThat(byHost.getMaxSkew()).isEqualTo(1);
    assertThat(byHost.getMatchLabelKeys()).contains("pod-template-hash");
    // A required anti-affinity would leave the rollout's surge pod Pending on a three-node cluster.
    assertThat(prod.podSpec().getAffinity()).isNull();
  }

  @Test
  void prod_resources_areSizedFromTheBenchmark() {
    Container container = RENDERED.get("overlays/prod").container();
    Map<String, Quantity> requests = container.getResources().getRequests();
    // docs/performance.md: ~0.75 core at 10,478 refreshes/s; 62 MB heap at 1M keys + ~190Mi non-heap.
    assertThat(Quantity.getAmountInBytes(requests.get("cpu"))).isGreaterThanOrEqualTo(Quantity.getAmountInBytes(new Quantity("750m")));
    long memory = Quantity.getAmountInBytes(requests.get("memory")).longValue();
    assertThat(memory / 4).as("non-heap share (25%% of the limit) above the measured ~190Mi").isGreaterThan(190L << 20);
  }

  @Test
  void prod_jvmOptions_addToTheImageEntrypointWithoutRepeatingIt() throws IOException {
    Container container = RENDERED.get("overlays/prod").container();
    String options = env(container, "JAVA_TOOL_OPTIONS").getValue();
    assertThat(options).contains("-XX:ActiveProcessorCount=");
    String dockerfile = Files.readString(deployDir.resolve("Dockerfile"));
    assertThat(dockerfile).contains("-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError");
    // Set once, by the image; a heap size here would stop the heap from following the limit.
    assertThat(options).doesNotContain("MaxRAMPercentage", "ExitOnOutOfMemoryError", "-Xmx", "-Xms");
    assertThat(container.getCommand()).as("the image's ENTRYPOINT stays").isNullOrEmpty();
  }

  @Test
  void prod_image_isPinnedByDigestLikeTheMigrationJob() {
    String image = RENDERED.get("overlays/prod").container().getImage();
    assertThat(image).matches(DIGEST_REFERENCE);
    assertThat(RENDERED.get("overlays/prod/migrate").jobContainer().getImage())
        .as("the Job migrates with the release being rolled out")
        .isEqualTo(image);
  }

  @Test
  void prod_kustomization_listsOnlyFilesOfThisChange() throws IOException {
    // deploy/monitoring/ is added by its own change; prod lists only what exists here.
    JsonNode kustomization = YAML.readTree(deployDir.resolve("overlays/prod/kustomization.yaml").toFile());
    for (JsonNode resource : kustomization.path("resources")) {
      assertThat(deployDir.resolve("overlays/prod").resolve(resource.asText())).exists();
    }
  }

  @Test
  void prod_networkPolicy_admitsHttpFromClientNamespacesAndAdminFromMonitoringOnly() {
    Rendered prod = RENDERED.get("overlays/prod");
    NetworkPolicy policy = prod.single(NetworkPolicy.class);
    assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
    Set<String> containerPorts =
        prod.container().getPorts().stream().map(ContainerPort::getName).collect(Collectors.toSet());

    Map<String, List<NetworkPolicyPeer>> fromByPort = new HashMap<>();
    for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
      assertThat(rule.getFrom()).as("an ingress rule without `from` admits everyone").isNotEmpty();
      assertThat(rule.getPorts()).as("an ingress rule without ports admits every port").isNotEmpty();
      for (NetworkPolicyPort port : rule.getPorts()) {
        String name = port.getPort().getStrVal();
        assertThat(name).as("ingress ports by container port name").isNotNull();
        assertThat(containerPorts).contains(name);
        assertThat(port.getProtocol()).isEqualTo("TCP");
        fromByPort.computeIfAbsent(name, n -> new ArrayList<>()).addAll(rule.getFrom());
      }
    }
    assertThat(fromByPort).containsOnlyKeys("http", "admin");
    assertThat(fromByPort.get("http"))
        .singleElement()
        .satisfies(peer -> {
          assertThat(peer.getPodSelector()).isNull();
          assertThat(peer.getIpBlock()).isNull();
          assertThat(peer.getNamespaceSelector().getMatchLabels()).containsExactly(Map.entry(CLIENT_NAMESPACE_LABEL, "true"));
        });
    assertThat(fromByPort.get("admin"))
        .singleElement()
        .satisfies(peer -> {
          assertThat(peer.getIpBlock()).isNull();
          assertThat(peer.getNamespaceSelector().getMatchLabels()).containsExactly(Map.entry(NAMESPACE_NAME_LABEL, "monitoring"));
        });
  }

  @Test
  void prod_networkPolicy_egressOnlyToDnsRedisAndPostgres() {
    NetworkPolicy policy = RENDERED.get("overlays/prod").single(NetworkPolicy.class);
    Set<String> ports = new TreeSet<>();
    for (NetworkPolicyEgressRule rule : policy.getSpec().getEgress()) {
      assertThat(rule.getTo()).as("an egress rule without `to` allows every destination").isNotEmpty();
      assertThat(rule.getPorts()).as("an egress rule without ports allows every port").isNotEmpty();
      rule.getTo().forEach(peer -> {
        if (peer.getIpBlock() != null) {
          assertThat(peer.getIpBlock().getCidr()).as("no catch-all CIDR").isNotIn("0.0.0.0/0", "::/0");
        } else {
          assertThat(peer.getPodSelector()).as("a namespace alone would allow all its pods").isNotNull();
        }
      });
      rule.getPorts().forEach(port -> ports.add(port.getProtocol() + "/" + port.getPort().getIntVal()));
    }
    assertThat(ports).containsExactlyInAnyOrder("UDP/53", "TCP/53", "TCP/6379", "TCP/5432");
    NetworkPolicyEgressRule dns = policy.getSpec().getEgress().stream()
        .filter(rule -> rule.getPorts().stream().anyMatch(p -> "UDP".equals(p.getProtocol())))
        .findFirst()
        .orElseThrow();
    assertThat(dns.getTo()).singleElement().satisfies(peer -> {
      assertThat(peer.getNamespaceSelector().getMatchLabels()).containsEntry(NAMESPACE_NAME_LABEL, "kube-system");
      assertThat(peer.getPodSelector().getMatchLabels()).containsEntry("k8s-app", "kube-dns");
    });
  }

  // ---- the migration Job ---------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"jobs/migrate", "overlays/prod/migrate"})
  void job_runsDbMigrateThroughTheImageEntrypoint(String overlay) {
    Job job = RENDERED.get(overlay).single(Job.class);
    Container container = RENDERED.get(overlay).jobContainer();
    assertThat(container.getCommand()).as("the image's ENTRYPOINT (java and its flags) stays").isNullOrEmpty();
    assertThat(container.getArgs()).containsExactly("db", "migrate", "/app/config.yml");
    assertThat(job.getSpec().getTemplate().getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(job.getSpec().getBackoffLimit()).isBetween(0, 3);
    assertThat(job.getSpec().getActiveDeadlineSeconds()).isNotNull();
  }

  @Test
  void job_secretEnvSecurityAndAccount_matchTheDeployment() {
    Rendered prod = RENDERED.get("overlays/prod");
    Rendered migrate = RENDERED.get("overlays/prod/migrate");
    PodSpec jobPod = migrate.single(Job.class).getSpec().getTemplate().getSpec();
    Container job = migrate.jobContainer();

    assertThat(secretEnv(job)).as("the Job's Secret variables").isEqualTo(secretEnv(prod.container()));
    assertThat(job.getEnv()).extracting(EnvVar::getName).doesNotHaveDuplicates();
    assertThat(jobPod.getSecurityContext()).isEqualTo(prod.podSpec().getSecurityContext());
    assertThat(job.getSecurityContext()).isEqualTo(prod.container().getSecurityContext());
    assertThat(jobPod.getServiceAccountName()).isEqualTo(prod.podSpec().getServiceAccountName());
    assertThat(jobPod.getAutomountServiceAccountToken()).isFalse();
    assertThat(jobPod.getEnableServiceLinks()).isFalse();
    assertRestricted(jobPod, job);
    assertResources(job);
  }

  @Test
  void job_pods_areUnderTheNetworkPolicyButNotSelectedAsReplicas() {
    Rendered prod = RENDERED.get("overlays/prod");
    Map<String, String> jobPods =
        RENDERED.get("overlays/prod/migrate").single(Job.class).getSpec().getTemplate().getMetadata().getLabels();
    // A migration pod in the Service would get API traffic; under the PDB it would block drains.
    assertThat(matches(prod.single(Service.class).getSpec().getSelector(), jobPods)).isFalse();
    assertThat(matches(prod.single(PodDisruptionBudget.class).getSpec().getSelector().getMatchLabels(), jobPods)).isFalse();
    assertThat(matches(prod.deployment().getSpec().getSelector().getMatchLabels(), jobPods)).isFalse();
    assertThat(prod.podSpec().getTopologySpreadConstraints())
        .allSatisfy(c -> assertThat(matches(c.getLabelSelector().getMatchLabels(), jobPods)).isFalse());
    // ... while the NetworkPolicy's egress (PostgreSQL, DNS) applies to it as well.
    assertSelects(prod.single(NetworkPolicy.class).getSpec().getPodSelector(), jobPods);
  }

  @Test
  void job_configYml_loadsWithTheJobsEnvironment() throws Exception {
    // The Job reads the image's /app/config.yml: the repository's config.yml.
    Container job = RENDERED.get("overlays/prod/migrate").jobContainer();
    assertThat(job.getVolumeMounts()).noneMatch(m -> "/app/config.yml".equals(m.getMountPath()));
    load(Files.readString(deployDir.resolveSibling("config.yml")), job);
  }

  // ---- the renderer itself --------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod", "jobs/migrate", "overlays/prod/migrate"})
  void renderer_output_equalsKubectlKustomize(String overlay) throws Exception {
    Optional<String> kubectl = kubectlKustomize(deployDir.resolve(overlay));
    Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not installed");
    Map<String, JsonNode> expected = new LinkedHashMap<>();
    YAML.readerFor(JsonNode.class).<JsonNode>readValues(kubectl.get()).readAll()
        .forEach(node -> expected.put(id(node), node));
    Map<String, JsonNode> actual = new LinkedHashMap<>();
    Kustomize.build(deployDir.resolve(overlay)).forEach(node -> actual.put(id(node), node));
    assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    expected.forEach((id, node) -> assertThat(actual.get(id)).as(id).isEqualTo(node));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** Loads config.yml as the service does, with the container's variables (Secret ones faked). */
  private static RefresherConfiguration load(String configYml, Container container) throws Exception {
    Map<String, String> env = new HashMap<>();
    for (EnvVar var : container.getEnv()) {
      if (var.getValue() != null) {
        env.put(var.getName(), var.getValue());
      } else if (var.getValueFrom().getSecretKeyRef() != null
          && !Boolean.TRUE.equals(var.getValueFrom().getSecretKeyRef().getOptional())) {
        env.put(var.getName(), fakeSecret(var.getName()));
      }
    }
    StringSubstitutor substitutor = new StringSubstitutor(env);
    substitutor.setEnableUndefinedVariableException(true);
    ObjectMapper mapper = Jackson.newObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    YamlConfigurationFactory<RefresherConfiguration> factory =
        new YamlConfigurationFactory<>(RefresherConfiguration.class, Validators.newValidator(), mapper, "dw");
    ConfigurationSourceProvider text = path -> new ByteArrayInputStream(configYml.getBytes(StandardCharsets.UTF_8));
    return factory.build(new SubstitutingSourceProvider(text, substitutor), "config.yml");
  }

  private static String fakeSecret(String name) {
    return switch (name) {
      case "REFRESHER_REDIS_URL" -> "redis://:secret@redis:6379/0";
      case "REFRESHER_DB_URL" -> "jdbc:postgresql://postgres:5432/refresher";
      default -> "fake-" + name.toLowerCase() + "-0123456789";
    };
  }

  private static void assertProbe(Container container, Probe probe, String type) {
    assertThat(probe).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo("/health-check?type=" + type);
    String port = probe.getHttpGet().getPort().getStrVal();
    assertThat(port).isEqualTo("http");
    assertThat(container.getPorts())
        .anySatisfy(p -> {
          assertThat(p.getName()).isEqualTo(port);
          assertThat(p.getContainerPort()).isEqualTo(8080);
        });
  }

  private static void assertResources(Container container) {
    Map<String, Quantity> requests = container.getResources().getRequests();
    Map<String, Quantity> limits = container.getResources().getLimits();
    assertThat(requests.get("cpu")).as("cpu request").isNotNull();
    assertThat(limits).as("no CPU limit: throttling stalls GC and probes").doesNotContainKey("cpu");
    assertThat(Quantity.getAmountInBytes(requests.get("memory")))
        .isEqualByComparingTo(Quantity.getAmountInBytes(limits.get("memory")));
  }

  private static void assertRestricted(PodSpec pod, Container container) {
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).contains("ALL");
    assertThat(container.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(container.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
    VolumeMount tmp = container.getVolumeMounts().stream()
        .filter(m -> "/tmp".equals(m.getMountPath()))
        .findFirst()
        .orElseGet(() -> fail("no /tmp mount"));
    assertThat(pod.getVolumes()).anySatisfy(v -> {
      assertThat(v.getName()).isEqualTo(tmp.getName());
      assertThat(v.getEmptyDir()).isNotNull();
    });
  }

  private static void assertSelects(LabelSelector selector, Map<String, String> labels) {
    assertThat(selector.getMatchExpressions()).isNullOrEmpty();
    assertThat(selector.getMatchLabels()).isNotEmpty();
    assertThat(labels).containsAllEntriesOf(selector.getMatchLabels());
  }

  private static boolean matches(Map<String, String> selector, Map<String, String> labels) {
    return selector != null && !selector.isEmpty()
        && selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  /** The variables from the Secret: name to key (and optional). */
  private static Map<String, String> secretEnv(Container container) {
    Map<String, String> secret = new TreeMap<>();
    for (EnvVar var : container.getEnv()) {
      if (var.getValueFrom() != null && var.getValueFrom().getSecretKeyRef() != null) {
        assertThat(var.getValueFrom().getSecretKeyRef().getName()).isEqualTo(SECRET_NAME);
        secret.put(var.getName(), var.getValueFrom().getSecretKeyRef().getKey()
            + (Boolean.TRUE.equals(var.getValueFrom().getSecretKeyRef().getOptional()) ? " (optional)" : ""));
      }
    }
    return secret;
  }

  private static EnvVar env(Container container, String name) {
    return container.getEnv().stream()
        .filter(e -> name.equals(e.getName()))
        .findFirst()
        .orElseGet(() -> fail("no env %s", name));
  }

  private static String id(JsonNode node) {
    return node.path("kind").asText() + "/" + node.path("metadata").path("name").asText();
  }

  private static Optional<String> kubectlKustomize(Path dir) throws Exception {
    Process process;
    try {
      process = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectErrorStream(false).start();
    } catch (IOException notInstalled) {
      return Optional.empty();
    }
    byte[] out = process.getInputStream().readAllBytes();
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("kubectl kustomize %s: %s", dir, err).isZero();
    return Optional.of(new String(out, StandardCharsets.UTF_8));
  }

  /** One rendered kustomization as typed objects. */
  private static final class Rendered {
    final List<HasMetadata> objects = new ArrayList<>();

    // Serialization.unmarshal(String) is deprecated in favour of an injected
    // KubernetesSerialization, but resolves apiVersion/kind to the typed model without set-up.
    @SuppressWarnings("deprecation")
    Rendered(List<ObjectNode> nodes) {
      for (ObjectNode node : nodes) {
        objects.add(Objects.requireNonNull(Serialization.<HasMetadata>unmarshal(node.toString())));
      }
    }

    <T> List<T> all(Class<T> type) {
      return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T> T single(Class<T> type) {
      List<T> found = all(type);
      assertThat(found).as("exactly one %s", type.getSimpleName()).hasSize(1);
      return found.get(0);
    }

    Deployment deployment() {
      return single(Deployment.class);
    }

    PodTemplateSpec template() {
      return deployment().getSpec().getTemplate();
    }

    PodSpec podSpec() {
      return template().getSpec();
    }

    Map<String, String> podLabels() {
      return template().getMetadata().getLabels();
    }

    Container container() {
      assertThat(podSpec().getContainers()).hasSize(1);
      return podSpec().getContainers().get(0);
    }

    Container jobContainer() {
      List<Container> containers = single(Job.class).getSpec().getTemplate().getSpec().getContainers();
      assertThat(containers).hasSize(1);
      return containers.get(0);
    }
  }
}

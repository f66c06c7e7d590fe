package io.refresher.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.util.Duration;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Offline validation of deploy/: there is no cluster, kubectl or kubeconform here, so the
 * manifests are parsed into fabric8's typed model and the invariants the service depends on are
 * asserted directly. Each test names the operational failure it guards against.
 */
class DeployManifestsTest {

  private static final String SECRET_NAME = "refresher-secrets";
  private static final String CONFIG_FILE_KEY = "config.yml";
  private static final String CONFIG_MOUNT_PATH = "/app/config.yml";
  private static final long RUN_AS_USER = 10001L;
  private static final List<String> REQUIRED_ENV =
      List.of(
          "REFRESHER_REDIS_URL",
          "REFRESHER_DB_URL",
          "REFRESHER_DB_USER",
          "REFRESHER_DB_PASSWORD",
          "REFRESHER_ADMIN_TOKEN");
  /** Variables whose values are secret: they may only come from the Secret, never a literal. */
  private static final List<String> SECRET_ENV =
      List.of("REFRESHER_REDIS_URL", "REFRESHER_DB_PASSWORD", "REFRESHER_ADMIN_TOKEN", "REFRESHER_ADMIN_READ_TOKEN");
  /** Dropwizard's EnvironmentVariableSubstitutor syntax: a name, optionally ":-default". */
  private static final Pattern ENV_REFERENCE =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?}");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static Path repoRoot;
  private static Path baseDir;
  private static Map<Path, Object> parsedBase;
  private static Deployment deployment;
  private static Service service;
  private static ConfigMap configMap;
  private static PodDisruptionBudget pdb;
  private static ServiceAccount serviceAccount;
  private static JsonNode deployedConfig;

  @BeforeAll
  // Serialization.unmarshal(InputStream) is deprecated in favour of an injected
  // KubernetesSerialization, but it resolves apiVersion/kind to the typed model without set-up,
  // which is all an offline check needs.
  @SuppressWarnings("deprecation")
  static void loadManifests() throws IOException {
    repoRoot = findRepoRoot();
    baseDir = repoRoot.resolve("deploy/base");
    parsedBase = new LinkedHashMap<>();
    for (Path file : baseManifestFiles()) {
      try (InputStream in = Files.newInputStream(file)) {
        parsedBase.put(file.getFileName(), Serialization.unmarshal(in));
      }
    }
    deployment = single(Deployment.class);
    service = single(Service.class);
    configMap = single(ConfigMap.class);
    pdb = single(PodDisruptionBudget.class);
    serviceAccount = single(ServiceAccount.class);
    deployedConfig = YAML.readTree(configMap.getData().get(CONFIG_FILE_KEY));
  }

  // ---- the manifests as a whole -------------------------------------------------------------

  @Test
  void baseManifests_parsing_yieldsTypedKubernetesObjects() {
    // A misspelt apiVersion or kind degrades to GenericKubernetesResource, which kubectl rejects.
    assertThat(parsedBase).isNotEmpty();
    parsedBase.forEach(
        (file, parsed) ->
            assertThat(parsed)
                .as("%s must be one known Kubernetes object", file)
                .isInstanceOfAny(
                    Deployment.class,
                    Service.class,
                    ConfigMap.class,
                    PodDisruptionBudget.class,
                    ServiceAccount.class));
  }

  @Test
  void baseManifests_fields_haveNoUnknownProperties() {
    // fabric8 silently keeps unknown fields ("readinesProbe") in additionalProperties; kubectl's
    // strict validation would refuse them, and a lenient apply would drop them without a word.
    List<String> unknown = new ArrayList<>();
    parsedBase.forEach((file, parsed) -> collectUnknownFields(parsed, file.toString(), unknown));
    assertThat(unknown).as("fields the Kubernetes model does not know").isEmpty();
  }

  @Test
  void baseManifests_secret_isNotCommitted() {
    assertThat(parsedBase.values())
        .noneMatch(parsed -> parsed instanceof io.fabric8.kubernetes.api.model.Secret);
  }

  @Test
  void kustomization_resources_listExactlyTheFilesInBase() throws IOException {
    JsonNode kustomization = YAML.readTree(baseDir.resolve("kustomization.yaml").toFile());
    assertThat(kustomization.path("kind").asText()).isEqualTo("Kustomization");
    List<String> listed = new ArrayList<>();
    kustomization.path("resources").forEach(node -> listed.add(node.asText()));
    Set<String> present =
        baseManifestFiles().stream().map(p -> p.getFileName().toString()).collect(Collectors.toSet());

    assertThat(listed).as("no duplicates in resources").doesNotHaveDuplicates();
    assertThat(listed)
        .as("kustomization resources vs files in deploy/base")
        .containsExactlyInAnyOrderElementsOf(present);
  }

  @Test
  void allManifests_labels_carryTheApplicationName() {
    parsedBase.values().stream()
        .map(HasMetadata.class::cast)
        .forEach(
            object ->
                assertThat(object.getMetadata().getLabels())
                    .as("labels of %s %s", object.getKind(), object.getMetadata().getName())
                    .containsEntry("app.kubernetes.io/name", "refresher"));
  }

  // ---- deployment shape ---------------------------------------------------------------------

  @Test
  void deployment_replicas_isTwo() {
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
  }

  @Test
  void deployment_rollingUpdate_surgesOneAndNeverDropsCapacity() {
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    RollingUpdateDeployment rolling = deployment.getSpec().getStrategy().getRollingUpdate();
    assertThat(rolling.getMaxUnavailable().getIntVal()).isZero();
    assertThat(rolling.getMaxSurge().getIntVal()).isEqualTo(1);
  }

  @Test
  void deployment_selector_matchesPodTemplateLabels() {
    Map<String, String> selector = deployment.getSpec().getSelector().getMatchLabels();
    assertThat(selector).containsEntry("app.kubernetes.io/name", "refresher");
    assertThat(podLabels()).containsAllEntriesOf(selector);
  }

  @Test
  void deployment_topologySpread_spreadsReplicasAcrossNodes() {
    List<TopologySpreadConstraint> constraints = podSpec().getTopologySpreadConstraints();
    assertThat(constraints)
        .anySatisfy(
            constraint -> {
              assertThat(constraint.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
              assertThat(constraint.getMaxSkew()).isEqualTo(1);
              assertThat(podLabels()).containsAllEntriesOf(constraint.getLabelSelector().getMatchLabels());
              assertThat(constraint.getLabelSelector().getMatchLabels()).isNotEmpty();
            });
  }

  @Test
  void deployment_containerPorts_exposeHttpAndAdmin() {
    assertThat(containerPort("http")).isEqualTo(8080);
    assertThat(containerPort("admin")).isEqualTo(8081);
  }

  @Test
  void deployment_containerPorts_matchTheConnectorPortsInConfig() {
    // The config's connector ports default to 8080/8081 unless overridden by variables the
    // deployment does not set; a change on either side must follow on the other.
    assertThat(connectorPort("applicationConnectors")).isEqualTo(containerPort("http"));
    assertThat(connectorPort("adminConnectors")).isEqualTo(containerPort("admin"));
  }

  @Test
  void deployment_serviceLinks_areDisabled() {
    // A Service named "refresher" would otherwise inject REFRESHER_PORT & co. into the container.
    assertThat(podSpec().getEnableServiceLinks()).isFalse();
  }

  @Test
  void deployment_image_usesImageEntrypointWithoutOverride() {
    // The image's ENTRYPOINT carries the JVM memory flags; a command here would silently drop them.
    assertThat(container().getImage()).isNotBlank();
    assertThat(container().getCommand()).isNullOrEmpty();
  }

  // ---- probes ---------------------------------------------------------------------------------

  @Test
  void deployment_livenessProbe_usesAliveHealthCheck() {
    assertHealthProbe(container().getLivenessProbe(), "alive");
  }

  @Test
  void deployment_readinessProbe_usesReadyHealthCheck() {
    assertHealthProbe(container().getReadinessProbe(), "ready");
  }

  @Test
  void deployment_startupProbe_allowsMigrationsWithoutRestartingOnDependencyOutage() {
    Probe startup = container().getStartupProbe();
    // alive, not ready: a Redis/PostgreSQL outage during start must not become a restart loop.
    assertHealthProbe(startup, "alive");
    int budgetSeconds = startup.getPeriodSeconds() * startup.getFailureThreshold();
    assertThat(budgetSeconds).as("seconds allowed for start-up and migrations").isGreaterThanOrEqualTo(120);
  }

  @Test
  void config_aliveHealthChecks_neverDependOnRedisOrPostgres() {
    // Liveness is only as independent as the checks typed "alive" in the deployed config.
    List<String> aliveChecks = new ArrayList<>();
    deployedConfig
        .path("health")
        .path("healthChecks")
        .forEach(
            check -> {
              if ("alive".equals(check.path("type").asText())) {
                aliveChecks.add(check.path("name").asText());
              }
            });
    assertThat(aliveChecks).isNotEmpty().doesNotContain("redis", "postgres");
  }

  // ---- resources, shutdown, security -----------------------------------------------------------

  @Test
  void deployment_memory_requestEqualsLimit() {
    assertMemoryRequestEqualsLimit(container().getResources());
  }

  @Test
  void deployment_cpu_isRequested() {
    Quantity cpu = container().getResources().getRequests().get("cpu");
    assertThat(cpu).as("cpu request").isNotNull();
    assertThat(Quantity.getAmountInBytes(cpu)).isPositive();
  }

  @Test
  void deployment_terminationGracePeriod_exceedsDropwizardShutdown() {
    long shutdownWait = seconds(deployedConfig.path("health").path("shutdownWaitPeriod"));
    long shutdownGrace = seconds(deployedConfig.path("server").path("shutdownGracePeriod"));
    // The dispatcher then waits up to refresh.lockLease for running refreshes to finish.
    long lockLease = seconds(deployedConfig.path("refresh").path("lockLease"));
    long grace = podSpec().getTerminationGracePeriodSeconds();

    assertThat(grace).isGreaterThan(25);
    assertThat(grace).isGreaterThan(shutdownWait + shutdownGrace + lockLease);
  }

  @Test
  void deployment_podSecurityContext_isRestricted() {
    PodSecurityContext pod = podSpec().getSecurityContext();
    assertThat(pod.getRunAsNonRoot()).isTrue();
    assertThat(pod.getRunAsUser()).isEqualTo(RUN_AS_USER);
    assertThat(pod.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
  }

  @Test
  void deployment_containerSecurityContext_isRestricted() {
    SecurityContext security = container().getSecurityContext();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(security.getCapabilities().getDrop()).contains("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(security.getRunAsUser()).as("must not override the pod's user").isIn(null, RUN_AS_USER);
  }

  @Test
  void deployment_rootFilesystem_isReadOnlyWithEmptyDirTmp() {
    assertThat(container().getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    VolumeMount tmp = mountAt("/tmp");
    assertThat(tmp.getReadOnly()).isNotEqualTo(Boolean.TRUE);
    assertThat(volume(tmp.getName()).getEmptyDir()).as("volume behind /tmp is an emptyDir").isNotNull();
  }

  @Test
  void deployment_serviceAccount_isDedicatedWithoutToken() {
    assertThat(podSpec().getServiceAccountName()).isEqualTo(serviceAccount.getMetadata().getName());
    assertThat(podSpec().getAutomountServiceAccountToken()).isFalse();
    assertThat(serviceAccount.getAutomountServiceAccountToken()).isFalse();
  }

  // ---- configuration and secrets ----------------------------------------------------------------

  @Test
  void deployment_env_providesEveryRequiredVariableOnce() {
    List<String> names = container().getEnv().stream().map(EnvVar::getName).toList();
    assertThat(names).doesNotHaveDuplicates().containsAll(REQUIRED_ENV);
  }

  @Test
  void deployment_secretKeyRefs_allPointAtRefresherSecrets() {
    List<SecretKeySelector> refs =
        container().getEnv().stream()
            .map(EnvVar::getValueFrom)
            .filter(from -> from != null && from.getSecretKeyRef() != null)
            .map(from -> from.getSecretKeyRef())
            .toList();
    assertThat(refs).isNotEmpty();
    Set<String> defaulted = configReferences(true);
    assertThat(refs)
        .allSatisfy(
            ref -> {
              assertThat(ref.getName()).isEqualTo(SECRET_NAME);
              assertThat(ref.getKey()).isNotBlank();
              // optional: true would start the service without the variable and fail later, worse;
              // only a variable config.yml gives a default of its own may be missing.
              if (!defaulted.contains(ref.getKey())) {
                assertThat(ref.getOptional()).as("%s optional", ref.getKey()).isNotEqualTo(Boolean.TRUE);
              }
            });
    List<EnvFromSource> envFrom = Optional.ofNullable(container().getEnvFrom()).orElse(List.of());
    assertThat(envFrom)
        .filteredOn(source -> source.getSecretRef() != null)
        .allSatisfy(source -> assertThat(source.getSecretRef().getName()).isEqualTo(SECRET_NAME));
  }

  @Test
  void deployment_secretValues_comeOnlyFromTheSecret() {
    for (String name : SECRET_ENV) {
      EnvVar env = env(name);
      assertThat(env.getValue()).as("%s must not be a literal", name).isNull();
      assertThat(env.getValueFrom().getSecretKeyRef()).as("%s from a secretKeyRef", name).isNotNull();
    }
  }

  @Test
  void deployment_configVolume_mountsTheConfigMapAtTheImageConfigPath() {
    VolumeMount mount = mountAt(CONFIG_MOUNT_PATH);
    assertThat(mount.getSubPath()).isEqualTo(CONFIG_FILE_KEY);
    assertThat(mount.getReadOnly()).isTrue();
    assertThat(volume(mount.getName()).getConfigMap().getName()).isEqualTo(configMap.getMetadata().getName());
  }

  @Test
  void configMap_configYml_parsesAndReferencesEnvironmentForConnections() {
    assertThat(deployedConfig.isObject()).isTrue();
    assertThat(deployedConfig.path("database").path("url").asText()).isEqualTo("${REFRESHER_DB_URL}");
    assertThat(deployedConfig.path("database").path("user").asText()).isEqualTo("${REFRESHER_DB_USER}");
    assertThat(deployedConfig.path("database").path("password").asText()).isEqualTo("${REFRESHER_DB_PASSWORD}");
    assertThat(deployedConfig.path("admin").path("token").asText()).isEqualTo("${REFRESHER_ADMIN_TOKEN}");
    assertThat(deployedConfig.path("redis").path("url").asText()).startsWith("${REFRESHER_REDIS_URL");
  }

  @Test
  void deployment_readToken_isOptionalFromTheSecret() {
    // The read-only token of the admin API: set in the Secret to enable it, left out to disable it.
    EnvVar env = env("REFRESHER_ADMIN_READ_TOKEN");
    assertThat(env.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("REFRESHER_ADMIN_READ_TOKEN");
    assertThat(env.getValueFrom().getSecretKeyRef().getOptional()).isTrue();
    assertThat(deployedConfig.path("admin").path("readToken").asText()).isEqualTo("${REFRESHER_ADMIN_READ_TOKEN:-}");
  }

  /** The variables config.yml references with a default ({@code true}) or without one. */
  private static Set<String> configReferences(boolean withDefault) {
    Set<String> names = new TreeSet<>();
    Matcher matcher = ENV_REFERENCE.matcher(configMap.getData().get(CONFIG_FILE_KEY));
    while (matcher.find()) {
      if ((matcher.group(2) != null) == withDefault) {
        names.add(matcher.group(1));
      }
    }
    return names;
  }

  @Test
  void configMap_requiredVariables_areAllProvidedByTheDeployment() {
    // Dropwizard substitutes over the raw text (comments included) and refuses to start when a
    // reference without a default is unset: every such name must be in the container's env.
    Set<String> required = configReferences(false);
    Set<String> provided = container().getEnv().stream().map(EnvVar::getName).collect(Collectors.toSet());
    assertThat(required).contains("REFRESHER_DB_URL", "REFRESHER_ADMIN_TOKEN");
    assertThat(provided).containsAll(required);
  }

  @Test
  void configMap_topLevelKeys_matchRepositoryConfig() throws IOException {
    assertThat(fieldNames(deployedConfig)).isEqualTo(fieldNames(repositoryConfig()));
  }

  @Test
  void configMap_configYml_equalsRepositoryConfig() throws IOException {
    // Compared as parsed YAML, so comments and formatting may differ but no value may drift.
    assertThat(deployedConfig)
        .as("deploy/base/configmap.yaml is out of date with config.yml; regenerate it with the"
            + " command in its header comment")
        .isEqualTo(repositoryConfig());
  }

  // ---- service, disruption budget -----------------------------------------------------------------

  @Test
  void service_selector_matchesPodLabels() {
    Map<String, String> selector = service.getSpec().getSelector();
    assertThat(selector).isNotEmpty();
    assertThat(podLabels()).containsAllEntriesOf(selector);
  }

  @Test
  void service_targetPorts_nameExistingContainerPortsButNotAdmin() {
    Set<String> containerPortNames =
        container().getPorts().stream().map(ContainerPort::getName).collect(Collectors.toSet());
    assertThat(service.getSpec().getPorts()).isNotEmpty();
    for (ServicePort port : service.getSpec().getPorts()) {
      String target = port.getTargetPort().getStrVal();
      assertThat(target).as("targetPort of %s by name", port.getName()).isNotNull();
      assertThat(containerPortNames).contains(target);
      // The admin connector has unauthenticated tasks; it stays off the Service.
      assertThat(target).isNotEqualTo("admin");
    }
  }

  @Test
  void podDisruptionBudget_maxUnavailable_isOne() {
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(pdb.getSpec().getMinAvailable()).isNull();
  }

  @Test
  void podDisruptionBudget_selector_matchesPodLabels() {
    Map<String, String> selector = pdb.getSpec().getSelector().getMatchLabels();
    assertThat(selector).isNotEmpty();
    assertThat(podLabels()).containsAllEntriesOf(selector);
  }

  // ---- image and dev overlay --------------------------------------------------------------------

  @Test
  void dockerfile_user_matchesPodRunAsUser() throws IOException {
    String dockerfile = Files.readString(repoRoot.resolve("deploy/Dockerfile"));
    Matcher user = Pattern.compile("(?m)^USER\\s+(\\d+)").matcher(dockerfile);
    assertThat(user.find()).as("numeric USER in the Dockerfile").isTrue();
    assertThat(Long.parseLong(user.group(1))).isEqualTo(podSpec().getSecurityContext().getRunAsUser());
  }

  @Test
  void dockerfile_cmdAndPorts_matchTheDeployment() throws IOException {
    String dockerfile = Files.readString(repoRoot.resolve("deploy/Dockerfile"));
    assertThat(dockerfile).contains("CMD [\"server\", \"" + CONFIG_MOUNT_PATH + "\"]");
    assertThat(dockerfile).containsPattern("(?m)^EXPOSE\\s+8080\\s+8081\\s*$");
    assertThat(dockerfile).contains("-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void devOverlay_kustomization_buildsOnBaseWithOneReplica() throws IOException {
    JsonNode overlay = YAML.readTree(repoRoot.resolve("deploy/overlays/dev/kustomization.yaml").toFile());
    List<String> resources = new ArrayList<>();
    overlay.path("resources").forEach(node -> resources.add(node.asText()));
    assertThat(resources).contains("../../base");
    assertThat(overlay.path("replicas"))
        .anySatisfy(
            replica -> {
              assertThat(replica.path("name").asText()).isEqualTo(deployment.getMetadata().getName());
              assertThat(replica.path("count").asInt(-1)).isEqualTo(1);
            });
  }

  @Test
  void devOverlay_resourcesPatch_shrinksCpuAndKeepsMemoryRequestEqualToLimit() throws IOException {
    JsonNode overlay = YAML.readTree(repoRoot.resolve("deploy/overlays/dev/kustomization.yaml").toFile());
    List<Container> patched = new ArrayList<>();
    overlay
        .path("patches")
        .forEach(
            patch -> {
              String text = patch.path("patch").asText();
              if (text.contains("kind: Deployment")) {
                Deployment partial = Serialization.unmarshal(text, Deployment.class);
                patched.addAll(partial.getSpec().getTemplate().getSpec().getContainers());
              }
            });
    assertThat(patched).as("a Deployment patch in the dev overlay").isNotEmpty();
    Quantity baseCpu = container().getResources().getRequests().get("cpu");
    for (Container container : patched) {
      // Strategic merge matches containers by name; another name would add a second container.
      assertThat(container.getName()).isEqualTo(container().getName());
      ResourceRequirements resources = container.getResources();
      assertThat(resources).as("the patch sets resources").isNotNull();
      Map<String, Quantity> requests = Optional.ofNullable(resources.getRequests()).orElse(Map.of());
      Map<String, Quantity> limits = Optional.ofNullable(resources.getLimits()).orElse(Map.of());
      assertThat(requests.get("cpu")).as("dev cpu request").isNotNull();
      assertThat(Quantity.getAmountInBytes(requests.get("cpu")))
          .isLessThanOrEqualTo(Quantity.getAmountInBytes(baseCpu));
      // Touching either memory value without the other would break request == limit.
      if (requests.containsKey("memory") || limits.containsKey("memory")) {
        assertMemoryRequestEqualsLimit(resources);
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static void assertHealthProbe(Probe probe, String type) {
    assertThat(probe).isNotNull();
    HTTPGetAction get = probe.getHttpGet();
    assertThat(get).as("an HTTP probe").isNotNull();
    assertThat(get.getPath()).isEqualTo("/health-check?type=" + type);
    assertThat(get.getPort().getStrVal()).as("probe port by name").isEqualTo("http");
    assertThat(containerPort(get.getPort().getStrVal())).isEqualTo(8080);
    // The path must be one Dropwizard actually serves.
    List<String> servedPaths = new ArrayList<>();
    deployedConfig.path("health").path("healthCheckUrlPaths").forEach(p -> servedPaths.add(p.asText()));
    assertThat(servedPaths).contains(get.getPath().substring(0, get.getPath().indexOf('?')));
  }

  private static void assertMemoryRequestEqualsLimit(ResourceRequirements resources) {
    Quantity request = resources.getRequests().get("memory");
    Quantity limit = resources.getLimits().get("memory");
    assertThat(request).as("memory request").isNotNull();
    assertThat(limit).as("memory limit").isNotNull();
    // Compared as amounts, so 1Gi and 1024Mi are equal.
    assertThat(Quantity.getAmountInBytes(request)).isEqualByComparingTo(Quantity.getAmountInBytes(limit));
  }

  private static Path findRepoRoot() {
    Path dir = Paths.get("").toAbsolutePath();
    for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
      if (Files.isDirectory(candidate.resolve("deploy/base"))) {
        return candidate;
      }
    }
    return fail("no deploy/base found in %s or any parent directory", dir);
  }

  private static List<Path> baseManifestFiles() throws IOException {
    try (Stream<Path> files = Files.list(baseDir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .filter(p -> !p.getFileName().toString().startsWith("kustomization."))
          .sorted()
          .toList();
    }
  }

  private static <T> T single(Class<T> type) {
    List<T> found = parsedBase.values().stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as("exactly one %s in deploy/base", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static JsonNode repositoryConfig() throws IOException {
    return YAML.readTree(repoRoot.resolve("config.yml").toFile());
  }

  private static Set<String> fieldNames(JsonNode node) {
    Set<String> names = new LinkedHashSet<>();
    ((ObjectNode) node).fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static long seconds(JsonNode duration) {
    assertThat(duration.isTextual()).as("a duration in the deployed config").isTrue();
    return Duration.parse(duration.asText()).toSeconds();
  }

  private static int connectorPort(String connectors) {
    String port = deployedConfig.path("server").path(connectors).path(0).path("port").asText();
    Matcher reference = ENV_REFERENCE.matcher(port);
    if (reference.matches()) {
      assertThat(findEnv(reference.group(1)))
          .as("%s is not overridden in the deployment", reference.group(1))
          .isEmpty();
      assertThat(reference.group(2)).as("default for %s", reference.group(1)).isNotNull();
      return Integer.parseInt(reference.group(2).substring(2));
    }
    return Integer.parseInt(port);
  }

  private static PodSpec podSpec() {
    return deployment.getSpec().getTemplate().getSpec();
  }

  private static Map<String, String> podLabels() {
    return deployment.getSpec().getTemplate().getMetadata().getLabels();
  }

  private static Container container() {
    List<Container> containers = podSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  private static int containerPort(String name) {
    return container().getPorts().stream()
        .filter(p -> name.equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElseGet(() -> fail("no container port named %s", name));
  }

  private static EnvVar env(String name) {
    return findEnv(name).orElseGet(() -> fail("no env %s", name));
  }

  private static Optional<EnvVar> findEnv(String name) {
    return container().getEnv().stream().filter(e -> name.equals(e.getName())).findFirst();
  }

  private static VolumeMount mountAt(String path) {
    return container().getVolumeMounts().stream()
        .filter(m -> path.equals(m.getMountPath()))
        .findFirst()
        .orElseGet(() -> fail("nothing mounted at %s", path));
  }

  private static Volume volume(String name) {
    return podSpec().getVolumes().stream()
        .filter(v -> name.equals(v.getName()))
        .findFirst()
        .orElseGet(() -> fail("no volume named %s", name));
  }

  /** Walks fabric8 model objects and reports every non-empty additionalProperties map. */
  static void collectUnknownFields(Object node, String path, List<String> out) {
    collectUnknownFields(node, path, out, new HashSet<>());
  }

  private static void collectUnknownFields(Object node, String path, List<String> out, Set<Object> seen) {
    if (node == null) {
      return;
    }
    if (node instanceof Map<?, ?> map) {
      map.forEach((key, value) -> collectUnknownFields(value, path + "." + key, out, seen));
      return;
    }
    if (node instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        collectUnknownFields(item, path + "[" + i++ + "]", out, seen);
      }
      return;
    }
    if (!node.getClass().getName().startsWith("io.fabric8.kubernetes.api.model.")
        || !seen.add(new IdentityKey(node))) {
      return;
    }
    for (Method getter : node.getClass().getMethods()) {
      String name = getter.getName();
      if (getter.getParameterCount() != 0
          || !name.startsWith("get")
          || name.equals("getClass")
          || java.lang.reflect.Modifier.isStatic(getter.getModifiers())) {
        continue;
      }
      Object value;
      try {
        value = getter.invoke(node);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue;
      }
      if (name.equals("getAdditionalProperties")) {
        if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
          out.add(path + ": " + extra.keySet());
        }
      } else {
        collectUnknownFields(value, path + "." + decapitalize(name.substring(3)), out, seen);
      }
    }
  }

  private static String decapitalize(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  /** Identity, not equals(): fabric8 objects compare by value, and equal siblings must both be walked. */
  private record IdentityKey(Object target) {
    @Override
    public boolean equals(Object other) {
      return other instanceof IdentityKey key && key.target == target;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(target);
    }
  }
}

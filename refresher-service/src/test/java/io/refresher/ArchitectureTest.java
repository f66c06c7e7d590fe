package io.refresher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The domain imports no framework; JAX-RS stays at the HTTP edge; the adapters are reached only
 * through the composition root; threads and the wall clock come from the composition root.
 */
class ArchitectureTest {

  private static final String[] FRAMEWORKS = {
    "io.dropwizard..",
    "jakarta.ws.rs..",
    "org.glassfish.jersey..",
    "org.quartz..",
    "org.redisson..",
    "com.zaxxer..",
    "java.sql..",
    "org.jdbi..",
    "org.postgresql..",
    "org.apache.hc..",
    "com.codahale.metrics..",
    "io.debezium..",
    "org.apache.kafka.."
  };

  /** The packages that talk to something outside the JVM: Redis, PostgreSQL, HTTP sources, Quartz. */
  private static final String[] ADAPTERS = {
    "io.refresher.redis..",
    "io.refresher.persistence..",
    "io.refresher.scheduling..",
    "io.refresher.jdbc..",
    "io.refresher.http..",
    "io.refresher.changes.."
  };

  /**
   * Who may name an adapter: the composition root; the health checks and metrics that look at
   * one; the {@code db} command; and the configuration, whose factories build the pools and the
   * Redis client with their lifecycle and health check (the Dropwizard way: a factory owns what it
   * builds).
   */
  private static final String[] ADAPTER_USERS = {
    "io.refresher.wiring..", "io.refresher.health..", "io.refresher.metrics..", "io.refresher.cli..", "io.refresher.config.."
  };

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    // The rules look at the packages of referenced classes only; importing the whole classpath
    // behind them (the default) would take seconds and prove nothing more.
    ArchConfiguration.get().setResolveMissingDependenciesFromClassPath(false);
    classes =
        new ClassFileImporter()
            .withImportOption(new ImportOption.DoNotIncludeTests())
            // the embedded Redis/PostgreSQL test helpers are another module, not this service
            .withImportOption(location -> !location.contains("/io/refresher/embedded/"))
            // nor is the client, a library that lives in the applications (and owns its flush thread)
            .withImportOption(location -> !location.contains("/io/refresher/client/"))
            .importPackages("io.refresher");
  }

  @AfterAll
  static void resetArchUnit() {
    ArchConfiguration.get().reset();
  }

  @Test
  void import_mainClasses_coverEveryLayer() {
    // guards against a rule passing because nothing was imported
    assertThat(classes.containPackage("io.refresher.registry")).isTrue();
    assertThat(classes.containPackage("io.refresher.refresh")).isTrue();
    assertThat(classes.containPackage("io.refresher.api")).isTrue();
    assertThat(classes.contain("io.refresher.refresh.Refresher")).isTrue();
    assertThat(classes.contain("io.refresher.ArchitectureTest")).isFalse();
  }

  @Test
  void registry_dependencies_includeNoFramework() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.refresher.registry..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(FRAMEWORKS)
            .because("the registry is domain logic; adapters sit behind its ports");

    rule.check(classes);
  }

  @Test
  void refresh_dependencies_includeNoFramework() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.refresher.refresh..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(FRAMEWORKS)
            .because("the refresh logic is domain logic; adapters sit behind its ports");

    rule.check(classes);
  }

  @Test
  void access_dependencies_includeNoFramework() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.refresher.access..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(FRAMEWORKS)
            .because("popularity and the hot set are domain logic; Redis and PostgreSQL sit behind ports");

    rule.check(classes);
  }

  @Test
  void prewarm_dependencies_includeNoFramework() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.refresher.prewarm..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(FRAMEWORKS)
            .because("what a data loss means and what to refill first are domain decisions");

    rule.check(classes);
  }

  @Test
  void domain_dependencies_includeNoAdapterPackage() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAnyPackage(
                "io.refresher.registry..", "io.refresher.refresh..", "io.refresher.access..", "io.refresher.prewarm..",
                "io.refresher.source..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "io.refresher.redis..", "io.refresher.persistence..", "io.refresher.scheduling..", "io.refresher.api..",
                "io.refresher.health..", "io.refresher.metrics..", "io.refresher.config..", "io.refresher.jdbc..",
                "io.refresher.http..", "io.refresher.changes..", "io.refresher.wiring..")
            .because("the domain talks to its adapters through ports it owns");

    rule.check(classes);
  }

  @Test
  void packages_haveNoCycles() {
    ArchRule rule =
        slices()
            .matching("io.refresher.(*)..")
            .should()
            .beFreeOfCycles()
            .because("each package is one room with one door; a cycle makes two rooms one");

    rule.check(classes);
  }

  @Test
  void sourceDefinitions_dependencies_includeNoFramework() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.refresher.source..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(FRAMEWORKS)
            .because("what a source is (its parameters, its result) is domain; running it on JDBC is the jdbc adapter's job");

    rule.check(classes);
  }

  @Test
  void jaxRs_dependencies_onlyFromApi() {
    ArchRule rule =
        noClasses()
            .that()
            .resideOutsideOfPackage("io.refresher.api..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("jakarta.ws.rs..")
            .because("HTTP concerns are mapped in one place, at the edge");

    rule.check(classes);
  }

  @Test
  void adapters_reachedOnlyFromTheCompositionRootNeverFromEachOther() {
    for (String adapter : ADAPTERS) {
      String[] allowed = Arrays.copyOf(ADAPTER_USERS, ADAPTER_USERS.length + 1);
      allowed[ADAPTER_USERS.length] = adapter;
      ArchRule rule =
          noClasses()
              .that()
              .resideOutsideOfPackages(allowed)
              .and()
              .doNotHaveFullyQualifiedName(RefresherApplication.class.getName())
              .should()
              .dependOnClassesThat()
              .resideInAPackage(adapter)
              .because("an adapter is chosen and built in one place; the API and the other adapters see ports");

      rule.check(classes);
    }
  }

  @Test
  void dropwizardEnvironment_seenOnlyByTheCompositionRootAndTheFactories() {
    ArchRule rule =
        noClasses()
            .that()
            .resideOutsideOfPackages("io.refresher.wiring..", "io.refresher.config..")
            .and()
            .doNotHaveFullyQualifiedName(RefresherApplication.class.getName())
            .should()
            .dependOnClassesThat()
            .haveFullyQualifiedName("io.dropwizard.core.setup.Environment")
            .because("a part gets what it needs (a registry, a lifecycle), not the whole service to register itself in");

    rule.check(classes);
  }

  @Test
  void threads_madeOnlyByTheCompositionRoot() {
    ArchRule rule =
        noClasses()
            .that()
            .resideOutsideOfPackage("io.refresher.wiring..")
            // its pools are made at start and given back at stop, with the keys they wait on
            // (RefreshDispatcher's comment); their threads come from the factory it is given
            .and()
            .doNotHaveFullyQualifiedName("io.refresher.refresh.RefreshDispatcher")
            .should()
            .callConstructorWhere(
                JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                    JavaClass.Predicates.assignableTo(Thread.class))))
            .orShould()
            .callMethodWhere(
                JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                    JavaClass.Predicates.equivalentTo(Executors.class))))
            .orShould()
            .callConstructorWhere(
                JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                    // named one by one: the subclass relation is not read from the classpath here
                    JavaClass.Predicates.belongToAnyOf(
                        ThreadPoolExecutor.class, ScheduledThreadPoolExecutor.class, ForkJoinPool.class))))
            .because("every thread has a name that says whose it is and stops with the service (wiring.Threads, "
                + "Dropwizard's lifecycle executors)");

    rule.check(classes);
  }

  @Test
  void wallClock_readOnlyByTheCompositionRoot() {
    ArchRule rule =
        noClasses()
            .that()
            .resideOutsideOfPackage("io.refresher.wiring..")
            .should()
            .callMethod(System.class, "currentTimeMillis")
            .orShould()
            .callMethod(Instant.class, "now")
            .because("every part takes the clock it is given (an InstantSource), so that tests and a skewed "
                + "machine can move time");

    rule.check(classes);
  }
}

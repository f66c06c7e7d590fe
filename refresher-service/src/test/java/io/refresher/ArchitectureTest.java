package io.refresher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The domain imports no framework; JAX-RS stays at the HTTP edge. */
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
    "com.codahale.metrics.."
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
}

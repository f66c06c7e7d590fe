package io.refresher.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Maven and java commands the README and deploy/README.md show work as written: the modules,
 * test classes, classes, jars and options they name exist, and test selections work on a fresh
 * clone. Readers copy these commands; a renamed class or module otherwise breaks them unseen.
 */
class DocsCommandsTest {

  private static final List<String> DOCS_WITH_COMMANDS = List.of("README.md", "deploy/README.md");

  private final Path root = RepositoryRoot.find();
  private final CommandCheck check = new CommandCheck(root, new RepositoryModules(root));

  @Test
  void everyShownCommandNamesWhatExists() {
    List<ShownCommand> commands = new ArrayList<>();
    for (String doc : DOCS_WITH_COMMANDS) {
      commands.addAll(ShownCommand.in(doc, MarkdownFile.read(root.resolve(doc))));
    }
    assertThat(commands).as("commands found").extracting(ShownCommand::program).contains("mvn", "java");
    List<String> problems = new ArrayList<>();
    for (ShownCommand command : commands) {
      for (String problem : check.problems(command)) {
        problems.add(command.where() + ": `" + command + "` " + problem);
      }
    }
    assertThat(problems).as("commands that do not work as shown").isEmpty();
  }

  @Test
  void aSingleModuleTestSelection_needsAlsoMakeAndNoFailureOnOtherModules() {
    ShownCommand fresh = new ShownCommand("x.md", 1, ShownCommand.words("mvn -pl refresher-service test -Dtest='DeployManifestsTest'"));
    assertThat(check.problems(fresh)).hasSize(2).anySatisfy(p -> assertThat(p).contains("-am"))
        .anySatisfy(p -> assertThat(p).contains("-Dsurefire.failIfNoSpecifiedTests=false"));
    ShownCommand fixed = new ShownCommand("x.md", 1, ShownCommand.words(
        "mvn -pl refresher-service -am test -Dtest='Deploy*Test' -Dsurefire.failIfNoSpecifiedTests=false"));
    assertThat(check.problems(fixed)).isEmpty();
  }

  @Test
  void aRunnerModule_selectsTheTestsOfTheTestJarItScans() {
    String selection = " -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Dit.test=";
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("mvn -pl refresher-it-timed" + selection + "KeepFreshIT"))))
        .isEmpty();
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("mvn -pl refresher-it-timed" + selection + "NoSuchIT"))))
        .singleElement().asString().contains("NoSuchIT");
    // The service's own tests are unit tests: it scans no test jar.
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("mvn -pl refresher-service" + selection + "KeepFreshIT"))))
        .singleElement().asString().contains("KeepFreshIT");
  }

  @Test
  void unknownModulesClassesJarsAndOptions_areNamed() {
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("mvn -pl nowhere verify"))))
        .singleElement().asString().contains("nowhere");
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words(
        "mvn -pl refresher-service -am verify -Dit.test=NoSuchIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false"))))
        .singleElement().asString().contains("NoSuchIT");
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("java -jar refresher-demo/target/demo.jar demo"))))
        .singleElement().asString().contains("refresher-demo/target/refresher-demo.jar");
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("java -jar refresher-demo/target/refresher-demo.jar demo --no-such-option"))))
        .singleElement().asString().contains("--no-such-option");
    assertThat(check.problems(new ShownCommand("x.md", 1, ShownCommand.words("java -cp refresher-bench/target/refresher-bench.jar io.refresher.NoSuchMain"))))
        .singleElement().asString().contains("io.refresher.NoSuchMain");
  }
}

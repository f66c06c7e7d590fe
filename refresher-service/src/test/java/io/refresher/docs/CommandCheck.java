package io.refresher.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What is wrong with a Maven or java command a doc shows: modules, test classes, classes, jars and
 * CLI words that do not exist, and test selections that fail on a fresh clone. Each problem is one
 * sentence naming what is wrong; the caller adds the file and line.
 */
final class CommandCheck {

  private static final Pattern QUALIFIED_CLASS = Pattern.compile("\\bio\\.refresher(?:\\.[a-z][a-z0-9_]*)*\\.[A-Z][A-Za-z0-9_]*");
  private static final Pattern MODULE_JAR = Pattern.compile("([^/]+)/target/([^/]+)\\.jar");
  /** Dropwizard's own commands, which no source of ours names. */
  private static final Set<String> DROPWIZARD_COMMANDS = Set.of("server", "check");

  private final Path root;
  private final RepositoryModules modules;
  private final Map<String, Set<String>> literalsByModule = new HashMap<>();

  CommandCheck(Path root, RepositoryModules modules) {
    this.root = root;
    this.modules = modules;
  }

  List<String> problems(ShownCommand command) {
    List<String> problems = new ArrayList<>();
    Matcher qualified = QUALIFIED_CLASS.matcher(command.toString());
    while (qualified.find()) {
      if (!modules.declaresClass(qualified.group())) {
        problems.add("names class " + qualified.group() + ", which no module's sources declare");
      }
    }
    if (command.program().equals("mvn")) {
      checkMaven(command.words(), problems);
    } else {
      checkJava(command.words(), problems);
    }
    return problems;
  }

  private void checkMaven(List<String> words, List<String> problems) {
    Set<String> projects = new LinkedHashSet<>();
    boolean alsoMake = false;
    Map<String, String> properties = new HashMap<>();
    for (int i = 1; i < words.size(); i++) {
      String word = words.get(i);
      if ((word.equals("-pl") || word.equals("--projects")) && i + 1 < words.size()) {
        projects.addAll(Arrays.asList(words.get(++i).split(",")));
      } else if (word.equals("-am") || word.equals("--also-make")) {
        alsoMake = true;
      } else if (word.startsWith("-D")) {
        int eq = word.indexOf('=');
        properties.put(eq < 0 ? word.substring(2) : word.substring(2, eq), eq < 0 ? "true" : word.substring(eq + 1));
      }
    }
    for (String project : projects) {
      if (!modules.exists(project)) {
        problems.add("-pl names module " + project + ", which is no directory with a pom.xml listed in the root pom's <modules> " + modules.names());
      }
    }
    Set<String> scope = projects.isEmpty() ? modules.names() : projects;
    checkSelection(properties, "test", "surefire", scope, !projects.isEmpty(), alsoMake, problems);
    checkSelection(properties, "it.test", "failsafe", scope, !projects.isEmpty(), alsoMake, problems);
  }

  /**
   * A -Dtest (surefire) or -Dit.test (failsafe) selection: each class or pattern matches a test
   * class of the selected modules; and the command works on a fresh clone, where a single module
   * without -am cannot resolve its sibling modules, and every module the selection does not match
   * fails the build unless failIfNoSpecifiedTests is false.
   */
  private void checkSelection(Map<String, String> properties, String property, String plugin, Set<String> scope,
      boolean singleModules, boolean alsoMake, List<String> problems) {
    String selection = properties.get(property);
    if (selection == null) {
      return;
    }
    Set<String> testClasses = modules.testClasses(scope);
    for (String entry : selection.split(",")) {
      String pattern = entry.strip().replaceFirst("^!", "").replaceFirst("#.*$", "");
      pattern = pattern.substring(Math.max(pattern.lastIndexOf('/'), pattern.lastIndexOf('.')) + 1);
      if (pattern.isEmpty() || pattern.equals("none")) {
        continue; // "none" selects nothing on purpose: the other plugin's tests are the point
      }
      Pattern regex = Pattern.compile(Pattern.quote(pattern).replace("*", "\\E.*\\Q"));
      if (testClasses.stream().noneMatch(name -> regex.matcher(name).matches())) {
        problems.add("-D" + property + "=" + selection + ": " + entry.strip() + " matches no test class of " + scope);
      }
    }
    String failIfNone = plugin + ".failIfNoSpecifiedTests";
    if (!"false".equals(properties.get(failIfNone))) {
      problems.add("-D" + property + "= without -D" + failIfNone + "=false fails in every module that has no such test");
    }
    if (singleModules && !alsoMake) {
      problems.add("-pl without -am fails on a fresh clone: the module's sibling dependencies are not installed");
    }
  }

  private void checkJava(List<String> words, List<String> problems) {
    for (int i = 1; i < words.size(); i++) {
      String word = words.get(i);
      if ((word.equals("-cp") || word.equals("-classpath")) && i + 1 < words.size()) {
        jarModule(words.get(++i), problems);
        return; // a main class follows, with its own arguments (JMH's, for one)
      }
      if (word.equals("-jar") && i + 1 < words.size()) {
        List<String> arguments = words.subList(i + 2, words.size());
        jarModule(words.get(i + 1), problems).ifPresent(module -> checkArguments(module, arguments, problems));
        return;
      }
    }
  }

  /** The module whose build writes the jar at {@code path}, if it is one. */
  private Optional<String> jarModule(String path, List<String> problems) {
    Matcher jar = MODULE_JAR.matcher(path);
    if (!jar.matches()) {
      problems.add("runs " + path + ", which is not <module>/target/<name>.jar");
      return Optional.empty();
    }
    String module = jar.group(1);
    if (!modules.exists(module)) {
      problems.add("runs " + path + ", but " + module + " is no module of the root pom " + modules.names());
      return Optional.empty();
    }
    Optional<String> built = modules.jarName(module);
    if (built.isEmpty() || !built.get().equals(jar.group(2))) {
      problems.add("runs " + path + ", but " + module + "'s pom builds " + built.map(n -> module + "/target/" + n + ".jar").orElse("no named jar"));
      return Optional.empty();
    }
    return Optional.of(module);
  }

  /**
   * The program's own arguments: each --option and each command word is a string literal of the
   * module's main sources (argparse4j and hand-written parsers both name them as literals), each
   * configuration file exists.
   */
  private void checkArguments(String module, List<String> arguments, List<String> problems) {
    Set<String> literals = literalsByModule.computeIfAbsent(module, modules::mainStringLiterals);
    for (String argument : arguments) {
      if (argument.startsWith("-")) {
        String option = argument.contains("=") ? argument.substring(0, argument.indexOf('=')) : argument;
        if (!literals.contains(option)) {
          problems.add("passes " + option + ", which " + module + "'s sources do not define");
        }
      } else if (argument.endsWith(".yml") || argument.endsWith(".yaml")) {
        if (!Files.isRegularFile(root.resolve(argument))) {
          problems.add("reads " + argument + ", which does not exist");
        }
      } else if (argument.matches("[a-z][a-z-]*") && !DROPWIZARD_COMMANDS.contains(argument) && !literals.contains(argument)) {
        problems.add("runs command " + argument + ", which " + module + "'s sources do not define");
      }
    }
  }
}

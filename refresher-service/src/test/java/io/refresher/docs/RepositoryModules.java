package io.refresher.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Maven modules as the build knows them, read from the poms and source trees (not from the
 * classpath, so the check needs no module built): names, jar names, test classes, classes, and
 * the string literals of their main sources (where a CLI's option names are written).
 */
final class RepositoryModules {

  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Pattern FINAL_NAME = Pattern.compile("<finalName>([^<]+)</finalName>");
  private static final Pattern SHADED_JAR = Pattern.compile("<outputFile>\\$\\{project\\.build\\.directory\\}/([^<]+)\\.jar</outputFile>");
  private static final Pattern STRING_LITERAL = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");
  /** A module whose tests a runner module's failsafe scans: {@code io.refresher:<module>:test-jar...}. */
  private static final Pattern SCANNED_MODULE = Pattern.compile("<dependency>io\\.refresher:([^:<]+):test-jar[^<]*</dependency>");

  private final Path root;
  private final Set<String> modules;

  RepositoryModules(Path root) {
    this.root = root;
    this.modules = new LinkedHashSet<>();
    Matcher module = MODULE.matcher(RepositoryRoot.read(root.resolve("pom.xml")));
    while (module.find()) {
      modules.add(module.group(1).strip());
    }
  }

  Set<String> names() {
    return modules;
  }

  /** A module the root pom lists and whose directory holds a pom.xml. */
  boolean exists(String module) {
    return modules.contains(module) && Files.isRegularFile(root.resolve(module).resolve("pom.xml"));
  }

  /** The name of the jar the module's build writes to target/, without ".jar". */
  Optional<String> jarName(String module) {
    String pom = RepositoryRoot.read(root.resolve(module).resolve("pom.xml"));
    for (Pattern pattern : List.of(SHADED_JAR, FINAL_NAME)) {
      Matcher name = pattern.matcher(pom);
      if (name.find()) {
        return Optional.of(name.group(1));
      }
    }
    return Optional.empty();
  }

  /**
   * Simple names of the classes in the modules' test sources, and in those of the modules whose
   * test jar they scan for tests (a runner module has no test sources of its own).
   */
  Set<String> testClasses(Set<String> inModules) {
    Set<String> names = new LinkedHashSet<>();
    for (String module : withScannedModules(inModules)) {
      for (Path file : javaFiles(root.resolve(module).resolve("src/test/java"))) {
        String name = file.getFileName().toString();
        names.add(name.substring(0, name.length() - ".java".length()));
      }
    }
    return names;
  }

  private Set<String> withScannedModules(Set<String> inModules) {
    Set<String> all = new LinkedHashSet<>(inModules);
    for (String module : inModules) {
      Path pom = root.resolve(module).resolve("pom.xml");
      if (Files.isRegularFile(pom)) {
        Matcher scanned = SCANNED_MODULE.matcher(RepositoryRoot.read(pom));
        while (scanned.find()) {
          all.add(scanned.group(1));
        }
      }
    }
    return all;
  }

  /** Whether a main or test source file of some module declares the fully qualified class. */
  boolean declaresClass(String qualifiedName) {
    String relative = qualifiedName.replace('.', '/') + ".java";
    for (String module : modules) {
      for (String tree : List.of("src/main/java", "src/test/java")) {
        if (Files.isRegularFile(root.resolve(module).resolve(tree).resolve(relative))) {
          return true;
        }
      }
    }
    return false;
  }

  /** The string literals of a module's main sources. */
  Set<String> mainStringLiterals(String module) {
    Set<String> literals = new LinkedHashSet<>();
    for (Path file : javaFiles(root.resolve(module).resolve("src/main/java"))) {
      Matcher literal = STRING_LITERAL.matcher(RepositoryRoot.read(file));
      while (literal.find()) {
        literals.add(literal.group(1));
      }
    }
    return literals;
  }

  private static List<Path> javaFiles(Path tree) {
    if (!Files.isDirectory(tree)) {
      return List.of();
    }
    try (Stream<Path> paths = Files.walk(tree)) {
      return paths.filter(p -> p.toString().endsWith(".java")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package io.refresher.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the repository's Markdown files leads somewhere: the file exists and,
 * with a #fragment into a Markdown file, so does the heading or anchor. A moved or renamed doc
 * otherwise leaves links that 404 on GitHub with nothing to notice it.
 */
class DocsLinksTest {

  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  private final Path root = RepositoryRoot.find();
  private final Map<Path, MarkdownFile> parsed = new HashMap<>();

  @Test
  void everyRelativeLinkPointsToAFileAndHeadingThatExist() {
    List<Path> files = markdownFiles(root);
    assertThat(files).contains(root.resolve("README.md"), root.resolve("deploy/README.md"));
    List<String> broken = new ArrayList<>();
    for (Path file : files) {
      for (MarkdownFile.Link link : markdown(file).links()) {
        String problem = problem(file, link.target());
        if (problem != null) {
          broken.add(root.relativize(file) + ":" + link.line() + ": link (" + link.target() + ") " + problem);
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  /** The Markdown files of the repository, leaving out build output, dependencies and dot-directories. */
  static List<Path> markdownFiles(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths
          .filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
          .filter(p -> root.relativize(p).getParent() == null || isSourceDirectory(root.relativize(p).getParent()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isSourceDirectory(Path relativeDir) {
    for (Path part : relativeDir) {
      String name = part.toString();
      if (name.equals("target") || name.equals("node_modules") || name.startsWith(".")) {
        return false;
      }
    }
    return true;
  }

  /** What is wrong with one link of {@code file}, or null when nothing is (or it is not ours to check). */
  private String problem(Path file, String target) {
    if (SCHEME.matcher(target).find() || target.startsWith("//")) {
      return null; // http(s), mailto and other schemes: external, not checked
    }
    int hash = target.indexOf('#');
    String pathPart = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
    String fragment = hash < 0 ? null : target.substring(hash + 1);
    Path resolved = pathPart.isEmpty()
        ? file
        : (pathPart.startsWith("/") ? root.resolve(pathPart.substring(1)) : file.getParent().resolve(pathPart)).normalize();
    if (!resolved.startsWith(root)) {
      return "leaves the repository";
    }
    if (!Files.exists(resolved)) {
      return "points to " + root.relativize(resolved) + ", which does not exist";
    }
    if (fragment == null || fragment.isEmpty() || !resolved.toString().endsWith(".md")) {
      return null; // fragments of source files (#L12) and directories are GitHub's, not headings
    }
    String anchor = URLDecoder.decode(fragment, StandardCharsets.UTF_8);
    if (!markdown(resolved).anchors().contains(anchor)) {
      return "names #" + fragment + ", which is no heading or anchor of " + root.relativize(resolved);
    }
    return null;
  }

  private MarkdownFile markdown(Path file) {
    return parsed.computeIfAbsent(file, MarkdownFile::read);
  }
}

package io.refresher.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's top directory, found by walking up from the working directory to the one whose
 * pom.xml lists refresher-service as a module: surefire runs in the module directory, an IDE may
 * run in the top one, and neither should decide whether the docs tests find the docs.
 */
final class RepositoryRoot {

  private RepositoryRoot() {}

  static Path find() {
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom) && read(pom).contains("<module>refresher-service</module>")) {
        return dir;
      }
    }
    throw new IllegalStateException("no pom.xml listing <module>refresher-service</module> at or above " + start);
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

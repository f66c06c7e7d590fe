package io.refresher.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * {@code config-test.yml}, the configuration every service of the integration tests starts from,
 * as a file. It ships in this module's jar, and Dropwizard reads a configuration from a path: the
 * first call copies it out once for the JVM.
 */
public final class TestConfig {

  private static final String RESOURCE = "config-test.yml";
  private static Path file;

  private TestConfig() {}

  /** The path of a copy of {@code config-test.yml}, the same for every call in this JVM. */
  public static synchronized Path file() {
    if (file == null) {
      file = copyOut();
    }
    return file;
  }

  private static Path copyOut() {
    try (InputStream shipped = TestConfig.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (shipped == null) {
        throw new IllegalStateException(RESOURCE + " is not on the classpath (refresher-testing's jar ships it)");
      }
      Path copy = Files.createTempFile("config-test-", ".yml");
      copy.toFile().deleteOnExit();
      Files.copy(shipped, copy, StandardCopyOption.REPLACE_EXISTING);
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException("could not copy " + RESOURCE + " out of the classpath", e);
    }
  }
}

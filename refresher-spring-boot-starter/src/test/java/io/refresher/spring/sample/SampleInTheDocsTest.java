package io.refresher.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/client/spring-boot.md shows the sample that the starter's tests run, word for word, and the
 * README quotes it and the Python example.
 */
class SampleInTheDocsTest {

  private static final Path DOCS = Path.of("..", "docs", "client", "spring-boot.md");

  @Test
  void theCatalog_fromItsFirstImport() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/refresher/spring/sample/ProductCatalog.java"));
    assertThat(Files.readString(DOCS)).contains(source.substring(source.indexOf("import ")));
  }

  /** The README's few lines for Spring Boot and for Python are parts of the examples the tests run. */
  @Test
  void theReadme_quotesTheExamples() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    String catalog = Files.readString(Path.of("src/test/java/io/refresher/spring/sample/ProductCatalog.java"));
    String method = catalog.substring(catalog.indexOf("  // Reads and counts"), catalog.lastIndexOf("  }") + 4);
    assertThat(readme).contains("```java\n" + method + "```");

    String python = Files.readString(Path.of("..", "docs", "client", "python.md"));
    String example = python.substring(python.indexOf("```python\n"), python.indexOf("```\n", python.indexOf("```python\n") + 3));
    String quoted = readme.substring(readme.indexOf("```python\n") + 10, readme.indexOf("```\n", readme.indexOf("```python\n") + 3));
    assertThat(quoted).isNotBlank();
    assertThat(example).as("docs/client/python.md's example, which the Python suite runs").contains(quoted);
  }

  @Test
  void theApplicationsSettings_upToTheTestsOwn() throws IOException {
    String settings = Files.readString(Path.of("src/test/resources/application.yml"));
    assertThat(Files.readString(DOCS)).contains(settings.substring(0, settings.indexOf("management:")));
  }
}

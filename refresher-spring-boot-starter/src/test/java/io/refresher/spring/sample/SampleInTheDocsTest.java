package io.refresher.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/client/spring-boot.md shows the sample that the starter's tests run, word for word. */
class SampleInTheDocsTest {

  private static final Path DOCS = Path.of("..", "docs", "client", "spring-boot.md");

  @Test
  void theCatalog_fromItsFirstImport() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/refresher/spring/sample/ProductCatalog.java"));
    assertThat(Files.readString(DOCS)).contains(source.substring(source.indexOf("import ")));
  }

  @Test
  void theApplicationsSettings_upToTheTestsOwn() throws IOException {
    String settings = Files.readString(Path.of("src/test/resources/application.yml"));
    assertThat(Files.readString(DOCS)).contains(settings.substring(0, settings.indexOf("management:")));
  }
}

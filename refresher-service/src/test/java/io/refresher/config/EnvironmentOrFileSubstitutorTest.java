package io.refresher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.UndefinedEnvironmentVariableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnvironmentOrFileSubstitutorTest {

  private static final String SECRET = "from-a-mounted-file-0123456789";

  @TempDir Path dir;
  private final Map<String, String> env = new HashMap<>();

  private String substitute(String text) {
    return new EnvironmentOrFileSubstitutor(env::get).replace(text);
  }

  @Test
  void variableSet_itsValue() {
    env.put("REFRESHER_ADMIN_TOKEN", "plain-value-0123456789");
    assertThat(substitute("token: ${REFRESHER_ADMIN_TOKEN}")).isEqualTo("token: plain-value-0123456789");
  }

  @Test
  void onlyTheFileVariableSet_theFilesContentWithoutItsTrailingLineBreaks() throws IOException {
    Path file = Files.writeString(dir.resolve("token"), SECRET + "\r\n\n");
    env.put("REFRESHER_ADMIN_TOKEN_FILE", file.toString());
    assertThat(substitute("token: ${REFRESHER_ADMIN_TOKEN}")).isEqualTo("token: " + SECRET);
  }

  @Test
  void fileVariableWithADefault_theFileWins_andTheDefaultWhenNeitherIsSet() throws IOException {
    Path file = Files.writeString(dir.resolve("read"), SECRET);
    env.put("REFRESHER_ADMIN_READ_TOKEN_FILE", file.toString());
    assertThat(substitute("${REFRESHER_ADMIN_READ_TOKEN:-}|${REFRESHER_ADMIN_TOKEN_NEXT:-none}")).isEqualTo(SECRET + "|none");
  }

  @Test
  void bothSet_refusedNamingBoth() throws IOException {
    Path file = Files.writeString(dir.resolve("token"), SECRET);
    env.put("REFRESHER_DB_PASSWORD", "in-the-environment");
    env.put("REFRESHER_DB_PASSWORD_FILE", file.toString());
    assertThatThrownBy(() -> substitute("${REFRESHER_DB_PASSWORD}"))
        .hasMessageContaining("REFRESHER_DB_PASSWORD and REFRESHER_DB_PASSWORD_FILE are both set")
        .hasMessageNotContaining(SECRET)
        .hasMessageNotContaining("in-the-environment");
  }

  @Test
  void unreadableFile_refusedNamingTheVariableAndThePath() {
    Path missing = dir.resolve("not-mounted");
    env.put("REFRESHER_ADMIN_TOKEN_FILE", missing.toString());
    assertThatThrownBy(() -> substitute("${REFRESHER_ADMIN_TOKEN}"))
        .hasMessageContaining("REFRESHER_ADMIN_TOKEN_FILE names " + missing + ", which cannot be read (NoSuchFileException)");
  }

  @Test
  void neitherSetAndNoDefault_stopsNamingTheVariable() {
    assertThatThrownBy(() -> substitute("${REFRESHER_DB_URL}"))
        .isInstanceOf(UndefinedEnvironmentVariableException.class)
        .hasMessageContaining("REFRESHER_DB_URL");
  }
}

package io.refresher.config;

import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.apache.commons.text.lookup.StringLookup;

/**
 * Substitutes {@code ${NAME}} in {@code config.yml} from the environment, or, when {@code NAME} is
 * not set, from the file that {@code NAME_FILE} names: the convention of container images (the
 * official PostgreSQL image's {@code POSTGRES_PASSWORD_FILE}), so that a secret mounted as a file
 * (a Kubernetes secret volume, a Docker secret) never has to pass through an environment
 * variable, where {@code /proc/<pid>/environ}, {@code kubectl describe} and crash reports can show
 * it. The file's content is the value, less its trailing line breaks ({@code echo} adds one).
 *
 * <p>Setting both {@code NAME} and {@code NAME_FILE} is refused, as is a {@code NAME_FILE} that
 * cannot be read: start-up stops with a message naming the variable and the path, never the
 * content. As with Dropwizard's own substitutor, a variable without a default that is set neither
 * way stops start-up, naming it.
 */
public final class EnvironmentOrFileSubstitutor extends EnvironmentVariableSubstitutor {

  static final String FILE_SUFFIX = "_FILE";

  public EnvironmentOrFileSubstitutor() {
    this(System::getenv);
  }

  /** @param environment the value of an environment variable, or null when it is not set */
  EnvironmentOrFileSubstitutor(UnaryOperator<String> environment) {
    super(true);
    setVariableResolver(lookup(environment));
  }

  static StringLookup lookup(UnaryOperator<String> environment) {
    return name -> {
      String value = environment.apply(name);
      String file = environment.apply(name + FILE_SUFFIX);
      if (file == null || file.isEmpty()) {
        return value;
      }
      if (value != null) {
        throw new IllegalArgumentException(
            name + " and " + name + FILE_SUFFIX + " are both set: set one (the value, or the file that holds it)");
      }
      return read(name + FILE_SUFFIX, Path.of(file));
    };
  }

  private static String read(String variable, Path file) {
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      // The exception's class and the path only: its message could quote the file.
      throw new IllegalArgumentException(
          variable + " names " + file + ", which cannot be read (" + e.getClass().getSimpleName() + ")");
    }
    int end = content.length();
    while (end > 0 && (content.charAt(end - 1) == '\n' || content.charAt(end - 1) == '\r')) {
      end--;
    }
    return content.substring(0, end);
  }
}

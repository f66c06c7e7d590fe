package io.refresher.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.AccessProtocol;
import io.refresher.embedded.RespConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the drivers' example tests check: the docs show the example word for word, and its counts. */
public final class ExampleCheck {

  private ExampleCheck() {}

  /** The example's source from its first import on is in docs/client.md (run from a module directory). */
  public static void docsShowWordForWord(String exampleSource) throws IOException {
    String source = Files.readString(Path.of(exampleSource));
    String example = source.substring(source.indexOf("import "));
    assertThat(Files.readString(Path.of("../docs/client.md"))).contains(example);
  }

  /** Reads per key in the access buckets of the Redis on 127.0.0.1:port. */
  public static Map<String, Long> accessCounts(int port) throws IOException {
    Map<String, Long> sums = new HashMap<>();
    try (RespConnection redis = RespConnection.open(port, Duration.ofSeconds(5))) {
      for (Object bucket : (List<?>) redis.call("KEYS", AccessProtocol.PREFIX + "*")) {
        List<?> fields = (List<?>) redis.call("HGETALL", bucket.toString());
        for (int i = 0; i < fields.size(); i += 2) {
          sums.merge(fields.get(i).toString(), Long.parseLong(fields.get(i + 1).toString()), Long::sum);
        }
      }
    }
    return sums;
  }
}

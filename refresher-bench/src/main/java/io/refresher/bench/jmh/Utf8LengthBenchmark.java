package io.refresher.bench.jmh;

import io.refresher.refresh.Refresher;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The value size check of every refresh: {@code Refresher.utf8Length} (counts without copying)
 * next to what it replaces, {@code getBytes(UTF_8).length} (a copy of the value), on a 4 KB JSON
 * value, all ASCII or with some non-ASCII text (accents, CJK, an emoji: the string is then UTF-16
 * inside the JVM, not Latin-1).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class Utf8LengthBenchmark {

  @State(Scope.Benchmark)
  public static class Value {
    @Param({"ascii", "mixed"})
    public String text;

    String value;

    @Setup(Level.Trial)
    public void build() {
      String item =
          text.equals("ascii")
              ? "{\"id\":42,\"name\":\"Phone Pro\",\"city\":\"Zurich\",\"note\":\"in stock\"},"
              : "{\"id\":42,\"name\":\"Téléphone\",\"city\":\"Zürich\",\"note\":\"在庫あり 📦\"},";
      StringBuilder json = new StringBuilder("[");
      while (json.length() < 4096) {
        json.append(item);
      }
      value = json.append("{}]").toString();
    }
  }

  @Benchmark
  public long utf8Length(Value v) {
    return Refresher.utf8Length(v.value);
  }

  /** The allocation the counting avoids. */
  @Benchmark
  public int getBytesLength(Value v) {
    return v.value.getBytes(StandardCharsets.UTF_8).length;
  }
}

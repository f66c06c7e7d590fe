package io.refresher.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

  private static final List<String> PHASES = List.of("ceiling", "throughput", "stampede", "memory");

  @Test
  void noOptions_theFullRunOfEveryPhase() throws Exception {
    BenchOptions options = BenchOptions.parse(new String[0], PHASES);
    assertThat(options).isEqualTo(new BenchOptions(false, false, "full", Path.of("bench/results"), PHASES));
  }

  @Test
  void tiny_isAlsoQuick_andNamedTiny() throws Exception {
    BenchOptions options = BenchOptions.parse(new String[] {"--tiny", "--out", "/tmp/x"}, PHASES);
    assertThat(options.tiny()).isTrue();
    assertThat(options.quick()).isTrue();
    assertThat(options.label()).isEqualTo("tiny");
    assertThat(options.out()).isEqualTo(Path.of("/tmp/x"));
  }

  @Test
  void phases_runInTheirOwnOrder_whateverTheOrderAsked() throws Exception {
    BenchOptions options = BenchOptions.parse(new String[] {"--quick", "--label", "mine", "--phases", "memory,ceiling"}, PHASES);
    assertThat(options.phases()).containsExactly("ceiling", "memory");
    assertThat(options.label()).isEqualTo("mine");
  }

  @Test
  void aMistypedOption_isAnError() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--quik"}, PHASES))
        .isInstanceOf(ArgumentParserException.class)
        .hasMessageContaining("--quik");
  }

  @Test
  void anUnknownPhase_isAnError_namingThePhases() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--phases", "ceiling,foo"}, PHASES))
        .isInstanceOf(ArgumentParserException.class)
        .hasMessageContaining("'foo'")
        .hasMessageContaining("ceiling, throughput, stampede, memory");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--phases", ""}, PHASES))
        .isInstanceOf(ArgumentParserException.class);
  }

  @Test
  void quickAndTiny_together_isAnError() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--quick", "--tiny"}, PHASES))
        .isInstanceOf(ArgumentParserException.class);
  }

  @Test
  void anOptionWithoutItsValue_isAnError() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--label"}, PHASES))
        .isInstanceOf(ArgumentParserException.class);
  }
}

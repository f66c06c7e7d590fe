package io.refresher.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.testing.PromQlNames.Use;
import org.junit.jupiter.api.Test;

class PromQlNamesTest {

  @Test
  void of_aggregationOverRate_findsTheCounterUnderRateButNoLabelOrFunction() {
    assertThat(PromQlNames.of("sum by (namespace, source) (rate(refresher_source_failures_total{job=\"refresher\", kind=~\"a|b\"}[5m])) > 0"))
        .containsExactly(new Use("refresher_source_failures_total", false, true));
  }

  @Test
  void of_vectorMatchingAndFunctions_findsEachMetricOnce() {
    assertThat(
            PromQlNames.of(
                "sum by (namespace) (rate(a_total[15m])) == 0\nand on (namespace)\nmax by (namespace) (changes(b{x=\"rate(c)\"}[10m])) > 0"))
        .containsExactly(new Use("a_total", false, true), new Use("b", false, false));
  }

  @Test
  void of_histogramQuantileAndOffset_findsTheBucketUnderRate() {
    assertThat(PromQlNames.of("histogram_quantile(0.99, sum without (pod) (increase(x_bucket[$__rate_interval] offset 5m))) / 1e3"))
        .containsExactly(new Use("x_bucket", false, true));
  }

  @Test
  void of_nameMatcherSelector_yieldsItsRegex() {
    assertThat(PromQlNames.of("rate({__name__=~\"refresher_.+_total\", job=\"r\"}[5m])"))
        .containsExactly(new Use("refresher_.+_total", true, true));
  }

  @Test
  void ofGrafanaVariable_labelValues_leavesTheLabelOut() {
    assertThat(PromQlNames.ofGrafanaVariable("label_values(up{job=\"refresher\", namespace=\"$namespace\"}, pod)"))
        .containsExactly(new Use("up", false, false));
  }
}

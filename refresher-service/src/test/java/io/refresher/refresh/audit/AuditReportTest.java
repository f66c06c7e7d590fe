package io.refresher.refresh.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class AuditReportTest {

  @Test
  void figures_perTemplateAndPerSource_withNinesAndMismatchAges() {
    AuditReport.Builder builder = new AuditReport.Builder();
    builder.count("products", "product", Verdict.MATCH, 990);
    builder.count("products", "product", Verdict.MISMATCH, 10);
    builder.count("products", null, Verdict.MATCH, 1000);
    builder.count("products", "product", Verdict.INCONCLUSIVE, 3);
    for (long age = 1; age <= 10; age++) {
      builder.age("products", "product", age * 1000);
    }
    AuditReport report = builder.build(0, 60_000);

    assertThat(report.byTemplate()).extracting(AuditReport.Figures::template).containsExactly(null, "product");
    AuditReport.Figures product = report.byTemplate().get(1);
    assertThat(product.samples()).isEqualTo(1000);
    assertThat(product.inconclusive()).isEqualTo(3);
    assertThat(product.matchRatio()).isEqualTo(0.99);
    assertThat(product.nines()).isCloseTo(2.0, within(1e-9));
    assertThat(product.maxMismatchAgeMillis()).isEqualTo(10_000);
    assertThat(product.p99MismatchAgeMillis()).isEqualTo(10_000);

    AuditReport.Figures source = report.bySource().get(0);
    assertThat(source.samples()).isEqualTo(2000);
    assertThat(source.mismatches()).isEqualTo(10);
    assertThat(source.nines()).isCloseTo(-Math.log10(10 / 2000.0), within(1e-9));

    AuditReport.Figures alone = report.byTemplate().get(0);
    assertThat(alone.nines()).as("no mismatch: no finite nines").isNull();
    assertThat(alone.maxMismatchAgeMillis()).isNull();
  }

  @Test
  void p99_isTheNearestRank() {
    AuditReport.Builder builder = new AuditReport.Builder();
    builder.count("s", null, Verdict.MISMATCH, 200);
    for (long age = 1; age <= 200; age++) {
      builder.age("s", null, age);
    }
    AuditReport.Figures figures = builder.build(0, 1).bySource().get(0);
    assertThat(figures.p99MismatchAgeMillis()).isEqualTo(198);
    assertThat(figures.maxMismatchAgeMillis()).isEqualTo(200);
    assertThat(figures.nines()).isEqualTo(0.0);
  }
}

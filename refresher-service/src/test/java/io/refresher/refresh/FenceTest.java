package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class FenceTest {

  @Test
  void compareTo_higherEpoch_winsOverAnyToken() {
    assertThat(new Fence(2, 1)).isGreaterThan(new Fence(1, 999_999));
    assertThat(new Fence(1, 999_999)).isLessThan(new Fence(2, 1));
  }

  @Test
  void compareTo_sameEpoch_ordersByToken() {
    assertThat(new Fence(3, 11)).isGreaterThan(new Fence(3, 10));
    assertThat(new Fence(3, 10)).isLessThan(new Fence(3, 11));
  }

  @Test
  void compareTo_sameEpochAndToken_isZero() {
    assertThat(new Fence(3, 10).compareTo(new Fence(3, 10))).isZero();
    assertThat(new Fence(3, 10)).isEqualTo(new Fence(3, 10)).hasSameHashCodeAs(new Fence(3, 10));
  }

  @Test
  void compareTo_extremeValues_doesNotOverflow() {
    // a subtraction-based compare would wrap around here
    assertThat(new Fence(0, Long.MAX_VALUE)).isGreaterThan(new Fence(0, -1));
    assertThat(new Fence(Long.MAX_VALUE, 0)).isGreaterThan(new Fence(Long.MIN_VALUE, Long.MAX_VALUE));
  }

  @Test
  void compareTo_mixedFences_sortByEpochThenToken() {
    List<Fence> fences = new ArrayList<>(List.of(new Fence(2, 1), new Fence(1, 5), new Fence(2, 0), new Fence(1, 7), new Fence(0, 100)));

    Collections.sort(fences);

    assertThat(fences)
        .containsExactly(new Fence(0, 100), new Fence(1, 5), new Fence(1, 7), new Fence(2, 0), new Fence(2, 1));
  }

  @Test
  void toString_epochAndToken_isDotted() {
    assertThat(new Fence(3, 14)).hasToString("3.14");
  }
}

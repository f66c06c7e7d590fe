package io.refresher.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class CacheControlTest {

  @Test
  void maxAge_read() {
    assertThat(CacheControl.sharedMaxAgeSeconds("public, max-age=90")).isEqualTo(OptionalDouble.of(90));
    assertThat(CacheControl.sharedMaxAgeSeconds("Max-Age=\"120\"")).isEqualTo(OptionalDouble.of(120));
  }

  @Test
  void sharedMaxAge_winsOverMaxAge_forASharedCache() {
    assertThat(CacheControl.sharedMaxAgeSeconds("max-age=60, s-maxage=600")).isEqualTo(OptionalDouble.of(600));
  }

  @Test
  void doNotKeep_readAsZero() {
    assertThat(CacheControl.sharedMaxAgeSeconds("no-store")).isEqualTo(OptionalDouble.of(0));
    assertThat(CacheControl.sharedMaxAgeSeconds("private, max-age=600")).isEqualTo(OptionalDouble.of(0));
    assertThat(CacheControl.sharedMaxAgeSeconds("no-cache")).isEqualTo(OptionalDouble.of(0));
  }

  @Test
  void nothingAboutHowLong_empty() {
    assertThat(CacheControl.sharedMaxAgeSeconds(null)).isEmpty();
    assertThat(CacheControl.sharedMaxAgeSeconds("")).isEmpty();
    assertThat(CacheControl.sharedMaxAgeSeconds("public, must-revalidate")).isEmpty();
    assertThat(CacheControl.sharedMaxAgeSeconds("max-age=ten")).isEmpty();
    assertThat(CacheControl.sharedMaxAgeSeconds("max-age=-5")).isEmpty();
  }

  @Test
  void hugeDeltaSeconds_cappedAtTwoToThe31st() {
    assertThat(CacheControl.sharedMaxAgeSeconds("max-age=99999999999999999999")).isEqualTo(OptionalDouble.of(2147483648.0));
  }
}

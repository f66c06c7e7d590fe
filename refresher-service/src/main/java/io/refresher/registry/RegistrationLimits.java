package io.refresher.registry;

import java.time.Duration;

/** The bounds a registration's TTL must fall in. */
public record RegistrationLimits(Duration minTtl, Duration maxTtl) {

  public static final RegistrationLimits DEFAULT =
      new RegistrationLimits(Duration.ofSeconds(1), Duration.ofDays(30));
}

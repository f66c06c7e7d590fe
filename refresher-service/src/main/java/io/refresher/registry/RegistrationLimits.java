package io.refresher.registry;

import java.time.Duration;

/**
 * The bounds of a registration: its TTL, and the length of each parameter value.
 *
 * @param maxParamLength the most characters (Unicode code points) of one parameter value, as
 *     given: a value is stored with the registration and bound to the source's query at every
 *     refresh and retry, so its size is bounded at the door
 */
public record RegistrationLimits(Duration minTtl, Duration maxTtl, int maxParamLength) {

  public static final int DEFAULT_MAX_PARAM_LENGTH = 1000;

  public static final RegistrationLimits DEFAULT =
      new RegistrationLimits(Duration.ofSeconds(1), Duration.ofDays(30), DEFAULT_MAX_PARAM_LENGTH);

  /** The default TTL bounds with another parameter length bound. */
  public static RegistrationLimits withMaxParamLength(int maxParamLength) {
    return new RegistrationLimits(DEFAULT.minTtl(), DEFAULT.maxTtl(), maxParamLength);
  }
}

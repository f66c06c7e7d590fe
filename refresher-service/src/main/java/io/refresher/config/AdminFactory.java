package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.refresher.registry.RegistrationLimits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * The {@code admin:} block: the bearer token that guards the admin API, and the bound of what a
 * registration may carry.
 */
public class AdminFactory {

  @NotNull
  @Size(min = 16, message = "must be at least 16 characters (set REFRESHER_ADMIN_TOKEN)")
  private String token;

  /** The most characters of one parameter value of a key or template registration. */
  @Min(1)
  @Max(1_000_000)
  private int maxParamLength = RegistrationLimits.DEFAULT_MAX_PARAM_LENGTH;

  @JsonProperty
  public String getToken() {
    return token;
  }

  @JsonProperty
  public void setToken(String token) {
    this.token = token;
  }

  @JsonProperty
  public int getMaxParamLength() {
    return maxParamLength;
  }

  @JsonProperty
  public void setMaxParamLength(int maxParamLength) {
    this.maxParamLength = maxParamLength;
  }

  public RegistrationLimits registrationLimits() {
    return RegistrationLimits.withMaxParamLength(maxParamLength);
  }

  @Override
  public String toString() {
    return "AdminFactory{token=<redacted>}";
  }
}

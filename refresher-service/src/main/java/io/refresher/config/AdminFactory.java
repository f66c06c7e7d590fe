package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.DataSizeUnit;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import io.refresher.registry.RegistrationLimits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * The {@code admin:} block: the bearer token that guards the admin API, and the bounds of what a
 * request may carry (its body, and each parameter value of a registration).
 */
public class AdminFactory {

  @NotNull
  @Size(min = 16, message = "must be at least 16 characters (set REFRESHER_ADMIN_TOKEN)")
  private String token;

  /** The largest request body the admin API reads; bigger ones get 413 (a registration is a few hundred bytes). */
  @NotNull
  @MinDataSize(value = 1, unit = DataSizeUnit.KIBIBYTES)
  @MaxDataSize(value = 64, unit = DataSizeUnit.MEBIBYTES)
  private DataSize maxBodySize = DataSize.mebibytes(1);

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
  public DataSize getMaxBodySize() {
    return maxBodySize;
  }

  @JsonProperty
  public void setMaxBodySize(DataSize maxBodySize) {
    this.maxBodySize = maxBodySize;
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

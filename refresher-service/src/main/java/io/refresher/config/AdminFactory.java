package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.DataSizeUnit;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** The {@code admin:} block: the bearer token that guards the admin API. */
public class AdminFactory {

  @NotNull
  @Size(min = 16, message = "must be at least 16 characters (set REFRESHER_ADMIN_TOKEN)")
  private String token;

  /** The largest request body the admin API reads; bigger ones get 413 (a registration is a few hundred bytes). */
  @NotNull
  @MinDataSize(value = 1, unit = DataSizeUnit.KIBIBYTES)
  @MaxDataSize(value = 64, unit = DataSizeUnit.MEBIBYTES)
  private DataSize maxBodySize = DataSize.mebibytes(1);

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

  @Override
  public String toString() {
    return "AdminFactory{token=<redacted>}";
  }
}

package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** The {@code admin:} block: the bearer token that guards the admin API. */
public class AdminFactory {

  @NotNull
  @Size(min = 16, message = "must be at least 16 characters (set REFRESHER_ADMIN_TOKEN)")
  private String token;

  @JsonProperty
  public String getToken() {
    return token;
  }

  @JsonProperty
  public void setToken(String token) {
    this.token = token;
  }

  @Override
  public String toString() {
    return "AdminFactory{token=<redacted>}";
  }
}

package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * The {@code admin:} block: the bearer tokens that guard the admin API. {@code token} grants the
 * role {@code admin} (every request); {@code readToken}, optional, grants the role {@code read}
 * (GET requests only), for dashboards and on-call tooling that must not change anything. Neither
 * value is ever logged or shown.
 */
public class AdminFactory {

  /** The shortest token accepted, for both roles. */
  public static final int MIN_TOKEN_LENGTH = 16;

  @NotNull
  @Size(min = MIN_TOKEN_LENGTH, message = "must be at least 16 characters (set REFRESHER_ADMIN_TOKEN)")
  private String token;

  @Size(min = MIN_TOKEN_LENGTH, message = "must be at least 16 characters (set REFRESHER_ADMIN_READ_TOKEN, or leave it unset)")
  private String readToken;

  @JsonProperty
  public String getToken() {
    return token;
  }

  @JsonProperty
  public void setToken(String token) {
    this.token = token;
  }

  /** The read-only token, or null when none is configured (then only {@link #getToken()} works). */
  @JsonProperty
  public String getReadToken() {
    return readToken;
  }

  /** A blank value (an unset {@code REFRESHER_ADMIN_READ_TOKEN} substituted as empty) means none. */
  @JsonProperty
  public void setReadToken(String readToken) {
    this.readToken = readToken == null || readToken.isBlank() ? null : readToken;
  }

  // One token for both roles would make every read-only client an admin.
  @ValidationMethod(message = "readToken must differ from token (REFRESHER_ADMIN_READ_TOKEN and REFRESHER_ADMIN_TOKEN are the same)")
  public boolean isReadTokenDistinct() {
    return readToken == null || token == null || !readToken.equals(token);
  }

  @Override
  public String toString() {
    return "AdminFactory{token=<redacted>, readToken=" + (readToken == null ? "<none>" : "<redacted>") + "}";
  }
}

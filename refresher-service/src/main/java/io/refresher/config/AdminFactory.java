package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.DataSizeUnit;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.ValidationMethod;
import io.refresher.registry.RegistrationLimits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code admin:} block: the bearer tokens that guard the admin API, and the bounds of what a
 * request may carry (its body, and each parameter value of a registration). {@code token} grants
 * the role {@code admin} (every request); {@code readToken}, optional, grants the role {@code
 * read} (GET requests only), for dashboards and on-call tooling that must not change anything.
 * {@code tokens} and {@code readTokens} add more of each, so that an old and a new token overlap
 * while a rotation rolls out. No token is ever logged or shown.
 */
public class AdminFactory {

  /** The shortest token accepted, for both roles. */
  public static final int MIN_TOKEN_LENGTH = 16;

  @Size(min = MIN_TOKEN_LENGTH, message = "must be at least 16 characters (set REFRESHER_ADMIN_TOKEN)")
  private String token;

  @Size(min = MIN_TOKEN_LENGTH, message = "must be at least 16 characters (set REFRESHER_ADMIN_READ_TOKEN, or leave it unset)")
  private String readToken;

  /**
   * More tokens of role {@code admin}, beside {@code token}: during a rotation the new one and the
   * old one both work (blank entries, unset variables substituted as empty, are ignored).
   */
  @NotNull private List<String> tokens = new ArrayList<>();

  /** More tokens of role {@code read}, beside {@code readToken}, as {@code tokens} are. */
  @NotNull private List<String> readTokens = new ArrayList<>();

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

  @JsonProperty
  public List<String> getTokens() {
    return tokens;
  }

  @JsonProperty
  public void setTokens(List<String> tokens) {
    this.tokens = tokens;
  }

  @JsonProperty
  public List<String> getReadTokens() {
    return readTokens;
  }

  @JsonProperty
  public void setReadTokens(List<String> readTokens) {
    this.readTokens = readTokens;
  }

  /** Every token of role {@code admin}: {@code token} and {@code tokens}, blanks left out. */
  public List<String> adminTokens() {
    return nonBlank(token, tokens);
  }

  /** Every token of role {@code read}: {@code readToken} and {@code readTokens}, blanks left out. */
  public List<String> allReadTokens() {
    return nonBlank(readToken, readTokens);
  }

  private static List<String> nonBlank(String single, List<String> more) {
    List<String> all = new ArrayList<>();
    if (single != null && !single.isBlank()) {
      all.add(single);
    }
    if (more != null) {
      more.stream().filter(t -> t != null && !t.isBlank()).forEach(all::add);
    }
    return List.copyOf(all);
  }

  @ValidationMethod(message = "admin.token or admin.tokens must name at least one admin token (set REFRESHER_ADMIN_TOKEN)")
  public boolean isAnAdminTokenSet() {
    return !adminTokens().isEmpty();
  }

  @ValidationMethod(message = "every entry of tokens and readTokens must be at least 16 characters")
  public boolean isEveryListedTokenLongEnough() {
    return nonBlank(null, tokens).stream().allMatch(t -> t.length() >= MIN_TOKEN_LENGTH)
        && nonBlank(null, readTokens).stream().allMatch(t -> t.length() >= MIN_TOKEN_LENGTH);
  }

  // One token for both roles would make every read-only client an admin.
  @ValidationMethod(message = "readToken must differ from token (REFRESHER_ADMIN_READ_TOKEN and REFRESHER_ADMIN_TOKEN are the same)")
  public boolean isReadTokenDistinct() {
    return readToken == null || token == null || !readToken.equals(token);
  }

  @ValidationMethod(message = "no token may be both an admin token (token, tokens) and a read token (readToken, readTokens)")
  public boolean isEveryReadTokenDistinct() {
    List<String> admin = adminTokens();
    return allReadTokens().stream().noneMatch(admin::contains);
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
    return "AdminFactory{" + adminTokens().size() + " admin token(s) <redacted>, " + allReadTokens().size() + " read token(s) <redacted>}";
  }
}

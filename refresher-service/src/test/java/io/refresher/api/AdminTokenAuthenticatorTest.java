package io.refresher.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AdminTokenAuthenticatorTest {

  private static final String ADMIN = "admin-token-0123456789";
  private static final String READ = "read-token-0123456789";

  private final AdminTokenAuthenticator both = new AdminTokenAuthenticator(ADMIN, READ);

  @Test
  void authenticate_adminToken_roleAdmin() {
    assertThat(both.authenticate(ADMIN)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.ADMIN));
  }

  @Test
  void authenticate_readToken_roleRead() {
    assertThat(both.authenticate(READ)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.READ));
  }

  /** The id is the first 8 hex digits of the token's SHA-256, never the token. */
  @Test
  void authenticate_principalNamesTheTokensId() throws Exception {
    String expected =
        java.util.HexFormat.of()
            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(ADMIN.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
            .substring(0, 8);
    assertThat(both.authenticate(ADMIN)).hasValueSatisfying(p -> assertThat(p.tokenId()).isEqualTo(expected));
    assertThat(both.authenticate(READ)).hasValueSatisfying(p -> assertThat(p.tokenId()).hasSize(8).isNotEqualTo(expected));
    assertThat(both.authenticate(ADMIN).orElseThrow().toString()).doesNotContain(ADMIN);
  }

  @Test
  void authenticate_nearMisses_refused() {
    for (String presented : new String[] {"", ADMIN + "x", ADMIN.substring(1), READ + " ", READ.toUpperCase(), "x"}) {
      assertThat(both.authenticate(presented)).as("'%s'", presented).isEmpty();
    }
  }

  @Test
  void authenticate_withoutReadToken_nothingIsRead() {
    // An unset REFRESHER_ADMIN_READ_TOKEN arrives as null or as an empty string; an empty
    // presented token must not match an empty configured one.
    for (String unset : new String[] {null, "", "  "}) {
      AdminTokenAuthenticator adminOnly = new AdminTokenAuthenticator(ADMIN, unset);
      assertThat(adminOnly.authenticate("")).isEmpty();
      assertThat(adminOnly.authenticate("  ")).isEmpty();
      assertThat(adminOnly.authenticate(READ)).isEmpty();
      assertThat(adminOnly.authenticate(ADMIN)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.ADMIN));
    }
  }

  @Test
  void authenticate_severalTokensPerRole_eachWorks_duringARotation() {
    String next = "next-admin-token-98765";
    String nextRead = "next-read-token-98765";
    AdminTokenAuthenticator rotating =
        new AdminTokenAuthenticator(java.util.List.of(ADMIN, next, " "), java.util.List.of(READ, nextRead, ""));
    assertThat(rotating.authenticate(ADMIN)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.ADMIN));
    assertThat(rotating.authenticate(next)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.ADMIN));
    assertThat(rotating.authenticate(READ)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.READ));
    assertThat(rotating.authenticate(nextRead)).hasValueSatisfying(p -> assertThat(p.role()).isEqualTo(Roles.READ));
    for (String presented : new String[] {"", " ", next + "x", "retired-admin-token-000"}) {
      assertThat(rotating.authenticate(presented)).as("'%s'", presented).isEmpty();
    }
  }

  @Test
  void constructor_blankAdminToken_refused() {
    assertThatThrownBy(() -> new AdminTokenAuthenticator("", READ)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void authorize_principalIsInItsOwnRoleOnly() {
    RoleAuthorizer authorizer = new RoleAuthorizer();
    assertThat(authorizer.authorize(AdminPrincipal.admin("0a1b2c3d"), Roles.ADMIN, null)).isTrue();
    assertThat(authorizer.authorize(AdminPrincipal.admin("0a1b2c3d"), Roles.READ, null)).isFalse();
    assertThat(authorizer.authorize(AdminPrincipal.reader("4e5f6a7b"), Roles.READ, null)).isTrue();
    assertThat(authorizer.authorize(AdminPrincipal.reader("4e5f6a7b"), Roles.ADMIN, null)).isFalse();
  }
}

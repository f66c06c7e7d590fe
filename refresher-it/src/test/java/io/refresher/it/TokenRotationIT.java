package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22, point 3 (in part): an old and a new token of each role both work while a rotation
 * rolls out (admin.tokens, admin.readTokens beside admin.token), on the real service; a token the
 * configuration no longer names is refused.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TokenRotationIT {

  private static final String NEXT_ADMIN = "next-admin-token-0123456789";
  private static final String READ = "current-read-token-0123456789";
  private static final String NEXT_READ = "next-read-token-0123456789";

  private static final TestApp APP =
      TestApp.create(
          "token_rotation",
          List.of(),
          "admin.tokens", NEXT_ADMIN,
          "admin.readToken", READ,
          "admin.readTokens", NEXT_READ);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static Response get(String token) {
    return APP.api("/v1/sources").request().header("Authorization", "Bearer " + token).get();
  }

  private static Response putTemplate(String token, String name) {
    return APP.api("/v1/templates/" + name)
        .request()
        .header("Authorization", "Bearer " + token)
        .put(Entity.json("{\"pattern\":\"" + name + ":{id}\",\"source\":\"switchable\",\"ttl\":\"PT1M\"}"));
  }

  @Test
  void bothAdminTokens_changeThings_bothReadTokens_readOnly_othersRefused() {
    for (String admin : new String[] {TestApp.TOKEN, NEXT_ADMIN}) {
      try (Response read = get(admin); Response write = putTemplate(admin, "rotation-" + admin.length())) {
        assertThat(read.getStatus()).as(admin).isEqualTo(200);
        assertThat(write.getStatus()).as(write.readEntity(String.class)).isIn(200, 201);
      }
    }
    for (String reader : new String[] {READ, NEXT_READ}) {
      try (Response read = get(reader); Response write = putTemplate(reader, "rotation-read")) {
        assertThat(read.getStatus()).isEqualTo(200);
        assertThat(write.getStatus()).as("a read token cannot change anything").isEqualTo(403);
      }
    }
    try (Response retired = get("retired-admin-token-0123456789")) {
      assertThat(retired.getStatus()).isEqualTo(401);
    }
  }
}

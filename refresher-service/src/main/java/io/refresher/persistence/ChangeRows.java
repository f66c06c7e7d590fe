package io.refresher.persistence;

import io.refresher.registry.ChangeActor;
import org.jdbi.v3.core.Handle;

/**
 * Writes one row of the change log ({@code refresher_audit}), in the transaction of the change it
 * records, with the change's actor ({@link ChangeActor#current()}: the role, the token's id and
 * the request's id of the admin API request this thread serves, or the service).
 */
final class ChangeRows {

  private ChangeRows() {}

  /** @param detailJson the change's detail as JSON, or null for none */
  static void insert(Handle handle, String action, String key, String detailJson) {
    ChangeActor actor = ChangeActor.current();
    handle
        .createUpdate(
            "INSERT INTO refresher_audit (action, key, detail, actor_role, actor_token_id, request_id) "
                + "VALUES (:action, :key, CAST(:detail AS jsonb), :role, :tokenId, :requestId)")
        .bind("action", action)
        .bind("key", key)
        .bind("detail", detailJson)
        .bind("role", actor.role())
        .bind("tokenId", actor.tokenId())
        .bind("requestId", actor.requestId())
        .execute();
  }
}

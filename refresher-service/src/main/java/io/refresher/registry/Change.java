package io.refresher.registry;

import java.time.Instant;
import java.util.Map;

/**
 * One entry of the change log: a registration or template registered, replaced or deleted.
 *
 * @param id increasing with each change; a page continues before the last id it holds
 * @param key the key, or {@code template:<name>} for a template
 * @param action {@code register}, {@code replace}, {@code delete}, {@code template-register},
 *     {@code template-replace} or {@code template-delete}
 * @param detail what the registration or template became (source, params, TTL...); empty for a
 *     key's deletion
 * @param actor who made it; null for changes recorded before actors were (schema V6)
 */
public record Change(long id, Instant at, String action, String key, Map<String, Object> detail, ChangeActor actor) {}

package io.refresher.refresh;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import io.refresher.registry.KeyTemplate;
import io.refresher.source.ChangeFeed;
import io.refresher.source.SourceDefinition;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The keys a change notification names, by its source's payload mode ({@link ChangeFeed.Payload}):
 *
 * <ul>
 *   <li>{@code key}: the payload is the key, exactly as applications read it.
 *   <li>{@code fields}: the payload is a JSON object of the changed row's fields; every template
 *       of the source whose placeholders are all among them gives one key ({@link
 *       io.refresher.registry.TemplatePattern#render}). A field's value is its JSON text: a string
 *       without its quotes, a number as written ({@code 4.50} stays {@code 4.50}), {@code true} or
 *       {@code false}; {@code null}, objects and arrays fill no placeholder.
 * </ul>
 *
 * <p>Whether a key is covered is decided next, for a whole batch of notifications at once ({@link
 * ChangeCoverage}); what to do with a covered key, once per coalesced run ({@link ChangeRefresh}).
 */
public final class ChangeKeys {

  /** The keys a payload names; when none, why not. */
  public record Named(Set<String> keys, String problem) {
    static Named none(String problem) {
      return new Named(Set.of(), problem);
    }
  }

  private static final ObjectMapper JSON =
      new ObjectMapper()
          // a number's text as the trigger wrote it: 4.50 stays 4.50
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

  private final Supplier<List<KeyTemplate>> templates;

  /** @param templates the templates in force now (re-read for every notification: they change at run time) */
  public ChangeKeys(Supplier<List<KeyTemplate>> templates) {
    this.templates = templates;
  }

  /** The keys a notification on {@code source}'s change feed names. */
  public Named keysOf(SourceDefinition source, String payload) {
    if (payload == null || payload.isEmpty()) {
      return Named.none("the payload is empty");
    }
    return switch (source.changes().payload()) {
      case KEY -> new Named(Set.of(payload), null);
      case FIELDS -> fromFields(source.name(), payload);
    };
  }

  private Named fromFields(String source, String payload) {
    Optional<Map<String, String>> fields = fields(payload);
    if (fields.isEmpty()) {
      return Named.none("the payload is not a JSON object");
    }
    Set<String> keys = new LinkedHashSet<>();
    boolean anyTemplate = false;
    for (KeyTemplate template : templates.get()) {
      if (template.source().equals(source)) {
        anyTemplate = true;
        template.pattern().render(fields.get()).ifPresent(keys::add);
      }
    }
    if (keys.isEmpty()) {
      return Named.none(
          anyTemplate
              ? "no template of source '" + source + "' has all its placeholders among the fields " + fields.get().keySet()
              : "no template uses source '" + source + "'");
    }
    return new Named(keys, null);
  }

  /** The object's scalar fields as text; empty when the payload is not a JSON object. */
  static Optional<Map<String, String>> fields(String payload) {
    JsonNode node;
    try {
      node = JSON.readTree(payload);
    } catch (JacksonException e) {
      return Optional.empty();
    }
    if (node == null || !node.isObject()) {
      return Optional.empty();
    }
    Map<String, String> fields = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode value = field.getValue();
      if (value.isTextual() || value.isNumber() || value.isBoolean()) {
        fields.put(field.getKey(), value.asText());
      }
    }
    return Optional.of(fields);
  }
}

package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.KeyTemplate;
import io.refresher.registry.TemplatePattern;
import io.refresher.source.ChangeFeed;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChangeKeysTest {

  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");

  static SourceDefinition source(String name, ChangeFeed.Payload payload, String channel) {
    return new SourceDefinition(
        name,
        "default",
        "SELECT 1",
        Map.of("product", ParamType.LONG, "color", ParamType.STRING),
        ResultShape.SCALAR,
        Duration.ofSeconds(2),
        null,
        null,
        new ChangeFeed(channel, payload));
  }

  static KeyTemplate template(String name, String pattern, String source) {
    return new KeyTemplate(name, TemplatePattern.parse(pattern), source, Map.of(), Duration.ofMinutes(5), T0, T0);
  }

  private final List<KeyTemplate> templates = new ArrayList<>();
  private final ChangeKeys keys = new ChangeKeys(() -> templates);

  @Test
  void keyPayload_isTheKey() {
    ChangeKeys.Named named = keys.keysOf(source("variant", ChangeFeed.Payload.KEY, "c"), "variant:42:red");

    assertThat(named.keys()).containsExactly("variant:42:red");
  }

  @Test
  void keyPayload_keptExactlyAsSent() {
    assertThat(keys.keysOf(source("variant", ChangeFeed.Payload.KEY, "c"), " spaced key ").keys()).containsExactly(" spaced key ");
  }

  @Test
  void emptyPayload_noKeyAndWhy() {
    ChangeKeys.Named named = keys.keysOf(source("variant", ChangeFeed.Payload.KEY, "c"), "");

    assertThat(named.keys()).isEmpty();
    assertThat(named.problem()).contains("empty");
  }

  @Test
  void fieldsPayload_everyTemplateOfTheSourceWithAllItsPlaceholders() {
    templates.add(template("variants", "variant:{product}:{color}", "variant"));
    templates.add(template("by-color", "color:{color}", "variant"));
    templates.add(template("needs-size", "variant:{product}:{color}:{size}", "variant"));
    templates.add(template("other-source", "other:{product}", "other"));

    ChangeKeys.Named named =
        keys.keysOf(source("variant", ChangeFeed.Payload.FIELDS, "c"), "{\"product\": 42, \"color\": \"red\", \"stock\": 3}");

    assertThat(named.keys()).containsExactlyInAnyOrder("variant:42:red", "color:red");
  }

  @Test
  void fieldsPayload_valuesAsTheirJsonText() {
    assertThat(ChangeKeys.fields("{\"a\": \"x y\", \"b\": 4.50, \"c\": 42, \"d\": true, \"e\": null, \"f\": {\"g\": 1}, \"h\": [1]}"))
        .contains(Map.of("a", "x y", "b", "4.50", "c", "42", "d", "true"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"42", "\"text\"", "[1, 2]", "{not json", "null"})
  void fieldsPayload_notAJsonObject_noKeyAndWhy(String payload) {
    templates.add(template("variants", "variant:{product}:{color}", "variant"));

    ChangeKeys.Named named = keys.keysOf(source("variant", ChangeFeed.Payload.FIELDS, "c"), payload);

    assertThat(named.keys()).isEmpty();
    assertThat(named.problem()).contains("not a JSON object");
  }

  @Test
  void fieldsPayload_placeholderMissing_noKeyAndWhy() {
    templates.add(template("variants", "variant:{product}:{color}", "variant"));

    ChangeKeys.Named named = keys.keysOf(source("variant", ChangeFeed.Payload.FIELDS, "c"), "{\"product\": 42}");

    assertThat(named.keys()).isEmpty();
    assertThat(named.problem()).contains("no template of source 'variant' has all its placeholders");
  }

  @Test
  void fieldsPayload_noTemplateUsesTheSource_noKeyAndWhy() {
    ChangeKeys.Named named = keys.keysOf(source("variant", ChangeFeed.Payload.FIELDS, "c"), "{\"product\": 42}");

    assertThat(named.problem()).contains("no template uses source 'variant'");
  }

  @Test
  void fieldsPayload_valueWithASeparator_givesNoKey() {
    templates.add(template("variants", "variant:{product}:{color}", "variant"));

    assertThat(keys.keysOf(source("variant", ChangeFeed.Payload.FIELDS, "c"), "{\"product\": 42, \"color\": \"red:blue\"}").keys())
        .isEmpty();
  }

  @Test
  void fieldsPayload_templatesReadForEveryNotification() {
    SourceDefinition variant = source("variant", ChangeFeed.Payload.FIELDS, "c");
    assertThat(keys.keysOf(variant, "{\"product\": 1, \"color\": \"red\"}").keys()).isEmpty();

    templates.add(template("variants", "variant:{product}:{color}", "variant"));

    assertThat(keys.keysOf(variant, "{\"product\": 1, \"color\": \"red\"}").keys()).containsExactly("variant:1:red");
  }
}

package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.KeyTemplate;
import io.refresher.source.ChangeFeed;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChangeHandlerTest {

  private final ManualTime time = new ManualTime(Instant.parse("2025-03-01T12:00:00Z"));
  private final ChangeCoalescerTest.CountingEvents events = new ChangeCoalescerTest.CountingEvents();
  private final List<String> applied = new ArrayList<>();
  private final List<KeyTemplate> templates = new ArrayList<>();
  private final ChangeCoalescer coalescer =
      new ChangeCoalescer(
          key -> {
            applied.add(key);
            return ChangeCoalescer.Result.DONE;
          },
          time,
          time,
          Duration.ofMillis(50),
          100,
          Duration.ofSeconds(10),
          events);

  private ChangeHandler handler(SourceDefinition... sources) {
    return new ChangeHandler(List.of(sources), new ChangeKeys(() -> templates), coalescer, events);
  }

  private static SourceDefinition on(String name, String datasource, String channel, ChangeFeed.Payload payload) {
    return new SourceDefinition(
        name, datasource, "SELECT 1", Map.of("id", ParamType.LONG), ResultShape.SCALAR, Duration.ofSeconds(1), null, null,
        new ChangeFeed(channel, payload));
  }

  @Test
  void channelsByDatasource_sourcesWithAFeedOnly_eachChannelOnce() {
    ChangeHandler handler =
        handler(
            on("a", "default", "product_changed", ChangeFeed.Payload.KEY),
            on("b", "default", "product_changed", ChangeFeed.Payload.KEY),
            on("c", "catalog", "price_changed", ChangeFeed.Payload.FIELDS),
            new SourceDefinition("plain", "default", "SELECT 1", Map.of(), ResultShape.SCALAR, Duration.ofSeconds(1)));

    assertThat(handler.channelsByDatasource())
        .containsExactly(Map.entry("default", Set.of("product_changed")), Map.entry("catalog", Set.of("price_changed")));
  }

  @Test
  void channelsByDatasource_noFeeds_empty() {
    assertThat(handler(new SourceDefinition("plain", "default", "SELECT 1", Map.of(), ResultShape.SCALAR, Duration.ofSeconds(1)))
            .channelsByDatasource())
        .isEmpty();
  }

  @Test
  void onNotification_keyPayload_goesToTheCoalescer() {
    ChangeHandler handler = handler(on("a", "default", "product_changed", ChangeFeed.Payload.KEY));

    handler.onNotification("default", "product_changed", "product:1");
    handler.onNotification("default", "product_changed", "product:1");
    time.runDue();

    assertThat(applied).containsExactly("product:1");
    assertThat(events.received).isEqualTo(2);
    assertThat(events.coalesced).isEqualTo(1);
  }

  @Test
  void onNotification_sameChannelNameOnAnotherDatasource_notThisFeed() {
    ChangeHandler handler = handler(on("a", "default", "product_changed", ChangeFeed.Payload.KEY));

    handler.onNotification("catalog", "product_changed", "product:1");
    time.runDue();

    assertThat(applied).isEmpty();
    assertThat(events.ignored).isEqualTo(1);
  }

  @Test
  void onNotification_fieldsPayloadThatNamesNoKey_ignoredAndCounted() {
    ChangeHandler handler = handler(on("a", "default", "product_changed", ChangeFeed.Payload.FIELDS));

    handler.onNotification("default", "product_changed", "not json");
    handler.onNotification("default", "product_changed", "{\"id\": 1}");
    time.runDue();

    assertThat(applied).isEmpty();
    assertThat(events.ignored).isEqualTo(2);
  }

  @Test
  void onNotification_channelOfTwoSources_keysOfBoth() {
    templates.add(ChangeKeysTest.template("by-id", "thing:{id}", "a"));
    templates.add(ChangeKeysTest.template("by-id-b", "other:{id}", "b"));
    ChangeHandler handler =
        handler(
            on("a", "default", "thing_changed", ChangeFeed.Payload.FIELDS),
            on("b", "default", "thing_changed", ChangeFeed.Payload.FIELDS));

    handler.onNotification("default", "thing_changed", "{\"id\": 7}");
    time.runDue();

    assertThat(applied).containsExactlyInAnyOrder("thing:7", "other:7");
  }
}

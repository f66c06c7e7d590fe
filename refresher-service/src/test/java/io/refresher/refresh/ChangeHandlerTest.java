package io.refresher.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.registry.KeyTemplate;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.failure.RegistryUnavailableException;
import io.refresher.source.ChangeFeed;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
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

  /** Keys with a registration of their own, and those a template covers (the fakes' registry). */
  private final Set<String> registered = new HashSet<>();
  private final Set<String> templateKeys = new HashSet<>();
  /** The sizes of the registry queries made. */
  private final List<Integer> registryQueries = new CopyOnWriteArrayList<>();
  private volatile boolean registryDown;

  private final RegistrationLookup registry =
      new RegistrationLookup() {
        @Override
        public Map<String, Registration> findAll(Collection<String> keys) {
          registryQueries.add(keys.size());
          if (registryDown) {
            throw new RegistryUnavailableException("connection refused", null);
          }
          return registrationsOf(keys, registered);
        }
      };

  private ChangeHandler handler(SourceDefinition... sources) {
    return handler(coalescer, sources);
  }

  private ChangeHandler handler(ChangeCoalescer into, SourceDefinition... sources) {
    return new ChangeHandler(
        List.of(sources),
        new ChangeKeys(() -> templates),
        new ChangeCoverage(keys -> registrationsOf(keys, templateKeys), registry, Runnable::run),
        into,
        events,
        time);
  }

  private static Map<String, Registration> registrationsOf(Collection<String> keys, Set<String> known) {
    Map<String, Registration> found = new HashMap<>();
    for (String key : keys) {
      if (known.contains(key)) {
        found.put(key, Registration.of(key, "a", Map.of("id", 1L), Duration.ofHours(1), Instant.EPOCH, Instant.EPOCH, RefreshPolicy.ALWAYS));
      }
    }
    return found;
  }

  private static List<ChangeNotification> notifications(String channel, List<String> payloads) {
    return payloads.stream().map(payload -> new ChangeNotification(channel, payload)).toList();
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
    registered.add("product:1");
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
    templateKeys.addAll(List.of("thing:7", "other:7"));
    ChangeHandler handler =
        handler(
            on("a", "default", "thing_changed", ChangeFeed.Payload.FIELDS),
            on("b", "default", "thing_changed", ChangeFeed.Payload.FIELDS));

    handler.onNotification("default", "thing_changed", "{\"id\": 7}");
    time.runDue();

    assertThat(applied).containsExactlyInAnyOrder("thing:7", "other:7");
  }

  /** Issue 18, point 4: a flood of uncovered keys must not take the places of covered ones. */
  @Test
  void onNotifications_floodOfUncoveredKeysThenACoveredOne_coveredKeyTaken_uncoveredIgnoredInBulk() {
    registered.add("product:1");
    ChangeHandler handler = handler(on("a", "default", "product_changed", ChangeFeed.Payload.KEY));
    List<String> payloads = new ArrayList<>(IntStream.range(0, 25_000).mapToObj(i -> "unregistered:" + i).toList());
    payloads.add("product:1");

    handler.onNotifications("default", notifications("product_changed", payloads));
    time.runDue();

    assertThat(applied).containsExactly("product:1");
    assertThat(events.received).isEqualTo(25_001);
    assertThat(events.ignored).isEqualTo(25_000);
    assertThat(events.dropped).isZero();
    assertThat(registryQueries).as("one registry query per 10,000 keys").containsExactly(10_000, 10_000, 5_001);
  }

  @Test
  void onNotifications_templateKeys_noRegistryQuery() {
    templates.add(ChangeKeysTest.template("by-id", "thing:{id}", "a"));
    templateKeys.add("thing:7");
    ChangeHandler handler = handler(on("a", "default", "thing_changed", ChangeFeed.Payload.FIELDS));

    handler.onNotification("default", "thing_changed", "{\"id\": 7}");
    time.runDue();

    assertThat(applied).containsExactly("thing:7");
    assertThat(registryQueries).isEmpty();
  }

  @Test
  void onNotifications_registryDown_templateKeysStillApplied_othersCountedAsFailed() {
    templates.add(ChangeKeysTest.template("by-id", "thing:{id}", "a"));
    templateKeys.add("thing:7");
    registryDown = true;
    ChangeHandler handler = handler(on("a", "default", "thing_changed", ChangeFeed.Payload.KEY));

    handler.onNotifications("default", notifications("thing_changed", List.of("thing:7", "product:1")));
    time.runDue();

    assertThat(applied).containsExactly("thing:7");
    assertThat(events.failed).isEqualTo(1);
  }

  /**
   * The pending set full of covered keys whose changes run slowly: the next covered change waits
   * for room (the listener's thread blocks, so no notification is read meanwhile) and is applied;
   * nothing is dropped.
   */
  @Test
  void onNotifications_pendingSetFull_coveredChangeWaitsForRoom_neverDropped() throws Exception {
    ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
    CountDownLatch release = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    ChangeCoalescer small =
        new ChangeCoalescer(
            key -> {
              try {
                release.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              ran.add(key);
              return ChangeCoalescer.Result.DONE;
            },
            (task, delay) -> threads.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS),
            java.time.InstantSource.system(),
            Duration.ZERO,
            2,
            Duration.ofSeconds(10),
            events);
    registered.addAll(List.of("k:1", "k:2", "k:3"));
    ChangeHandler handler = handler(small, on("a", "default", "product_changed", ChangeFeed.Payload.KEY));
    try {
      Thread listener =
          new Thread(() -> handler.onNotifications("default", notifications("product_changed", List.of("k:1", "k:2", "k:3"))));
      listener.start();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> events.deferred == 1);
      assertThat(listener.isAlive()).as("the listener waits for room").isTrue();
      assertThat(small.pendingKeys()).isEqualTo(2);

      release.countDown();
      listener.join(5000);
      assertThat(listener.isAlive()).isFalse();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 3);
      assertThat(ran).containsExactlyInAnyOrder("k:1", "k:2", "k:3");
      assertThat(events.dropped).isZero();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void onNotifications_waitingForRoomWhenTheCoalescerCloses_returnsAndCountsTheDrop() throws Exception {
    ScheduledExecutorService threads = Executors.newScheduledThreadPool(1);
    CountDownLatch release = new CountDownLatch(1);
    ChangeCoalescer small =
        new ChangeCoalescer(
            key -> {
              try {
                release.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return ChangeCoalescer.Result.DONE;
            },
            (task, delay) -> threads.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS),
            java.time.InstantSource.system(),
            Duration.ZERO,
            1,
            Duration.ofSeconds(10),
            events);
    registered.addAll(List.of("k:1", "k:2"));
    ChangeHandler handler = handler(small, on("a", "default", "product_changed", ChangeFeed.Payload.KEY));
    try {
      Thread listener =
          new Thread(() -> handler.onNotifications("default", notifications("product_changed", List.of("k:1", "k:2"))));
      listener.start();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> events.deferred == 1);

      small.close();
      listener.join(5000);

      assertThat(listener.isAlive()).as("a close wakes the wait").isFalse();
      assertThat(events.dropped).isEqualTo(1);
    } finally {
      release.countDown();
      threads.shutdownNow();
    }
  }
}

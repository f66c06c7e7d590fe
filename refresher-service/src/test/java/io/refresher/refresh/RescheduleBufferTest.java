package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class RescheduleBufferTest {

  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");

  private final InMemoryDueIndex index = new InMemoryDueIndex();
  private final RescheduleBuffer buffer = new RescheduleBuffer(index);

  @Test
  void flush_severalKeys_writesThemInOneBatch() {
    index.schedule("a", 0);
    index.schedule("b", 0);
    index.schedule("c", 0);
    buffer.reschedule("a", T0.plusSeconds(1));
    buffer.reschedule("b", T0.plusSeconds(2));
    buffer.reschedule("c", T0.plusSeconds(3));

    buffer.flush();

    assertThat(index.batches)
        .containsExactly(
            Map.of(
                "a", T0.plusSeconds(1).toEpochMilli(),
                "b", T0.plusSeconds(2).toEpochMilli(),
                "c", T0.plusSeconds(3).toEpochMilli()));
    assertThat(index.plannedAt("b")).hasValue(T0.plusSeconds(2).toEpochMilli());
    assertThat(buffer.pendingCount()).isZero();
  }

  @Test
  void flush_nothingPending_doesNotTouchTheIndex() {
    buffer.flush();

    assertThat(index.batches).isEmpty();
  }

  @Test
  void flush_twiceInARow_secondWritesNothing() {
    buffer.reschedule("a", T0);
    buffer.flush();

    buffer.flush();

    assertThat(index.batches).hasSize(1);
  }

  @Test
  void reschedule_sameKeyTwice_holdsOneEntryWithTheLatestTime() {
    buffer.reschedule("a", T0.plusSeconds(10));
    buffer.reschedule("a", T0.plusSeconds(55));

    assertThat(buffer.pendingCount()).isEqualTo(1);
    buffer.flush();

    assertThat(index.batches).containsExactly(Map.of("a", T0.plusSeconds(55).toEpochMilli()));
  }

  @Test
  void reschedule_sameKeyEarlierTimeGivenLast_lastCallWins() {
    // A refresh that succeeded plans +55 s; a later manual refresh that failed plans a retry in
    // 500 ms. The retry, handed in last, must not be lost to the larger time.
    buffer.reschedule("a", T0.plusSeconds(55));
    buffer.reschedule("a", T0.plusMillis(500));

    buffer.flush();

    assertThat(index.batches).containsExactly(Map.of("a", T0.plusMillis(500).toEpochMilli()));
  }

  @Test
  void flush_indexUnavailable_rethrowsAndKeepsEntries() {
    buffer.reschedule("a", T0.plusSeconds(1));
    buffer.reschedule("b", T0.plusSeconds(2));
    index.failNext = true;

    assertThatThrownBy(buffer::flush).isInstanceOf(CacheUnavailableException.class);

    assertThat(buffer.pendingCount()).isEqualTo(2);
    assertThat(index.batches).isEmpty();
  }

  @Test
  void flush_afterFailedFlush_writesKeptEntries() {
    buffer.reschedule("a", T0.plusSeconds(1));
    buffer.reschedule("b", T0.plusSeconds(2));
    index.failNext = true;
    assertThatThrownBy(buffer::flush).isInstanceOf(CacheUnavailableException.class);

    buffer.flush();

    assertThat(index.batches)
        .containsExactly(Map.of("a", T0.plusSeconds(1).toEpochMilli(), "b", T0.plusSeconds(2).toEpochMilli()));
    assertThat(buffer.pendingCount()).isZero();
  }

  @Test
  void flush_newerEntryArrivesDuringFailedFlush_keepsTheNewerEntry() {
    buffer.reschedule("a", T0.plusSeconds(1));
    buffer.reschedule("b", T0.plusSeconds(2));
    // While the batch is on its way, a refresh finishes and plans "a" again; then Redis fails.
    index.duringNextCall = batch -> buffer.reschedule("a", T0.plusSeconds(60));
    index.failNext = true;
    assertThatThrownBy(buffer::flush).isInstanceOf(CacheUnavailableException.class);

    buffer.flush();

    assertThat(index.batches)
        .containsExactly(Map.of("a", T0.plusSeconds(60).toEpochMilli(), "b", T0.plusSeconds(2).toEpochMilli()));
  }

  @Test
  void flush_newerEntryArrivesDuringSuccessfulFlush_staysPendingForNextFlush() {
    buffer.reschedule("a", T0.plusSeconds(1));
    index.duringNextCall = batch -> buffer.reschedule("a", T0.plusSeconds(60));

    buffer.flush();

    assertThat(index.batches).containsExactly(Map.of("a", T0.plusSeconds(1).toEpochMilli()));
    assertThat(buffer.pendingCount()).isEqualTo(1);
    buffer.flush();
    assertThat(index.batches).last().isEqualTo(Map.of("a", T0.plusSeconds(60).toEpochMilli()));
  }

  @Test
  void reschedule_keyRemovedFromIndex_staysRemovedAfterFlush() {
    // The buffer hands over times; the index's "moves keys still present" rule decides.
    index.schedule("kept", 0);
    buffer.reschedule("kept", T0);
    buffer.reschedule("deregistered", T0);

    buffer.flush();

    assertThat(index.plannedAt("kept")).hasValue(T0.toEpochMilli());
    assertThat(index.plannedAt("deregistered")).isEmpty();
  }

  /** A due index in a map, recording every batch it is handed. */
  private static final class InMemoryDueIndex implements DueIndex {
    final Map<String, Long> due = new HashMap<>();
    final List<Map<String, Long>> batches = new ArrayList<>();
    boolean failNext;
    Consumer<Map<String, Long>> duringNextCall;

    @Override
    public List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
      List<DueKey> claimed =
          due.entrySet().stream()
              .filter(e -> e.getValue() <= horizonMillis)
              .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
              .limit(limit)
              .map(e -> new DueKey(e.getKey(), e.getValue()))
              .toList();
      claimed.forEach(k -> due.put(k.key(), leaseUntilMillis));
      return claimed;
    }

    @Override
    public void schedule(String key, long atMillis) {
      due.put(key, atMillis);
    }

    @Override
    public void reschedule(Map<String, Long> atMillisByKey) {
      Map<String, Long> copy = Map.copyOf(atMillisByKey);
      if (duringNextCall != null) {
        Consumer<Map<String, Long>> hook = duringNextCall;
        duringNextCall = null;
        hook.accept(copy);
      }
      if (failNext) {
        failNext = false;
        throw new CacheUnavailableException("redis down", null);
      }
      batches.add(copy);
      copy.forEach((key, at) -> due.computeIfPresent(key, (k, old) -> at));
    }

    @Override
    public int addMissing(Collection<String> keys, long atMillis) {
      int added = 0;
      for (String key : keys) {
        if (due.putIfAbsent(key, atMillis) == null) {
          added++;
        }
      }
      return added;
    }

    @Override
    public void remove(Collection<String> keys) {
      keys.forEach(due::remove);
    }

    @Override
    public OptionalLong plannedAt(String key) {
      Long at = due.get(key);
      return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }

    @Override
    public long size() {
      return due.size();
    }
  }
}

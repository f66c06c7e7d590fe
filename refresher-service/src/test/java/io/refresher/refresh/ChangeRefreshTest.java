package io.refresher.refresh;

import io.refresher.failure.CacheUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.refresh.ChangeCoalescer.Result;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.registry.RegistrationLookup;
import io.refresher.failure.RegistryUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Hot or {@code always}: refreshed; cold: evicted under the key's lock; locked: tried again. */
class ChangeRefreshTest {

  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
  private static final Duration TTL = Duration.ofMinutes(5);
  private static final RefreshSettings SETTINGS = TestRefreshers.SETTINGS;

  private final ManualTime time = new ManualTime(T0);
  private final ChangeCoalescerTest.CountingEvents events = new ChangeCoalescerTest.CountingEvents();
  private final Map<String, Registration> registrations = new HashMap<>();
  private final Set<String> hotView = new HashSet<>();
  private final Set<String> due = new HashSet<>();
  private final FakeLocks locks = new FakeLocks();
  private final EvictingStore store = new EvictingStore(locks);
  private final List<String> computed = new ArrayList<>();
  private final List<String> written = new ArrayList<>();
  private boolean registryDown;
  private boolean dueIndexDown;

  private final RegistrationLookup lookup =
      new RegistrationLookup() {
        @Override
        public Map<String, Registration> findAll(Collection<String> keys) {
          if (registryDown) {
            throw new RegistryUnavailableException("registry down", null);
          }
          Map<String, Registration> found = new HashMap<>();
          keys.forEach(key -> Optional.ofNullable(registrations.get(key)).ifPresent(r -> found.put(key, r)));
          return found;
        }
      };

  private final DueIndex dueIndex =
      new DueIndex() {
        @Override
        public OptionalLong plannedAt(String key) {
          if (dueIndexDown) {
            throw new CacheUnavailableException("redis down", null);
          }
          return due.contains(key) ? OptionalLong.of(T0.toEpochMilli()) : OptionalLong.empty();
        }

        @Override
        public List<DueKey> claim(long horizonMillis, int limit, long leaseUntilMillis) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void schedule(String key, long atMillis) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void reschedule(Map<String, Long> atMillisByKey) {}

        @Override
        public int addMissing(Collection<String> keys, long atMillis) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void remove(Collection<String> keys) {
          throw new UnsupportedOperationException();
        }

        @Override
        public long size() {
          return due.size();
        }
      };

  private final Refresher refresher =
      TestRefreshers.inMemory(
          SETTINGS,
          registration -> {
            computed.add(registration.key());
            return "v";
          },
          written::add,
          locks);

  private final ChangeRefresh change =
      new ChangeRefresh(
          lookup,
          hotView::contains,
          dueIndex,
          refresher,
          new ChangeBatches(refresher, (task, delay) -> task.run()),
          locks,
          store,
          Duration.ofSeconds(5),
          events,
          time);

  private void register(String key, RefreshPolicy policy) {
    registrations.put(key, Registration.of(key, "product-by-id", Map.of("id", 1L), TTL, T0, T0, policy));
  }

  @Test
  void run_keyNothingCovers_ignored() {
    Result result = change.run("product:404");

    assertThat(result).isEqualTo(Result.DONE);
    assertThat(events.ignored).isEqualTo(1);
    assertThat(computed).isEmpty();
    assertThat(store.evicted).isEmpty();
  }

  @Test
  void run_alwaysPolicyNotHot_refreshed() {
    register("product:1", RefreshPolicy.ALWAYS);

    Result result = change.run("product:1");

    assertThat(result).isEqualTo(Result.DONE);
    assertThat(written).containsExactly("product:1");
    assertThat(store.evicted).isEmpty();
    assertThat(events.refreshed).isEqualTo(1);
  }

  @Test
  void run_hotInThisReplicasView_refreshed() {
    register("product:1", RefreshPolicy.HOT);
    hotView.add("product:1");

    change.run("product:1");

    assertThat(written).containsExactly("product:1");
    assertThat(store.evicted).isEmpty();
  }

  @Test
  void run_notInTheViewYetButDue_refreshed() {
    // just registered, or just promoted: the view catches up within a sampling interval
    register("product:1", RefreshPolicy.HOT);
    due.add("product:1");

    change.run("product:1");

    assertThat(written).containsExactly("product:1");
    assertThat(store.evicted).isEmpty();
  }

  @Test
  void run_cold_valueEvictedUnderTheKeysLock_notComputed() {
    register("product:1", RefreshPolicy.HOT);

    Result result = change.run("product:1");

    assertThat(result).isEqualTo(Result.DONE);
    assertThat(computed).as("a cold key is not recomputed").isEmpty();
    assertThat(store.evicted).containsExactly("product:1");
    assertThat(store.evictedWhileLocked).as("the eviction held the key's lock").isTrue();
    assertThat(locks.held).as("and released it").isEmpty();
    assertThat(events.evicted).isEqualTo(1);
  }

  @Test
  void run_hotKeyLockedByAnotherRefresh_busyUntilItsLeaseEnds() {
    register("product:1", RefreshPolicy.HOT);
    hotView.add("product:1");
    locks.lockedElsewhere.put("product:1", Duration.ofMillis(1500));

    Result result = change.run("product:1");

    assertThat(result).isInstanceOf(Result.Busy.class);
    // the Refresher's own clock (the system's) says when the other refresh's lease ends
    assertThat(((Result.Busy) result).lockedUntil()).isBetween(Instant.now().plusMillis(1000), Instant.now().plusMillis(1500));
    assertThat(computed).isEmpty();
    assertThat(events.refreshed).isZero();
  }

  @Test
  void run_coldKeyLocked_busyAndNotEvicted() {
    register("product:1", RefreshPolicy.HOT);
    locks.lockedElsewhere.put("product:1", Duration.ofMillis(700));

    Result result = change.run("product:1");

    assertThat(result).isEqualTo(new Result.Busy(T0.plusMillis(700)));
    assertThat(store.evicted).isEmpty();
  }

  @Test
  void run_dueIndexUnreachable_refreshedRatherThanEvicted() {
    register("product:1", RefreshPolicy.HOT);
    dueIndexDown = true;

    change.run("product:1");

    assertThat(written).containsExactly("product:1");
    assertThat(store.evicted).isEmpty();
  }

  @Test
  void run_registryUnreachable_failedAndNotApplied() {
    registryDown = true;

    Result result = change.run("product:1");

    assertThat(result).isEqualTo(Result.FAILED);
    assertThat(events.failed).isEqualTo(1);
  }

  @Test
  void run_redisUnreachableForTheEviction_failedAndNotApplied() {
    register("product:1", RefreshPolicy.HOT);
    locks.down = true;

    Result result = change.run("product:1");

    assertThat(result).isEqualTo(Result.FAILED);
    assertThat(events.failed).isEqualTo(1);
    assertThat(store.evicted).isEmpty();
  }

  /** Locks held here ({@link #held}) or by another replica ({@link #lockedElsewhere}, with their remaining lease). */
  static final class FakeLocks implements KeyLocks {
    final Set<String> held = new HashSet<>();
    final Map<String, Duration> lockedElsewhere = new HashMap<>();
    final AtomicLong tokens = new AtomicLong();
    boolean down;

    @Override
    public Optional<HeldLock> tryAcquire(String key, Duration lease) {
      if (down) {
        throw new CacheUnavailableException("redis down", null);
      }
      if (lockedElsewhere.containsKey(key) || !held.add(key)) {
        return Optional.empty();
      }
      long token = tokens.incrementAndGet();
      return Optional.of(
          new HeldLock() {
            @Override
            public long token() {
              return token;
            }

            @Override
            public void release() {
              held.remove(key);
            }
          });
    }

    @Override
    public Duration remainingLease(String key) {
      return lockedElsewhere.getOrDefault(key, Duration.ZERO);
    }
  }

  /** Records evictions (and whether the key's lock was held then); nothing else is used here. */
  static final class EvictingStore implements CacheStore {
    final List<String> evicted = new ArrayList<>();
    final FakeLocks locks;
    boolean evictedWhileLocked;

    EvictingStore(FakeLocks locks) {
      this.locks = locks;
    }

    @Override
    public void evictValue(String key) {
      evicted.add(key);
      evictedWhileLocked = locks.held.contains(key);
    }

    @Override
    public WriteResult write(
        String key, String value, Fence fence, long generation, ValueMeta meta, Duration physicalTtl, int history, KeyLocks.HeldLock lock) {
      throw new UnsupportedOperationException();
    }

    @Override
    public WriteResult extend(
        String key, Fence fence, long generation, Instant revalidatedAt, Instant expiresAt, Duration physicalTtl, KeyLocks.HeldLock lock) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<String> validator(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int recordFailure(String key, Fence fence, String kind, String error, Instant at, Duration metaTtlIfNew) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Served> served(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<KeyState> state(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void retire(String key, long generation, boolean evict, Duration tombstone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void supersede(String key, long generation, Duration tombstone) {
      throw new UnsupportedOperationException();
    }
  }
}

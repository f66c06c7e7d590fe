package io.refresher.changes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaderLockTest {

  @Test
  void of_sameClusterAndDatasource_sameLockOnEveryReplicaAndRelease() {
    // Replicas of two releases side by side (a rolling update) must contend for the same lock: a
    // changed derivation would let both listen, and every change would run its source twice.
    assertThat(LeaderLock.of("refresher", "default").objectId()).isEqualTo(LeaderLock.of("refresher", "default").objectId());
    assertThat(LeaderLock.of("refresher", "default").objectId()).isEqualTo(1_281_023_849); // CRC-32 of "refresher/default"
    assertThat(LeaderLock.CLASS_ID).isEqualTo(1_380_141_127);
  }

  @Test
  void of_anotherDatasourceOrDeployment_anotherLock() {
    int lock = LeaderLock.of("refresher", "default").objectId();

    assertThat(LeaderLock.of("refresher", "catalog").objectId()).isNotEqualTo(lock);
    assertThat(LeaderLock.of("refresher-staging", "default").objectId()).isNotEqualTo(lock);
  }
}

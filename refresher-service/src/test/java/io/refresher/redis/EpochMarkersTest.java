package io.refresher.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.refresher.client.protocol.CacheKeys;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EpochMarkersTest {

  @Test
  void cluster_oneMarkerInEvery256SlotRange_soEveryMasterHoldsOne() {
    List<String> markers = EpochMarkers.cluster();

    assertThat(markers).hasSize(EpochMarkers.SPREAD + 1).doesNotHaveDuplicates();
    assertThat(markers.get(0)).isEqualTo(RedisEpochGuard.MARKER);
    Set<Integer> ranges =
        markers.subList(1, markers.size()).stream().map(marker -> CacheKeys.slot(marker) / 256).collect(Collectors.toSet());
    assertThat(ranges).hasSize(EpochMarkers.SPREAD).allMatch(range -> range >= 0 && range < 64);
  }

  @Test
  void cluster_markersAreStableAcrossCalls_soReplicasAgree() {
    assertThat(EpochMarkers.cluster()).isEqualTo(EpochMarkers.cluster());
  }

  @Test
  void single_onlyTheMarker() {
    assertThat(EpochMarkers.single()).containsExactly(RedisEpochGuard.MARKER);
  }
}

package io.refresher.client.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The access-counting layout as docs/protocol.md specifies it; readers in other languages rely on it. */
class AccessProtocolTest {

  @Test
  void shardOf_isCrc32ModSixteen_asDocumented() {
    // zlib.crc32(b"product:42") % 16 == 9; zlib.crc32(b"user:{7}:cart") % 16 == 11
    assertThat(AccessProtocol.shardOf("product:42")).isEqualTo(9);
    assertThat(AccessProtocol.shardOf("user:{7}:cart")).isEqualTo(11);
  }

  @Test
  void shardOf_nonAsciiKey_hashesUtf8Bytes() {
    // zlib.crc32("prodüct:é".encode("utf-8")) % 16
    assertThat(AccessProtocol.shardOf("prodüct:é")).isEqualTo(7);
  }

  @Test
  void bucketKey_hasShardHashTagAndSecond() {
    assertThat(AccessProtocol.bucketKey(9, 1795983684L)).isEqualTo("refresher:access:{9}:1795983684");
    assertThat(CacheKeys.slot(AccessProtocol.bucketKey(3, 1)))
        .isEqualTo(CacheKeys.slot(AccessProtocol.bucketKey(3, 2)));
  }

  @Test
  void bucketKey_shardOutOfRange_isRefused() {
    assertThatThrownBy(() -> AccessProtocol.bucketKey(16, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AccessProtocol.bucketKey(-1, 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void secondOf_floorsEpochMillis() {
    assertThat(AccessProtocol.secondOf(1795983684999L)).isEqualTo(1795983684L);
    assertThat(AccessProtocol.secondOf(1795983685000L)).isEqualTo(1795983685L);
  }
}

package io.refresher.client.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CacheKeysTest {

  @Test
  void metaKey_keyWithoutTag_wrapsWholeKey() {
    assertThat(CacheKeys.metaKey("product:42")).isEqualTo("refresher:meta:{product:42}");
  }

  @Test
  void lockName_keyWithoutTag_wrapsWholeKey() {
    assertThat(CacheKeys.lockName("product:42")).isEqualTo("refresher:lock:{product:42}");
  }

  @Test
  void metaKey_keyWithTag_borrowsTheTag() {
    assertThat(CacheKeys.metaKey("user:{42}:cart")).isEqualTo("refresher:meta:{42}:user:{42}:cart");
  }

  @Test
  void lockName_keyWithTag_borrowsTheTag() {
    assertThat(CacheKeys.lockName("user:{42}:cart")).isEqualTo("refresher:lock:{42}:user:{42}:cart");
  }

  @Test
  void metaKey_keyWithoutTag_sharesTheKeysSlot() {
    assertThat(CacheKeys.slot(CacheKeys.metaKey("product:42"))).isEqualTo(CacheKeys.slot("product:42"));
    assertThat(CacheKeys.slot(CacheKeys.metaKey("user:{42}:cart"))).isEqualTo(CacheKeys.slot("user:{42}:cart"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a}b", "a{}b", "}", "{}", "}{", "{}{a}", "a}{b}", "x{}y}z", "}product:42", "a{b", "{", "€}€"})
  void metaKey_keyWithBraceButNoValidTag_sharesTheKeysSlot(String key) {
    int keySlot = CacheKeys.slot(key);

    assertThat(CacheKeys.slot(CacheKeys.metaKey(key))).isEqualTo(keySlot);
    assertThat(CacheKeys.slot(CacheKeys.lockName(key))).isEqualTo(keySlot);
    assertThat(keySlot).isEqualTo(referenceSlot(key));
  }

  @Test
  void metaKey_keyWithBraceButNoValidTag_keepsTheKeyReadable() {
    String meta = CacheKeys.metaKey("a}b");

    assertThat(meta).startsWith("refresher:meta:{").endsWith("}:a}b");
  }

  @Test
  void metaKey_manyGeneratedKeys_alwaysShareTheKeysSlot() {
    // Alphabet biased towards braces so that tags, empty tags and stray braces all occur often.
    String[] alphabet = {"{", "}", "{", "}", ":", "a", "b", "z", "0", "9", " ", "/", "€", "键", "\uD83D\uDE00", "{}"};
    SplittableRandom random = new SplittableRandom(20250301);

    for (int i = 0; i < 20_000; i++) {
      StringBuilder key = new StringBuilder();
      int length = 1 + random.nextInt(12);
      for (int j = 0; j < length; j++) {
        key.append(alphabet[random.nextInt(alphabet.length)]);
      }
      String k = key.toString();
      int slot = CacheKeys.slot(k);

      assertThat(slot).as("slot of %s", k).isEqualTo(referenceSlot(k));
      assertThat(CacheKeys.slot(CacheKeys.metaKey(k))).as("meta key of %s", k).isEqualTo(slot);
      assertThat(CacheKeys.slot(CacheKeys.lockName(k))).as("lock name of %s", k).isEqualTo(slot);
      assertThat(referenceSlot(CacheKeys.metaKey(k))).as("meta key of %s, by reference", k).isEqualTo(slot);
      assertThat(CacheKeys.metaKey(k)).startsWith(CacheKeys.META_PREFIX + "{");
    }
  }

  @Test
  void slot_redisReferenceString_is12739() {
    // CRC16/XMODEM of "123456789" is 0x31C3; 0x31C3 % 16384 = 12739
    assertThat(CacheKeys.slot("123456789")).isEqualTo(12739);
  }

  @Test
  void slot_keysWithSameTag_areInSameSlot() {
    assertThat(CacheKeys.slot("{user1000}.following")).isEqualTo(CacheKeys.slot("{user1000}.followers"));
    assertThat(CacheKeys.slot("{user1000}.following")).isEqualTo(CacheKeys.slot("user1000"));
  }

  @Test
  void slot_emptyFirstTag_hashesWholeKey() {
    // Redis: "foo{}{bar}" hashes the whole key, not "bar"
    assertThat(CacheKeys.slot("foo{}{bar}")).isEqualTo(referenceSlot("foo{}{bar}"));
    assertThat(CacheKeys.slot("foo{}{bar}")).isNotEqualTo(CacheKeys.slot("bar"));
  }

  @Test
  void slot_nestedBraces_usesUpToFirstClosingBrace() {
    // Redis: "foo{{bar}}zap" hashes "{bar"
    assertThat(CacheKeys.slot("foo{{bar}}zap")).isEqualTo(CacheKeys.slot("{bar"));
    assertThat(CacheKeys.slot("foo{bar}{zap}")).isEqualTo(CacheKeys.slot("bar"));
  }

  @Test
  void slot_anyKey_isWithinSlotRange() {
    assertThat(CacheKeys.slot("")).isBetween(0, CacheKeys.SLOTS - 1);
    assertThat(CacheKeys.slot("product:42")).isBetween(0, CacheKeys.SLOTS - 1);
  }

  /** Redis Cluster's key-to-slot algorithm, written independently from the spec. */
  @Test
  void crc16_isRedisClustersXmodemChecksum() {
    // The check value the cluster specification gives: CRC16("123456789") = 0x31C3.
    assertThat(Crc16.of("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x31C3);
    assertThat(CacheKeys.slot("foo")).as("CLUSTER KEYSLOT foo").isEqualTo(12182);
  }

  private static int referenceSlot(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    int start = 0;
    int end = bytes.length;
    for (int open = 0; open < bytes.length; open++) {
      if (bytes[open] == '{') {
        for (int close = open + 1; close < bytes.length; close++) {
          if (bytes[close] == '}') {
            if (close > open + 1) {
              start = open + 1;
              end = close;
            }
            break;
          }
        }
        break;
      }
    }
    return crc16Xmodem(bytes, start, end) & (CacheKeys.SLOTS - 1);
  }

  private static int crc16Xmodem(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc ^= (bytes[i] & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
        crc &= 0xffff;
      }
    }
    return crc;
  }
}

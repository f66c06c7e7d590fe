package io.refresher.client.protocol;

/**
 * CRC-16/XMODEM (polynomial 0x1021, initial value 0), the checksum Redis Cluster maps keys to
 * slots with ({@code HASH_SLOT = CRC16(key) mod 16384}, in the cluster specification). Here so
 * that the protocol depends on no Redis library.
 */
final class Crc16 {

  private static final int[] TABLE = new int[256];

  static {
    for (int byteValue = 0; byteValue < 256; byteValue++) {
      int crc = byteValue << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      TABLE[byteValue] = crc & 0xFFFF;
    }
  }

  private Crc16() {}

  static int of(byte[] bytes) {
    int crc = 0;
    for (byte b : bytes) {
      crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b) & 0xFF]) & 0xFFFF;
    }
    return crc;
  }
}

/**
 * CRC-16/XMODEM (polynomial 0x1021, initial value 0): the checksum Redis Cluster maps keys to
 * slots with (HASH_SLOT = CRC16(key) mod 16384). Here so that the protocol needs no Redis library.
 */
const TABLE = new Uint16Array(256);
for (let byteValue = 0; byteValue < 256; byteValue++) {
  let crc = byteValue << 8;
  for (let bit = 0; bit < 8; bit++) {
    crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  }
  TABLE[byteValue] = crc & 0xffff;
}

/** @param {Uint8Array} bytes */
export function crc16(bytes) {
  let crc = 0;
  for (const b of bytes) {
    crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b) & 0xff]) & 0xffff;
  }
  return crc;
}

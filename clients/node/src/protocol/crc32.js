/**
 * CRC-32 as zlib and java.util.zip.CRC32 compute it (reflected polynomial 0xEDB88320): the access
 * shard of a key is CRC-32 of its UTF-8 bytes mod 16, the same in every client.
 * (node:zlib has crc32 only from Node 20.15 / 22.2; the package supports Node 18.)
 */
const TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) {
    c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  TABLE[n] = c >>> 0;
}

/** @param {Uint8Array} bytes @returns {number} unsigned 32-bit */
export function crc32(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc = TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The data forwarder's frame check: Zephyr's `crc16_ccitt(0xFFFF, …)`, i.e. polynomial 0x1021
 * processed LSB-first (reflected, 0x8408), init 0xFFFF, no final XOR: the catalogue's
 * CRC-16/MCRF4XX. Check value of ASCII "123456789": 0x6F91. Not CCITT-FALSE (MSB-first).
 */
const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x8408 : c >>> 1;
    t[n] = c;
  }
  return t;
})();

export function crc16Mcrf4xx(buf: Uint8Array, start = 0, end = buf.length, init = 0xffff): number {
  let crc = init;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ buf[i]!) & 0xff]!;
  return crc;
}

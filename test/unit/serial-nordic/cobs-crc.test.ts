import { describe, expect, it } from 'vitest';
import { cobsDecode, cobsEncode } from '../../../src-main/core/serial/nordic/cobs.js';
import { crc16Mcrf4xx } from '../../../src-main/core/serial/nordic/crc16.js';
import { cobs as emulatorCobs, crc16 as emulatorCrc } from '../../support/boards/nordic-wire.mjs';

const decode = (wire: Uint8Array) => {
  const out = new Uint8Array(4096);
  // The wire form ends in the 0x00 delimiter, which the reader splits on and never decodes.
  const n = cobsDecode(wire, 0, wire.length - 1, out);
  return n < 0 ? null : Buffer.from(out.subarray(0, n));
};
const run = (n: number, byte = (i: number) => (i % 255) + 1) => Buffer.from(Array.from({ length: n }, (_, i) => byte(i)));

describe('CRC-16 of the data forwarder (CRC-16/MCRF4XX)', () => {
  it('gives 0x6F91 for ASCII "123456789" (the catalogue check value; not CCITT-FALSE 0x29B1)', () => {
    expect(crc16Mcrf4xx(Buffer.from('123456789'))).toBe(0x6f91);
    expect(emulatorCrc(Buffer.from('123456789'))).toBe(0x6f91);
  });

  it('agrees with the bitwise routine on a range, and covers only the bytes given', () => {
    const data = run(300, (i) => (i * 37) & 0xff);
    expect(crc16Mcrf4xx(data, 5, 250)).toBe(emulatorCrc(data.subarray(5, 250)));
    expect(crc16Mcrf4xx(new Uint8Array(0))).toBe(0xffff);
  });
});

describe('COBS', () => {
  // Runs of non-zero bytes around the 254-byte block size: the lengths where encoders go wrong.
  it.each([
    [253, 255, [0xfe]],
    [254, 256, [0xff]],
    [255, 258, [0xff]],
    [508, 511, [0xff]],
  ])('a run of %i non-zero bytes encodes to %i bytes (with the delimiter) and back', (n, wireLength, firstCode) => {
    const data = run(n);
    const wire = cobsEncode(data);
    expect(wire.length).toBe(wireLength);
    expect([...wire.subarray(0, 1)]).toEqual(firstCode);
    expect(wire.indexOf(0)).toBe(wire.length - 1);
    expect(Buffer.from(wire).equals(emulatorCobs(data))).toBe(true);
    expect(decode(wire)?.equals(data)).toBe(true);
  });

  it('254 non-zero bytes are one full block with no extra code byte; 255 start a second block', () => {
    expect([...cobsEncode(run(254)).subarray(-2)]).toEqual([254, 0]);
    expect([...cobsEncode(run(255)).subarray(-4)]).toEqual([254, 2, 255, 0]);
  });

  it.each([1, 2, 253, 254, 255, 508])('a run of %i zeros and mixed data round-trip', (n) => {
    const zeros = Buffer.alloc(n);
    expect(decode(cobsEncode(zeros))?.equals(zeros)).toBe(true);
    const mixed = run(n, (i) => (i % 7 === 3 ? 0 : (i * 13) & 0xff));
    expect(decode(cobsEncode(mixed))?.equals(mixed)).toBe(true);
    expect(Buffer.from(cobsEncode(mixed)).equals(emulatorCobs(mixed))).toBe(true);
  });

  it('refuses a code byte that runs past the frame and a zero inside it', () => {
    const out = new Uint8Array(16);
    expect(cobsDecode(Uint8Array.from([5, 1, 2]), 0, 3, out)).toBe(-1);
    expect(cobsDecode(Uint8Array.from([3, 0, 2]), 0, 3, out)).toBe(-1);
    expect(cobsDecode(Uint8Array.from([3, 1, 2]), 0, 3, new Uint8Array(1))).toBe(-1);
    expect(cobsDecode(Uint8Array.from([1]), 0, 1, out)).toBe(0);
  });
});

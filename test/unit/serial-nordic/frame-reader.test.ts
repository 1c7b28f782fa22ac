import { describe, expect, it } from 'vitest';
import { NordicFrameReader } from '../../../src-main/core/serial/nordic/frame-reader.js';
import { decodeMessage, type NordicMessage, type SensorData } from '../../../src-main/core/serial/nordic/messages.js';
import { cobs, frame, nordicValue, onWire, sensorData, sessionInfo } from '../../support/boards/nordic-wire.mjs';

const NAMES = ['ax', 'ay', 'az', 'gx', 'gy', 'gz', 'temp', 'hum', 'pres'];
const values = (seq: number, ch = 9) => Array.from({ length: ch }, (_, c) => nordicValue(seq, c));

function read(chunks: Uint8Array[]) {
  const got: NordicMessage[] = [];
  const r = new NordicFrameReader((m) => got.push(m));
  for (const c of chunks) r.push(c);
  return { got, stats: r.stats };
}

/** Cuts `all` into pieces of 1..max bytes (deterministic), as a port or BLE notifications deliver them. */
function cut(all: Buffer, max: number, seed = 7): Buffer[] {
  const out: Buffer[] = [];
  let x = seed;
  for (let at = 0; at < all.length; ) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const n = 1 + (x % max);
    out.push(all.subarray(at, at + n));
    at += n;
  }
  return out;
}

describe('Nordic data forwarder messages', () => {
  for (const indefinite of [true, false]) {
    for (const int32 of [false, true]) {
      it(`decodes sensor data (${indefinite ? 'indefinite' : 'definite'} lengths, ${int32 ? 'int32 micro-units ÷ 10⁶' : 'float32'})`, () => {
        for (const seq of [0, 1, 97, 194, 4_000_000_000]) {
          const cbor = sensorData({ seq, ts: seq % 1_000_000, values: values(seq) }, { indefinite, int32 });
          const m = decodeMessage(cbor, 0, cbor.length) as SensorData;
          expect(m).toMatchObject({ type: 'sd', seq, ts: seq % 1_000_000, form: int32 ? 'int' : 'float' });
          expect(m.values).toEqual(values(seq).map((v) => onWire(v, int32)));
        }
      });
    }
  }

  it('tells float32 whole numbers (9.0) from int32 micro-units by the item type, not the value', () => {
    const whole = sensorData({ seq: 0, ts: 0, values: [9, -1, 0] }, { int32: false });
    expect(decodeMessage(whole, 0, whole.length)).toMatchObject({ form: 'float', values: [9, -1, 0] });
    const micro = sensorData({ seq: 0, ts: 0, values: [9, -1, 0] }, { int32: true });
    expect(decodeMessage(micro, 0, micro.length)).toMatchObject({ form: 'int', values: [9, -1, 0] });
  });

  it('decodes the session info in both length forms, with names as given', () => {
    for (const indefinite of [true, false]) {
      const cbor = sessionInfo({ sid: 0xdeadbeef, hz: 1600, names: NAMES, st: 3, dr: 12, name: 'nRF DataFwd' }, { indefinite });
      expect(decodeMessage(cbor, 0, cbor.length)).toEqual({ type: 'si', sid: 0xdeadbeef, hz: 1600, names: NAMES, sensorType: 3, drops: 12, deviceName: 'nRF DataFwd' });
    }
  });

  it('calls a wrong shape a wrong shape (ch ≠ names, unknown t, hz 0, text values)', () => {
    const bad = [
      Buffer.from([0xa2, 0x61, 0x74, 0x62, 0x78, 0x78, 0x61, 0x64, 0xa0]), // t: "xx"
      sessionInfo({ sid: 1, hz: 0, names: ['a'] }),
      Buffer.from([0x01]),
    ];
    expect(bad.map((b) => decodeMessage(b, 0, b.length))).toEqual(['shape', 'shape', 'shape']);
    expect(decodeMessage(Buffer.from([0xbf, 0x61]), 0, 2)).toBe('cbor');
  });
});

describe('NordicFrameReader', () => {
  const stream = (crc: boolean, int32: boolean, n = 200) =>
    Buffer.concat([
      frame(sessionInfo({ sid: 42, hz: 1600, names: NAMES }), { crc }),
      ...Array.from({ length: n }, (_, seq) => frame(sensorData({ seq, ts: Math.floor(seq / 1.6), values: values(seq) }, { int32 }), { crc })),
    ]);

  for (const crc of [true, false]) {
    it(`detects frames ${crc ? 'with' : 'without'} a CRC from their length, whatever the chunking`, () => {
      const all = stream(crc, true);
      for (const max of [1, 3, 20, 244, 4096]) {
        const { got, stats } = read(cut(all, max));
        expect(got).toHaveLength(201);
        expect(stats).toMatchObject({ frames: 201, withCrc: crc ? 201 : 0, withoutCrc: crc ? 0 : 201, badTotal: 0 });
        expect((got[150] as SensorData).values).toEqual(values(149).map((v) => onWire(v, true)));
      }
    });
  }

  it('loses only the frames garbage touches, and counts each by kind', () => {
    const good = (seq: number) => frame(sensorData({ seq, ts: seq, values: values(seq, 3) }));
    const badCrc = Buffer.from(good(3));
    badCrc[6] = badCrc[6]! ^ 0x40; // a flipped bit inside the CBOR: the CRC catches it
    const chunks = [
      Buffer.from([0x02, 0x41, 0x00]), // a frame too short to hold a length
      good(0),
      Buffer.from([0x00, 0x00, 0x00]), // empty chunks: nothing lost
      good(1),
      Buffer.from([0x05, 0x41, 0x00]), // a COBS code running past its frame
      good(2),
      badCrc,
      frame(Buffer.from([0xbf, 0x61, 0x74])), // CBOR cut short (length and CRC right)
      frame(Buffer.from([0xa1, 0x61, 0x74, 0x62, 0x73, 0x64])), // {t: "sd"} without d
      cobs([5, 0, 1, 2]), // a length prefix (5) that the frame does not hold
      good(4),
      Buffer.alloc(5000, 0x41), // an over-long run without any 0x00
      Buffer.from([0x00]),
      good(5),
    ];
    const { got, stats } = read(chunks);
    expect(got.map((m) => (m as SensorData).seq)).toEqual([0, 1, 2, 4, 5]);
    expect(stats.bad).toEqual({ cobs: 1, short: 2, crc: 1, cbor: 1, shape: 1, 'too-long': 1 });
    expect(stats.badTotal).toBe(7);
    expect(stats.lastBad?.kind).toBe('too-long');
  });

  it('garbage without a 0x00 merges with the next frame and costs only that one', () => {
    const { got, stats } = read([frame(sensorData({ seq: 0, ts: 0, values: [1] })), Buffer.from('hello world'), frame(sensorData({ seq: 1, ts: 1, values: [1] })), frame(sensorData({ seq: 2, ts: 2, values: [1] }))]);
    expect(got.map((m) => (m as SensorData).seq)).toEqual([0, 2]);
    expect(stats.badTotal).toBe(1);
  });
});

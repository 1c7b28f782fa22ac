import { describe, expect, it } from 'vitest';
import { NordicStreamReader, type NordicBatch, type PartChange } from '../../../src-main/core/serial/nordic/nordic-stream.js';
import { frame, nordicValue, onWire, sensorData, sessionInfo } from '../../support/boards/nordic-wire.mjs';

const NAMES = ['ax', 'ay', 'az'];
const si = (o: { sid?: number; dr?: number; names?: string[]; hz?: number } = {}) =>
  frame(sessionInfo({ sid: o.sid ?? 7, hz: o.hz ?? 100, names: o.names ?? NAMES, dr: o.dr ?? 0 }));
const sd = (seq: number, width = 3, int32 = true) =>
  frame(sensorData({ seq, ts: seq * 10, values: Array.from({ length: width }, (_, c) => nordicValue(seq, c)) }, { int32 }));
const row = (seq: number, width = 3) => Array.from({ length: width }, (_, c) => onWire(nordicValue(seq, c), true));

function collect(r: NordicStreamReader) {
  const rows: number[][] = [];
  const batches: Array<Omit<NordicBatch, 'rows'>> = [];
  const parts: PartChange[] = [];
  r.onBatch((b) => {
    for (let i = 0; i < b.rowCount; i++) rows.push(Array.from(b.rows.subarray(i * b.width, (i + 1) * b.width)));
    batches.push({ rowCount: b.rowCount, width: b.width, arrivalMs: b.arrivalMs, lines: b.lines, part: b.part });
  });
  r.onPart((c) => parts.push(c));
  return { rows, batches, parts };
}

describe('NordicStreamReader', () => {
  it('gives the samples in seq order with the session from the session info', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([si(), ...[0, 1, 2, 3].map((s) => sd(s))]), 5);
    expect(got.rows).toEqual([0, 1, 2, 3].map((s) => row(s)));
    expect(r.session).toMatchObject({ hz: 100, names: NAMES, deviceName: 'nRF DataFwd', sensorType: 1 });
    expect(got.batches).toEqual([{ rowCount: 4, width: 3, arrivalMs: 5, lines: 4, part: 0 }]);
    expect(r.stats()).toMatchObject({ received: 4, lost: 0, crc: true, valueForm: 'int', badTotal: 0 });
  });

  it('keeps samples that came before the first session info and hands them on when it comes', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([2, 3, 4].map((s) => sd(s))), 1);
    expect(got.rows).toEqual([]);
    expect(r.width).toBe(3);
    r.push(Buffer.concat([si(), sd(5)]), 2);
    expect(got.rows).toEqual([2, 3, 4, 5].map((s) => row(s)));
    expect(r.stats().lost).toBe(0);
  });

  it('release() hands held samples on without waiting for a session info', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([0, 1].map((s) => sd(s))), 1);
    r.release();
    r.push(sd(2), 2);
    expect(got.rows).toHaveLength(3);
    expect(r.session).toBeNull();
  });

  it('writes a sequence gap down as a known loss at its reading, splits the batch there, and never fills it', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([si(), sd(0), sd(1), sd(2), sd(15), sd(16)]), 1);
    expect(got.rows).toEqual([0, 1, 2, 15, 16].map((s) => row(s)));
    expect(got.batches.map((b) => [b.rowCount, b.lines])).toEqual([[3, 3], [2, 17]]);
    expect(r.gapsBetween(0, 100)).toEqual([{ reading: 4, seq: 3, count: 12, device: 0, part: 0 }]);
    expect(r.lostBefore(4)).toBe(0);
    expect(r.lostBefore(16)).toBe(12);
    expect(r.stats()).toMatchObject({ lost: 12, transportLost: 12, deviceDrops: 0 });
  });

  it("tells the board's drops (growth of dr, said up to seconds later) from transport losses", () => {
    const r = new NordicStreamReader();
    collect(r);
    r.push(Buffer.concat([si({ dr: 5 }), sd(0), sd(4), sd(5), sd(10)]), 1); // gaps of 3 and 4
    expect(r.stats()).toMatchObject({ lost: 7, deviceDrops: 0, transportLost: 7 });
    r.push(si({ dr: 9 }), 2); // the board dropped 4 of them: a run of 4, the second gap (it drops whole runs)
    expect(r.stats()).toMatchObject({ lost: 7, deviceDrops: 4, transportLost: 3 });
    expect(r.gapsBetween(0, 100).map((g) => [g.count, g.device])).toEqual([[3, 0], [4, 4]]);
  });

  it('a new sid ends the part: seq restarts without counting losses, both parts kept apart', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([si({ sid: 1, dr: 2 }), sd(0), sd(1), sd(2), si({ sid: 2, dr: 0 }), sd(0), sd(1)]), 1);
    expect(got.rows).toEqual([0, 1, 2, 0, 1].map((s) => row(s)));
    expect(got.batches.map((b) => [b.rowCount, b.part])).toEqual([[3, 0], [2, 1]]);
    expect(got.parts).toEqual([{ part: 1, sid: 2, previousSid: 1, lastReading: 3 }]);
    expect(r.stats()).toMatchObject({ lost: 0, parts: 2 });
  });

  it('counts wrong widths, repeats and garbage, and re-baselines on a jump past 100 000', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([si(), sd(0), sd(1, 4), sd(1), sd(1), Buffer.from('junk\0'), sd(2), sd(500_000), sd(500_001)]), 1);
    expect(got.rows).toEqual([0, 1, 2, 500_000, 500_001].map((s) => row(s)));
    expect(r.stats()).toMatchObject({ lost: 0, reordered: 1, resyncs: 1, badTotal: 2 });
    expect(r.stats().badByKind).toMatchObject({ shape: 1, cobs: 1 });
  });

  it('a seq wrapping 2³²−1 → 0 is the next sample', () => {
    const r = new NordicStreamReader();
    const got = collect(r);
    r.push(Buffer.concat([si(), sd(0xfffffffe), sd(0xffffffff), sd(0), sd(2)]), 1);
    expect(got.rows).toHaveLength(4);
    expect(r.stats().lost).toBe(1);
  });

  it('checks the rate against the board timestamps', () => {
    const r = new NordicStreamReader();
    collect(r);
    r.push(Buffer.concat([si(), ...Array.from({ length: 150 }, (_, s) => sd(s))]), 1);
    expect(r.tsHz).toBeCloseTo(100, 6);
  });
});

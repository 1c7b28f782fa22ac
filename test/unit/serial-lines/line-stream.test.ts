import { describe, it, expect } from 'vitest';
import type { Clock } from '../../../src-main/core/clock.js';
import { NumericLineReader } from '../../../src-main/core/serial/lines/line-stream.js';
import type { RowBatch } from '../../../src-main/core/serial/lines/row-batcher.js';

interface Seen {
  rows: number[][];
  batches: number;
  rejected: number;
  widths: Set<number>;
}

function watch(reader: NumericLineReader): Seen {
  const seen: Seen = { rows: [], batches: 0, rejected: 0, widths: new Set() };
  reader.onBatch((b: RowBatch) => {
    seen.batches++;
    seen.rejected += b.rejectedLines;
    if (b.rowCount > 0) seen.widths.add(b.width);
    expect(b.rows).toBeInstanceOf(Float64Array); // exact values: a recording keeps what the board printed
    expect(b.rows.length).toBe(b.rowCount * b.width);
    for (let r = 0; r < b.rowCount; r++) seen.rows.push(Array.from(b.rows.subarray(r * b.width, (r + 1) * b.width)));
  });
  return seen;
}

/** A board that was already printing when we connected: a cut line, a debug print, a header too late, bad values. */
const STREAM = Buffer.from(
  [
    '.81', // tail of a line cut by connecting
    'accX,accY,accZ', // header before data: names
    '-0.123,4.567,9.81',
    '1,2,3',
    '4\t5\t6',
    'IMU ready', // text
    '7 8 9',
    '1,nan,3', // nan
    '1,2', // width
    '\x00\xff\xfe', // garbage
    '10, 11, 12,',
    '',
    '13,14,15',
  ].join('\r\n') + '\r\n16,17',
  'latin1',
);
const EXPECTED_ROWS = [[-0.123, 4.567, 9.81], [1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [13, 14, 15]];

function readAll(chunks: Buffer[]) {
  const reader = new NumericLineReader();
  const seen = watch(reader);
  chunks.forEach((c, i) => reader.push(c, i));
  reader.end();
  return { seen, stats: reader.stats() };
}

describe('NumericLineReader', () => {
  it('turns a messy stream into exact rows and says what it rejected and why', () => {
    const { seen, stats } = readAll([STREAM]);
    expect(seen.rows).toEqual(EXPECTED_ROWS);
    expect(seen.widths).toEqual(new Set([3]));
    expect(stats).toMatchObject({
      width: 3,
      layout: 'values',
      axes: [{ name: 'accX', units: '' }, { name: 'accY', units: '' }, { name: 'accZ', units: '' }],
      goodLines: 6,
      headerLines: 1,
      blankLines: 1,
      badLines: { partial: 2, text: 1, nan: 1, width: 1, garbage: 1, 'too-long': 0 },
      badTotal: 6,
    });
    expect(stats.lastBadLine).toEqual({ reason: 'partial', text: '16,17' });
    expect(seen.rejected).toBe(6); // every rejection reached the batches, so a recording can count them
  });

  it('gives the same rows and counts however the stream is cut', () => {
    const whole = readAll([STREAM]);
    for (let cut = 0; cut <= STREAM.length; cut++) {
      const split = readAll([STREAM.subarray(0, cut), STREAM.subarray(cut)]);
      expect(split.seen.rows, `cut at ${cut}`).toEqual(whole.seen.rows);
      expect(split.stats.badLines, `cut at ${cut}`).toEqual(whole.stats.badLines);
    }
    const bytes = readAll([...STREAM].map((b) => Buffer.from([b])));
    expect(bytes.seen.rows).toEqual(whole.seen.rows);
    expect(bytes.stats.badLines).toEqual(whole.stats.badLines);
  });

  it('hands over one batch per chunk, not one call per row', () => {
    const reader = new NumericLineReader();
    const seen = watch(reader);
    reader.push(Buffer.from('x\n' + '1,2\n'.repeat(1000)), 0);
    expect(seen.batches).toBe(1);
    expect(seen.rows).toHaveLength(1000);
  });

  it('splits a chunk larger than one batch into several', () => {
    const reader = new NumericLineReader({ batchValues: 256 });
    const seen = watch(reader);
    reader.push(Buffer.from('x\n' + '1,2,3,4\n'.repeat(1000)), 0);
    expect(seen.rows).toHaveLength(1000);
    expect(seen.batches).toBe(Math.ceil(1000 / 64));
  });

  it('counts an over-long line and carries on', () => {
    const reader = new NumericLineReader({ maxLineBytes: 1024 });
    const seen = watch(reader);
    reader.push(Buffer.from(`x\n1,2\n3,4\n${'9,'.repeat(5000)}\n5,6\n`), 0);
    expect(seen.rows).toEqual([[1, 2], [3, 4], [5, 6]]);
    expect(reader.stats().badLines['too-long']).toBe(1);
    expect(reader.stats().lastBadLine?.text.startsWith('9,9,9,')).toBe(true);
  });

  it('never throws on random bytes, and reports no rate for them (a few digits do slip through as rows)', () => {
    const reader = new NumericLineReader();
    const seen = watch(reader);
    let seed = 3;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (let i = 0; i < 200; i++) {
      const chunk = Buffer.alloc(Math.floor(rnd() * 4096));
      for (let j = 0; j < chunk.length; j++) chunk[j] = rnd() < 0.02 ? 10 : Math.floor(rnd() * 256);
      expect(() => reader.push(chunk, i * 10)).not.toThrow();
    }
    const stats = reader.stats();
    expect(seen.rows.length).toBe(stats.goodLines);
    expect(stats.badTotal).toBeGreaterThan(1000);
    expect(stats.frequencyHz).toBeNull();
  });

  it('detects the rate from arrival times (the injected clock when none is given)', () => {
    let now = 0;
    const clock: Clock = { now: () => now, every: () => () => {} };
    const reader = new NumericLineReader({ clock });
    // 100 Hz board, host reads every 16 ms: 1–2 lines per chunk, the first line cut.
    let text = '3,4.1\n';
    for (let i = 0; i < 1000; i++) {
      const emitted = i * 10;
      while (now + 16 <= emitted) {
        now += 16;
        reader.push(Buffer.from(text));
        text = '';
      }
      text += `${i},${Math.sin(i)}\n`;
    }
    const stats = reader.stats();
    expect(stats.frequencySource).toBe('detected');
    expect(Math.abs(stats.frequencyHz! - 100) / 100).toBeLessThan(0.001);
    expect(stats.rate.suggestedHz).toBe(100);
    expect(stats.rate.droppedLines).toBe(0);
  });

  it('lets the user set the frequency and name the axes, and refuses nonsense', () => {
    const reader = new NumericLineReader({ overrides: { frequencyHz: 62.5, axes: [{ name: 'x', units: 'g' }, { units: 'g' }] } });
    reader.push(Buffer.from('cut\naccX,accY,accZ\n1,2,3\n'), 0);
    const stats = reader.stats();
    expect(stats).toMatchObject({ frequencyHz: 62.5, frequencySource: 'user' });
    expect(stats.axes).toEqual([{ name: 'x', units: 'g' }, { name: 'accY', units: 'g' }, { name: 'accZ', units: '' }]);
    reader.setOverrides({ frequencyHz: null });
    expect(reader.stats().frequencySource).toBeNull();
    for (const bad of [0, -1, Number.NaN, Infinity, 2e6]) {
      expect(() => reader.setOverrides({ frequencyHz: bad })).toThrow(expect.objectContaining({ code: 'InvalidArguments' }));
    }
    expect(() => reader.setOverrides({ axes: [{ name: 'n'.repeat(65) }] })).toThrow(expect.objectContaining({ code: 'InvalidArguments' }));
  });

  it('after reopen drops the first line again and relearns the width', () => {
    const reader = new NumericLineReader({ confirmLines: 1 });
    const seen = watch(reader);
    reader.push(Buffer.from('a\n1,2\n3,'), 0);
    reader.reopen();
    reader.push(Buffer.from('7,8,9\n1,2,3\n'), 1);
    expect(seen.rows).toEqual([[1, 2], [1, 2, 3]]);
    expect(reader.stats()).toMatchObject({ width: 3, badLines: { partial: 3 } }); // 'a', the tail '3,', '7,8,9'
  });

  it('finishes the chunk before rethrowing a listener error, and unsubscribes by signal', () => {
    const reader = new NumericLineReader();
    const seen = watch(reader);
    const ac = new AbortController();
    let calls = 0;
    reader.onBatch(() => {
      calls++;
      throw new Error('listener broke');
    }, ac.signal);
    expect(() => reader.push(Buffer.from('x\n1\n2\n3\n'), 0)).toThrow('listener broke');
    expect(seen.rows).toEqual([[1], [2], [3]]);
    ac.abort();
    reader.push(Buffer.from('4\n'), 1);
    expect(calls).toBe(1);
    expect(seen.rows).toHaveLength(4);
    const off = reader.onBatch(() => calls++);
    off();
    reader.push(Buffer.from('5\n'), 2);
    expect(calls).toBe(1);
  });
});

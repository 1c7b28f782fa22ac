import { describe, expect, it } from 'vitest';
import { NumericLineReader } from '../../../src-main/core/serial/lines/line-stream.js';
import { FuzzLines, type FuzzExpected } from '../../support/boards/fuzz-lines.mjs';
import { prng } from '../../support/seeded-random.mjs';

/**
 * The numeric-line reader against a seeded stream of good lines, text, NaNs, wrong widths, binary,
 * NULs, over-long lines, blank lines and all three line endings, cut into chunks at every awkward
 * place: whatever the cuts, every good line is exactly one row, in order, and every rejection is
 * counted under the right reason. FUZZ_SEED=N reruns one seed.
 */

/** Small enough that over-long lines are cheap and common; the reader is built with the same limit. */
const MAX = 256;
const SEEDS = process.env.FUZZ_SEED ? [Number(process.env.FUZZ_SEED)] : [1, 2, 3, 0xc0ffee];

interface Fuzzed {
  seed: number;
  stream: Buffer;
  rows: number[][];
  expected: FuzzExpected;
}

/** A connect mid-line (one partial first line), a clean stretch that settles the width, then `pieces` fuzzed lines. */
function fuzzed(seed: number, pieces: number, maxLineBytes = MAX, longChance = 0.03): Fuzzed {
  const gen = new FuzzLines(seed, { maxLineBytes, longChance });
  const parts: Buffer[] = [Buffer.from('3,0.5\n')];
  const rows: number[][] = [];
  const take = (p: { bytes: Buffer; row?: number[] }) => {
    parts.push(p.bytes);
    if (p.row) rows.push(p.row);
  };
  for (let i = 0; i < 5; i++) take(gen.good());
  for (let i = 0; i < pieces; i++) take(gen.next());
  return { seed, stream: Buffer.concat(parts), rows, expected: gen.expected() };
}

function read(chunks: Buffer[], maxLineBytes = MAX) {
  const reader = new NumericLineReader({ maxLineBytes, clock: { now: () => 0, every: () => () => {} } });
  const rows: number[][] = [];
  reader.onBatch((b) => {
    for (let r = 0; r < b.rowCount; r++) rows.push(Array.from(b.rows.subarray(r * b.width, (r + 1) * b.width)));
  });
  chunks.forEach((c, i) => reader.push(c, i));
  reader.end();
  const s = reader.stats();
  return { rows, bad: s.badLines, blank: s.blankLines, good: s.goodLines };
}

function check(f: Fuzzed, chunks: Buffer[], how: string, maxLineBytes = MAX): void {
  const got = read(chunks, maxLineBytes);
  const at = `seed ${f.seed}, ${how}`;
  expect(got.rows.length, at).toBe(f.expected.rows);
  // Compared as text first: thousands of calls, and a deep compare each time would take minutes.
  if (JSON.stringify(got.rows) !== JSON.stringify(f.rows)) expect(got.rows, at).toEqual(f.rows);
  expect(got.good, at).toBe(f.expected.rows);
  expect(got.bad, at).toEqual({ ...f.expected.bad, partial: 1 });
  expect(got.blank, at).toBe(f.expected.blank);
}

/** Every position where a cut is most likely to break framing: around each \r, \n and NUL, and at the line limit. */
function awkwardCuts(f: Fuzzed): number[] {
  const cuts = new Set<number>();
  let lineStart = 0;
  for (let i = 0; i < f.stream.length; i++) {
    const b = f.stream[i];
    if (b === 0x0d || b === 0x0a || b === 0x00) [i, i + 1].forEach((c) => cuts.add(c));
    if (b === 0x0d || b === 0x0a) lineStart = i + 1;
    if (i - lineStart === MAX - 1 || i - lineStart === MAX || i - lineStart === MAX + 1) cuts.add(i);
  }
  return [...cuts].sort((a, b) => a - b);
}

describe('numeric-line reader under a fuzzed board (framing, parsing, counting)', () => {
  for (const seed of SEEDS) {
    describe(`seed ${seed}`, () => {
      const f = fuzzed(seed, 300);
      const short = fuzzed(seed, 60);

      it('the generator made every kind of piece (else the test proves less than it says)', () => {
        const c = new FuzzLines(seed, { maxLineBytes: MAX, longChance: 0.03 });
        for (let i = 0; i < 300; i++) c.next();
        for (const kind of ['good', 'blank', 'text', 'nan', 'width', 'garbage', 'nul', 'too-long'] as const) expect(c.counts[kind], kind).toBeGreaterThan(0);
        expect([...f.stream].filter((b) => b === 0x0d).length).toBeGreaterThan(20);
      });

      it('whole, then (the first 60 pieces) cut in two at every byte position', () => {
        check(f, [f.stream], 'one chunk');
        const s = short.stream;
        for (let cut = 0; cut <= s.length; cut++) check(short, [s.subarray(0, cut), s.subarray(cut)], `cut at ${cut}`);
        // Thousands of whole reader runs: ~9 s on an idle 2-core machine, past 20 s on a loaded one.
      }, 60_000);

      it('cut at every \\r, \\n, NUL and line-limit boundary at once, and one byte at a time', () => {
        const cuts = [0, ...awkwardCuts(f), f.stream.length];
        check(f, cuts.slice(1).map((c, i) => f.stream.subarray(cuts[i], c)), 'all awkward cuts');
        check(f, [...f.stream].map((b) => Buffer.from([b])), 'single bytes');
      });

      it('under random chunkings with empty chunks and bursts', () => {
        const rnd = prng(seed ^ 0x5eed);
        for (let trial = 0; trial < 100; trial++) {
          const chunks: Buffer[] = [];
          for (let at = 0; at < f.stream.length; ) {
            // Mostly small reads, sometimes an empty one, sometimes a burst of several KiB.
            const r = rnd();
            const n = r < 0.05 ? 0 : r < 0.9 ? 1 + Math.floor(rnd() * 64) : 1 + Math.floor(rnd() * 4096);
            chunks.push(f.stream.subarray(at, at + n));
            at += n;
          }
          check(f, chunks, `random chunking ${trial}`);
        }
      });
    });
  }

  it('with the default 64 KiB limit: over-long lines of up to 160 KiB in 4 KiB reads', () => {
    const f = fuzzed(7, 20_000, 64 * 1024, 1 / 2000);
    expect(f.expected.bad['too-long']).toBeGreaterThan(3);
    const chunks: Buffer[] = [];
    for (let at = 0; at < f.stream.length; at += 4096) chunks.push(f.stream.subarray(at, at + 4096));
    check(f, chunks, '4 KiB reads', 64 * 1024);
  });
});

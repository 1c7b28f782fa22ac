import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeRows } from '../../../src-main/core/capture/cbor-rows.js';
import { completeRows, completeRowsIn, maxRowBytes } from '../../../src-main/core/capture/recording-rows.js';

// Rows of every size encodeRows writes: small and 1-, 2-, 4-byte integers, negatives, float64.
const values = (n: number): number[] => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(i % 20, i * 1000 - 70_000, i / 3, (i * 7919) % 2 ? -i : 70_000 * i);
  return out;
};

async function file(bytes: Buffer): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'cd-rows-')), 'r.rows');
  await writeFile(path, bytes);
  return path;
}

describe('completeRowsIn: a rows file read a chunk at a time', () => {
  const whole = encodeRows(values(500), 4, 500);

  it('finds what completeRows finds over the whole buffer, from any byte, up to any count, with chunks that cut rows', async () => {
    const path = await file(whole);
    for (const chunkBytes of [1, 37, 64, 1000, 1 << 20]) {
      expect(await completeRowsIn(path, 4, { chunkBytes })).toEqual({ rows: 500, bytes: whole.length });
      for (const most of [0, 1, 123, 499, 500, 501]) {
        expect(await completeRowsIn(path, 4, { chunkBytes, most })).toEqual(completeRows(whole, 4, most));
      }
    }
    const from = completeRows(whole, 4, 200).bytes;
    expect(await completeRowsIn(path, 4, { from, most: 50, chunkBytes: 40 })).toEqual(completeRows(whole.subarray(from), 4, 50));
  });

  it('stops before a row cut short by a crash and before bytes that are no row', async () => {
    const cut = await file(whole.subarray(0, whole.length - 3));
    expect(await completeRowsIn(cut, 4, { chunkBytes: 50 })).toEqual({ rows: 499, bytes: completeRows(whole, 4, 499).bytes });
    const at = completeRows(whole, 4, 300).bytes;
    const broken = Buffer.concat([whole.subarray(0, at), Buffer.alloc(maxRowBytes(4) * 3, 0xff), whole.subarray(at)]);
    expect(await completeRowsIn(await file(broken), 4, { chunkBytes: 50 })).toEqual({ rows: 300, bytes: at });
    // A row of another width (3 numbers where 4 are due) is no row either.
    const other = Buffer.concat([whole.subarray(0, at), encodeRows([1, 2, 3], 3, 1), whole.subarray(at)]);
    expect(await completeRowsIn(await file(other), 4, { chunkBytes: 50 })).toEqual({ rows: 300, bytes: at });
  });

  it('an empty file has no rows', async () => {
    expect(await completeRowsIn(await file(Buffer.alloc(0)), 4)).toEqual({ rows: 0, bytes: 0 });
  });
});

// checkSampleBytes, the bulk import's check of every file: it must take and refuse exactly what
// decodeSampleBytes (the sample view's decoder) takes and refuses, with the same words, and tell
// the same rows and interval; it only skips building the columns of an acquisition JSON file.
import { describe, expect, it } from 'vitest';
import { checkSampleBytes, decodeSampleBytes } from '../../../src-main/core/review/decoded.js';
import { encodeCbor, sensorDoc, wav } from '../../support/ingestion-server/fixtures.js';

const doc = sensorDoc([[1, 2, 3], [4, 5, 6], [7, 8, 9]], 20);
const json = (d: unknown) => Buffer.from(JSON.stringify(d));

const cases: Array<[string, string, Uint8Array]> = [
  ['json', 'a.json', json(doc)],
  ['json with a byte-order mark and white space', 'a.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`  \n${JSON.stringify(doc)}`)])],
  ['CBOR under a .json name', 'a.json', encodeCbor(doc)],
  ['JSON under a .cbor name', 'a.cbor', json(doc)],
  ['cbor', 'a.cbor', encodeCbor(doc)],
  ['wav', 'a.wav', wav(50)],
  ['csv', 'a.csv', Buffer.from('timestamp,x\n0,1\n10,2\n')],
  ['torn JSON', 'a.json', Buffer.from('{"protected":')],
  ['JSON that is not an acquisition message', 'a.json', json({ hello: 1 })],
  ['a row of the wrong width', 'a.json', json(sensorDoc([[1, 2], [3]]))],
  ['no rows', 'a.json', json({ ...doc, payload: { ...doc.payload, values: [] } })],
  ['a zero interval', 'a.json', json({ ...doc, payload: { ...doc.payload, interval_ms: 0 } })],
  ['a text value', 'a.json', json(sensorDoc([[1, 'x'] as unknown as number[]]))],
  ['garbage CBOR', 'a.cbor', Buffer.from('garbage')],
  ['not a WAV', 'a.wav', Buffer.from('not a wav')],
  ['an empty file', 'a.json', Buffer.alloc(0)],
];

function outcome(f: () => { rows: number; intervalMs: number }): unknown {
  try {
    const r = f();
    return { rows: r.rows, intervalMs: r.intervalMs };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('checkSampleBytes', () => {
  it.each(cases)('%s: the same verdict as decodeSampleBytes', (_, name, bytes) => {
    const sample = { name, kind: name.endsWith('.wav') ? ('audio' as const) : ('sensor' as const) };
    expect(outcome(() => checkSampleBytes(sample, bytes))).toEqual(outcome(() => decodeSampleBytes(sample, bytes)));
  });

  it('says which format it read', () => {
    expect(checkSampleBytes({ name: 'a.json', kind: 'sensor' }, json(doc)).format).toBe('json');
    expect(checkSampleBytes({ name: 'a.json', kind: 'sensor' }, encodeCbor(doc)).format).toBe('cbor');
    expect(checkSampleBytes({ name: 'a.wav', kind: 'audio' }, wav(50)).format).toBeNull();
  });
});

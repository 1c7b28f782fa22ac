import { describe, expect, it } from 'vitest';
import { lengthFromBytes } from '../../../src-main/core/samples/formats/sample-length.js';
import { encodeCbor, sensorDoc, wav } from '../../support/ingestion-server/fixtures.js';

// A few bytes of CBOR by hand, for layouts the usual encoder never writes (open-ended arrays).
const text = (s: string) => Buffer.concat([Buffer.from([0x60 | s.length]), Buffer.from(s, 'latin1')]);
const uint = (n: number) => (n < 24 ? Buffer.from([n]) : Buffer.from([0x18, n]));

describe('lengthFromBytes', () => {
  it('reads a WAV header, also from its first bytes only given the file size', () => {
    const w = wav(1500, 16_000);
    expect(lengthFromBytes('yes.1.wav', w)).toBe(1500);
    expect(lengthFromBytes('yes.1.wav', w.subarray(0, 64), w.length)).toBe(1500);
    expect(lengthFromBytes('no.wav', Buffer.from('not a wav'))).toBeNull();
  });

  it('counts the rows of a CBOR acquisition file from its values header, in any key order', () => {
    const doc = sensorDoc(Array.from({ length: 250 }, (_, i) => [i, -i, 0.5]), 4);
    expect(lengthFromBytes('idle.1.cbor', encodeCbor(doc))).toBe(1000);
    // Only the head of a big file: the definite array says its length before its rows.
    expect(lengthFromBytes('idle.1.cbor', encodeCbor(doc).subarray(0, 300), 10_000)).toBe(1000);
    // values before interval_ms: its rows are skipped to reach the interval.
    const { values, ...rest } = doc.payload;
    expect(lengthFromBytes('x.cbor', encodeCbor({ ...doc, payload: { values, ...rest } }))).toBe(1000);
    // An interval in floating point (a 62.5 Hz board).
    expect(lengthFromBytes('x.cbor', encodeCbor(sensorDoc([[1], [2], [3]], 16.5)))).toBe(49.5);
  });

  it('counts an open-ended values array by skipping its rows', () => {
    const rows = Buffer.concat([Buffer.from([0x9f]), ...Array.from({ length: 30 }, (_, i) => Buffer.from([0x82, i % 24, 0x01])), Buffer.from([0xff])]);
    const payload = Buffer.concat([Buffer.from([0xa2]), text('interval_ms'), uint(20), text('values'), rows]);
    const top = Buffer.concat([Buffer.from([0xa2]), text('protected'), Buffer.from([0xa0]), text('payload'), payload]);
    expect(lengthFromBytes('open.cbor', top)).toBe(600);
    expect(lengthFromBytes('open.cbor', top.subarray(0, top.length - 5), top.length)).toBeNull(); // cut short: unknown, not wrong
  });

  it('parses JSON and CSV (no header to read there), and says null for what it cannot tell', () => {
    expect(lengthFromBytes('a.json', Buffer.from(JSON.stringify(sensorDoc([[1], [2]], 10))))).toBe(20);
    expect(lengthFromBytes('a.json', Buffer.from('{"payload":{"interval_ms":0,"values":[]}}'))).toBeNull();
    expect(lengthFromBytes('a.json', Buffer.from('{ broken'))).toBeNull();
    expect(lengthFromBytes('a.csv', Buffer.from('timestamp,x\n0,1\n10,2\n20,3\n'))).toBe(30);
    expect(lengthFromBytes('a.jpg', Buffer.from([0xff, 0xd8]))).toBeNull();
    expect(lengthFromBytes('a.cbor', Buffer.from([0x01, 0x02]))).toBeNull();
  });
});

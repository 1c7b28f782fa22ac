import { it, expect } from 'vitest';

// The recorder streams rows to disk; the result must be byte-identical to cbor-x's encoding.
import { Encoder } from 'cbor-x';
import { encodeRows } from '../../../src-main/core/capture/cbor-rows.js';
it('encodes every kind of number exactly as cbor-x does', () => {
  const enc = new Encoder({ useRecords: false, variableMapSize: true });
  const vals = [0, 1, 23, 24, 255, 256, 65535, 65536, 4294967295, 4294967296, -1, -24, -25, -256, -257, -65536, -65537, -2147483648, -2147483649, -4294967296, -4294967297, 2 ** 53, -(2 ** 53), 0.5, -0.123, 9.81, 1e300, -0, NaN, Infinity, 3.4028234663852886e38, 1.1];
  for (const v of vals) {
    const a = Buffer.from(enc.encode([v]));
    const b = encodeRows([v], 1, 1);
    expect(b.toString('hex'), String(v)).toBe(a.toString('hex'));
  }
});

import { createHmac } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { Encoder, decode as plainCborDecode } from 'cbor-x';
import { CoreError } from '../../../src-main/core/errors.js';
import {
  AcquisitionMessageSchema, ZERO_SIGNATURE, decodeAcquisition, detectAcquisitionFormat, encodeAcquisition, verifyAcquisitionSignature,
  type AcquisitionDraft, type AcquisitionFormat,
} from '../../../src-main/core/samples/formats/acquisition.js';
import { thrownBy } from '../../support/errors.js';

const KEY = 'a1b2c3d4e5f6';
const FORMATS: AcquisitionFormat[] = ['json', 'cbor'];

function draft(values: number[][] = [[1, -2, 9.81], [0.5, 1e-7, -123456.789]]): AcquisitionDraft {
  return {
    protected: { iat: 1_700_000_000 },
    payload: {
      device_name: 'ac:87:a3:0a:2d:1b',
      device_type: 'CAPTURE_DESK',
      interval_ms: 10,
      sensors: [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }, { name: 'accZ', units: 'm/s2' }],
      values,
    },
  };
}

const errorOf = (fn: () => unknown) => thrownBy(fn, CoreError);

/** The signing rule done independently: zero the 64 hex characters in the bytes, HMAC the result. */
function independentHmac(bytes: Buffer, signature: string, key: string): string {
  const at = bytes.indexOf(Buffer.from(signature, 'latin1'));
  expect(at).toBeGreaterThan(0);
  expect(bytes.indexOf(Buffer.from(signature, 'latin1'), at + 1)).toBe(-1);
  const zeroed = Buffer.from(bytes);
  zeroed.fill('0', at, at + 64);
  return createHmac('sha256', key).update(zeroed).digest('hex');
}

describe('signing', () => {
  for (const format of FORMATS) {
    it(`${format}: the signature is HMAC-SHA256 of the exact bytes with zeros in its place`, () => {
      const bytes = encodeAcquisition(draft(), { format, hmacKey: KEY });
      const msg = decodeAcquisition(bytes, format);
      expect(msg.protected.alg).toBe('HS256');
      expect(msg.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(msg.signature).not.toBe(ZERO_SIGNATURE);
      expect(independentHmac(bytes, msg.signature, KEY)).toBe(msg.signature);
    });

    it(`${format}: signing moves no byte other than the 64 signature characters`, () => {
      const signed = encodeAcquisition(draft(), { format, hmacKey: KEY });
      const msg = decodeAcquisition(signed, format);
      // Encode the same message, zero-signed, with an independent encoder: identical except the signature.
      const zeroSigned = { ...msg, signature: ZERO_SIGNATURE };
      const reference = format === 'json'
        ? Buffer.from(JSON.stringify(zeroSigned))
        : new Encoder({ useRecords: false, variableMapSize: true }).encode(zeroSigned);
      expect(signed.length).toBe(reference.length);
      const differing = [...signed.keys()].filter((i) => signed[i] !== reference[i]);
      const at = signed.indexOf(Buffer.from(msg.signature, 'latin1'));
      expect(differing.length).toBeGreaterThan(50); // ~60 of 64 hex digits differ from '0'
      expect(differing.every((i) => i >= at && i < at + 64)).toBe(true);
    });

    it(`${format}: verify accepts the right key and refuses a wrong key or a changed payload byte`, () => {
      const bytes = encodeAcquisition(draft(), { format, hmacKey: KEY });
      expect(verifyAcquisitionSignature(bytes, KEY)).toBe(true);
      expect(verifyAcquisitionSignature(bytes, KEY, format)).toBe(true);
      expect(verifyAcquisitionSignature(bytes, 'other-key')).toBe(false);

      // Flip one byte of the device_type text: still decodes, must no longer verify.
      const tampered = Buffer.from(bytes);
      const at = tampered.indexOf(Buffer.from('CAPTURE_DESK'));
      tampered[at] = 'D'.charCodeAt(0);
      expect(decodeAcquisition(tampered, format).payload.device_type).toBe('DAPTURE_DESK');
      expect(verifyAcquisitionSignature(tampered, KEY)).toBe(false);
      expect(bytes.indexOf(Buffer.from('CAPTURE_DESK'))).toBe(at); // the caller's buffer was not modified
    });

    it(`${format}: unsigned messages use alg none and 64 zeros, and never verify`, () => {
      const bytes = encodeAcquisition(draft(), { format });
      const msg = decodeAcquisition(bytes, format);
      expect(msg.protected).toEqual({ ver: 'v1', alg: 'none', iat: 1_700_000_000 });
      expect(msg.signature).toBe(ZERO_SIGNATURE);
      expect(verifyAcquisitionSignature(bytes, KEY)).toBe(false);
    });
  }

  it('a device name that contains the placeholder text does not fool signing or verification', () => {
    for (const format of FORMATS) {
      const d = draft();
      d.payload.device_name = `"signature":"${ZERO_SIGNATURE}`;
      d.payload.sensors[0] = { name: 'signature', units: ZERO_SIGNATURE };
      const bytes = encodeAcquisition(d, { format, hmacKey: KEY });
      const msg = decodeAcquisition(bytes, format);
      expect(msg.payload.device_name).toBe(d.payload.device_name);
      expect(msg.payload.sensors[0]?.units).toBe(ZERO_SIGNATURE);
      expect(verifyAcquisitionSignature(bytes, KEY)).toBe(true);
    }
  });

  it('verifies JSON written by other tools with whitespace and key order of their own', () => {
    const doc = { payload: draft().payload, signature: ZERO_SIGNATURE, protected: { ver: 'v1', alg: 'HS256', iat: 1 } };
    const zeroed = Buffer.from(JSON.stringify(doc, null, 2));
    const hex = createHmac('sha256', KEY).update(zeroed).digest('hex');
    const signed = Buffer.from(zeroed.toString('latin1').replace(ZERO_SIGNATURE, hex), 'latin1');
    expect(verifyAcquisitionSignature(signed, KEY)).toBe(true);
    expect(verifyAcquisitionSignature(signed, 'nope')).toBe(false);
  });

  it('refuses an empty HMAC key instead of signing with it', () => {
    expect(errorOf(() => encodeAcquisition(draft(), { format: 'json', hmacKey: '' })).message).toMatch(/HMAC key is empty/);
  });
});

describe('CBOR encoding', () => {
  it('is standard minimal CBOR: definite map headers, no record tag', () => {
    const bytes = encodeAcquisition(draft(), { format: 'cbor', hmacKey: KEY });
    expect(bytes[0]).toBe(0xa3); // map of 3: protected, signature, payload
    expect(bytes.includes(Buffer.from([0xd9, 0xdf, 0xff]))).toBe(false);
    // protected is the first value: key text(9) "protected", then a map of 3 (ver, alg, iat).
    expect(bytes.subarray(1, 11)).toEqual(Buffer.from([0x69, ...Buffer.from('protected')]));
    expect(bytes[11]).toBe(0xa3);
    // payload: map of 5 with device_name, 4 without.
    const payloadKey = Buffer.from([0x67, ...Buffer.from('payload')]);
    expect(bytes[bytes.indexOf(payloadKey) + payloadKey.length]).toBe(0xa5);
    const noName = draft();
    delete noName.payload.device_name;
    const b2 = encodeAcquisition(noName, { format: 'cbor' });
    expect(b2[b2.indexOf(payloadKey) + payloadKey.length]).toBe(0xa4);
  });

  it('any standard decoder reads it the same', () => {
    const bytes = encodeAcquisition(draft(), { format: 'cbor', hmacKey: KEY });
    expect(plainCborDecode(bytes)).toEqual(decodeAcquisition(bytes, 'cbor'));
  });

  it('keeps integers as CBOR integers and floats exact (float64), including large and tiny values', () => {
    const values = [[0, 23, 24], [-1, -24, -25], [65535, 4294967295, -2147483648], [0.1, 1 / 3, 1e-300], [2 ** 53, 9.81, -0.5]];
    const bytes = encodeAcquisition(draft(values), { format: 'cbor' });
    expect(decodeAcquisition(bytes, 'cbor').payload.values).toEqual(values);
    // The first row [0, 23, 24] is array(3) then 0x00, 0x17, 0x18 0x18: integers, not floats.
    expect(bytes.includes(Buffer.from([0x83, 0x00, 0x17, 0x18, 0x18]))).toBe(true);
    // 0.1 is written as a float64 (0xfb), never rounded through float32.
    expect(bytes.includes(Buffer.from([0xfb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a]))).toBe(true);
  });
});

describe('round trips', () => {
  for (const format of FORMATS) {
    it(`${format}: decode(encode(x)) gives x back`, () => {
      const d = draft();
      const msg = decodeAcquisition(encodeAcquisition(d, { format, hmacKey: KEY }), format);
      expect(msg.payload).toEqual(d.payload);
      expect(msg.protected.iat).toBe(1_700_000_000);
      expect(detectAcquisitionFormat(encodeAcquisition(d, { format }))).toBe(format);
    });
  }

  it('JSON has no spaces and a fixed key order', () => {
    const text = encodeAcquisition(draft([[1, 2, 3]]), { format: 'json' }).toString('utf8');
    expect(text).toBe(
      `{"protected":{"ver":"v1","alg":"none","iat":1700000000},"signature":"${ZERO_SIGNATURE}",`
      + '"payload":{"device_name":"ac:87:a3:0a:2d:1b","device_type":"CAPTURE_DESK","interval_ms":10,'
      + '"sensors":[{"name":"accX","units":"m/s2"},{"name":"accY","units":"m/s2"},{"name":"accZ","units":"m/s2"}],'
      + '"values":[[1,2,3]]}}',
    );
  });

  it('fills iat with the current time in whole seconds when not given', () => {
    const before = Math.floor(Date.now() / 1000);
    const msg = decodeAcquisition(encodeAcquisition({ payload: draft().payload }, { format: 'json' }), 'json');
    expect(Number.isInteger(msg.protected.iat)).toBe(true);
    expect(msg.protected.iat).toBeGreaterThanOrEqual(before);
  });

  it('decodes JSON with a byte-order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), encodeAcquisition(draft(), { format: 'json' })]);
    expect(detectAcquisitionFormat(bytes)).toBe('json');
    expect(decodeAcquisition(bytes, 'json').payload.values.length).toBe(2);
  });
});

describe('validation', () => {
  const bad = (mutate: (doc: Record<string, any>) => void): string => {
    const doc = JSON.parse(encodeAcquisition(draft([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), { format: 'json' }).toString());
    mutate(doc);
    return errorOf(() => decodeAcquisition(Buffer.from(JSON.stringify(doc)), 'json')).message;
  };

  it('points at the first bad row', () => {
    expect(bad((d) => { d.payload.values[1] = [1, 2]; })).toMatch(/payload\.values\[1\]: has 2 values but there are 3 sensors/);
    expect(bad((d) => { d.payload.values[2][1] = 'x'; d.payload.values[1] = [1]; })).toMatch(/payload\.values\[1\]:/);
    expect(bad((d) => { d.payload.values[2][1] = null; })).toMatch(/payload\.values\[2\]: column 1 is null, not a finite number/);
    expect(bad((d) => { d.payload.values[0] = 5; })).toMatch(/payload\.values\[0\]: is not an array/);
  });

  it('names other bad fields', () => {
    expect(bad((d) => { d.payload.values = []; })).toMatch(/payload\.values: is empty/);
    expect(bad((d) => { d.payload.interval_ms = 0; })).toMatch(/payload\.interval_ms/);
    expect(bad((d) => { d.payload.sensors[1].units = 3; })).toMatch(/payload\.sensors\[1\]\.units/);
    expect(bad((d) => { d.protected.alg = 'RS256'; })).toMatch(/protected\.alg/);
    expect(bad((d) => { delete d.signature; })).toMatch(/signature/);
  });

  it('accepts a missing device_name (optional on the platform) and no iat', () => {
    const doc = JSON.parse(encodeAcquisition(draft(), { format: 'json' }).toString());
    delete doc.payload.device_name;
    delete doc.protected.iat;
    const msg = decodeAcquisition(Buffer.from(JSON.stringify(doc)), 'json');
    expect(msg.payload.device_name).toBeUndefined();
    expect(msg.protected.iat).toBeUndefined();
  });

  it('refuses to encode NaN or ragged rows, and reports undecodable bytes', () => {
    expect(errorOf(() => encodeAcquisition(draft([[1, 2, Number.NaN]]), { format: 'cbor' })).message).toMatch(/values\[0\]: column 2/);
    expect(errorOf(() => encodeAcquisition(draft([[1, 2, 3], [1, 2, 3, 4]]), { format: 'json' })).message).toMatch(/values\[1\]/);
    expect(errorOf(() => decodeAcquisition(Buffer.from('{"protected":'), 'json')).message).toMatch(/Not a valid JSON acquisition file/);
    expect(errorOf(() => decodeAcquisition(Buffer.from([0xff, 0x00]), 'cbor')).code).toBe('InvalidArguments');
  });
});

describe('speed (smoke check; the real benchmark lives elsewhere)', () => {
  it('encodes and signs 100k rows x 3 axes well within 2 s in both formats', () => {
    const values = Array.from({ length: 100_000 }, (_, i) => [Math.sin(i / 10) * 9.81, i % 1000, -0.001 * i]);
    for (const format of FORMATS) {
      const t0 = performance.now();
      const bytes = encodeAcquisition(draft(values), { format, hmacKey: KEY });
      const elapsed = performance.now() - t0;
      expect(elapsed).toBeLessThan(2000);
      expect(verifyAcquisitionSignature(bytes, KEY)).toBe(true);
    }
  });
});

describe('the check of an acquisition message: a quick read for plainly valid files, the schema for the rest', () => {
  const good = () => ({
    protected: { ver: 'v1', alg: 'none', iat: 1 },
    signature: '0'.repeat(64),
    payload: { device_name: 'd', device_type: 'T', interval_ms: 10, sensors: [{ name: 'a', units: 'u' }, { name: 'b', units: '' }], values: [[1, 2], [3, 4]] },
  });
  type Doc = ReturnType<typeof good>;
  const set = (f: (d: Doc & Record<string, unknown>) => void) => () => {
    const d = good() as Doc & Record<string, unknown>;
    f(d);
    return d;
  };
  const odd: unknown[] = [undefined, null, 0, -1, NaN, Infinity, '', 'x', [], {}, [[]], true];
  const variants: Array<() => unknown> = [good, () => null, () => [], () => 'x'];
  for (const v of odd) {
    variants.push(
      set((d) => void ((d as Record<string, unknown>).protected = v)),
      set((d) => void ((d.protected as Record<string, unknown>).ver = v)),
      set((d) => void ((d.protected as Record<string, unknown>).alg = v)),
      set((d) => void ((d.protected as Record<string, unknown>).iat = v)),
      set((d) => void ((d as Record<string, unknown>).signature = v)),
      set((d) => void ((d as Record<string, unknown>).payload = v)),
      set((d) => void ((d.payload as Record<string, unknown>).device_name = v)),
      set((d) => void ((d.payload as Record<string, unknown>).device_type = v)),
      set((d) => void ((d.payload as Record<string, unknown>).interval_ms = v)),
      set((d) => void ((d.payload as Record<string, unknown>).sensors = v)),
      set((d) => void ((d.payload.sensors as unknown[])[1] = v)),
      set((d) => void ((d.payload.sensors[0] as Record<string, unknown>).name = v)),
      set((d) => void ((d.payload.sensors[0] as Record<string, unknown>).units = v)),
      set((d) => void ((d.payload as Record<string, unknown>).values = v)),
      set((d) => void ((d.payload.values as unknown[])[1] = v)),
      set((d) => void ((d.payload.values[0] as unknown[])[1] = v)),
    );
  }
  variants.push(set((d) => void delete (d.protected as Record<string, unknown>).iat), set((d) => void delete (d.payload as Record<string, unknown>).device_name), set((d) => void ((d as Record<string, unknown>).extra = 1)));

  it(`accepts exactly what the schema accepts, JSON and CBOR (${variants.length} documents each)`, () => {
    const plain = new Encoder({ useRecords: false });
    for (const [i, make] of variants.entries()) {
      const doc = make();
      // JSON has no undefined, NaN or Infinity; CBOR keeps them: the schema judges what the file says.
      const files: Array<[AcquisitionFormat, Buffer]> = [['json', Buffer.from(JSON.stringify(doc) ?? 'null')], ['cbor', plain.encode(doc)]];
      for (const [format, bytes] of files) {
        const want = AcquisitionMessageSchema.safeParse(format === 'json' ? JSON.parse(bytes.toString()) : plainCborDecode(bytes)).success;
        const got = (() => {
          try {
            decodeAcquisition(bytes, format);
            return true;
          } catch (err) {
            expect(err, `document ${i}`).toBeInstanceOf(CoreError);
            return false;
          }
        })();
        expect(got, `document ${i} as ${format}: ${JSON.stringify(doc)?.slice(0, 200)}`).toBe(want);
      }
    }
  });
});

// Headers that claim what no sensor or microphone does (issue 42, item 5): each is refused with a
// sentence naming the field and its value, by the decoders every import, review and quality check
// goes through, instead of being stored (then giving lengths of 0 or Infinity) or failing with a
// JavaScript internal ("Invalid typed array length: 6442450944").
import { describe, expect, it } from 'vitest';
import { CoreError } from '../../../src-main/core/errors.js';
import { checkSampleBytes, decodeSampleBytes } from '../../../src-main/core/review/decoded.js';
import { decodeAcquisition, MAX_INTERVAL_MS, MIN_INTERVAL_MS } from '../../../src-main/core/samples/formats/acquisition.js';
import { decodeWavHeader } from '../../../src-main/core/samples/formats/wav.js';
import { encodeCbor, sensorDoc, wav } from '../../support/ingestion-server/fixtures.js';
import { thrownBy } from '../../support/errors.js';

const withInterval = (ms: unknown) => {
  const d = sensorDoc([[1, 2], [3, 4]]);
  return { ...d, payload: { ...d.payload, interval_ms: ms } };
};
const refusal = (name: string, bytes: Uint8Array) => {
  const viaCheck = thrownBy(() => checkSampleBytes({ name, kind: name.endsWith('.wav') ? 'audio' : 'sensor' }, bytes), CoreError).message;
  const viaDecode = thrownBy(() => decodeSampleBytes({ name, kind: name.endsWith('.wav') ? 'audio' : 'sensor' }, bytes), CoreError).message;
  expect(viaCheck).toBe(viaDecode);
  return viaCheck;
};

describe('acquisition interval_ms', () => {
  const LIMITS = /the time between readings must be from 0\.01 ms \(100 kHz\) to 86400000 ms \(one reading a day\)/;
  it.each([[1e-300, '1e-300'], [1e300, '1e\\+300'], [0.001, '0\\.001'], [MAX_INTERVAL_MS * 2, '172800000']])('refuses %s in JSON and CBOR', (ms, shown) => {
    for (const [name, bytes] of [['a.json', Buffer.from(JSON.stringify(withInterval(ms)))], ['a.cbor', encodeCbor(withInterval(ms))]] as const) {
      const m = refusal(name, bytes);
      expect(m).toMatch(new RegExp(`payload\\.interval_ms: is ${shown} ms: `));
      expect(m).toMatch(LIMITS);
    }
  });

  it('refuses Infinity in CBOR (JSON cannot hold it)', () => {
    expect(refusal('a.cbor', encodeCbor(withInterval(Infinity)))).toMatch(/payload\.interval_ms: is Infinity ms: the time between readings must be from/);
    expect(thrownBy(() => decodeAcquisition(encodeCbor(withInterval(-Infinity)), 'cbor'), CoreError).message).toMatch(/payload\.interval_ms: is -Infinity ms/);
  });

  it('takes the limits themselves', () => {
    for (const ms of [MIN_INTERVAL_MS, MAX_INTERVAL_MS]) {
      expect(checkSampleBytes({ name: 'a.cbor', kind: 'sensor' }, encodeCbor(withInterval(ms))).intervalMs).toBe(ms);
      expect(decodeAcquisition(Buffer.from(JSON.stringify(withInterval(ms))), 'json').payload.interval_ms).toBe(ms);
    }
  });
});

describe('CBOR framing', () => {
  it('refuses a values count the file cannot hold, without sizing anything by it', () => {
    const good = encodeCbor(sensorDoc([[1], [2]]));
    const at = good.indexOf(Buffer.from('values')) + 6;
    expect(good[at]).toBe(0x82); // an array of 2
    const huge = Buffer.concat([good.subarray(0, at), Buffer.from([0x9b, 0, 0, 0, 1, 0x80, 0, 0, 0]), good.subarray(at + 1)]);
    expect(refusal('a.cbor', huge)).toMatch(/payload\.values says it holds 6442450944 rows, but only \d+ bytes of the file follow: the file is cut short or damaged/);
  });

  it('refuses bytes after the end of the message', () => {
    const joined = Buffer.concat([encodeCbor(sensorDoc()), Buffer.from([1, 2, 3])]);
    expect(refusal('a.cbor', joined)).toMatch(/3 bytes follow the end of the message: the file is damaged, or two files were joined into one/);
  });
});

describe('WAV sample rate', () => {
  const withRate = (hz: number) => {
    const b = Buffer.from(wav(10, 16_000));
    b.writeUInt32LE(hz, 24);
    b.writeUInt32LE((hz * 2) >>> 0, 28);
    return b;
  };
  it('refuses a header claiming more than 384 kHz', () => {
    expect(thrownBy(() => decodeWavHeader(withRate(4_000_000_000)), CoreError).message).toBe('Not a readable WAV file: its header says 4000000000 Hz, more than the 384000 Hz audio is recorded at: the header is damaged. Check the file, or convert it again');
    expect(refusal('a.wav', withRate(384_001))).toMatch(/its header says 384001 Hz, more than the 384000 Hz/);
  });
  it('takes 384 kHz itself', () => {
    expect(decodeWavHeader(withRate(384_000)).sampleRate).toBe(384_000);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeAcquisition, encodeAcquisition } from '../../../src-main/core/samples/formats/acquisition.js';
import { scanAcquisition } from '../../../src-main/core/samples/formats/acquisition-scan.js';
import { encodeWav, wavHeader } from '../../../src-main/core/samples/formats/wav.js';
import { interleave, readWavPcm } from '../../../src-main/core/samples/formats/wav-pcm.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';

const payload = (values: number[][]) => ({ device_type: 'TEST', device_name: 'dev-1', interval_ms: 10, sensors: [{ name: 'x', units: 'g' }, { name: 'y', units: 'g' }], values });

describe('acquisition scan', () => {
  const values = Array.from({ length: 500 }, (_, i) => [i, -i * 1.5 + 0.1]).concat([[70000, -1e-9], [-70000, 3.5e38]]);

  it('reads CBOR rows into one float64 column per axis, exactly as decoded', () => {
    const bytes = encodeAcquisition({ protected: { iat: 1234 }, payload: payload(values) }, { format: 'cbor', hmacKey: 'k' });
    const s = scanAcquisition(bytes);
    const ref = decodeAcquisition(bytes, 'cbor').payload.values;
    expect(s).toMatchObject({ format: 'cbor', alg: 'HS256', iat: 1234, deviceName: 'dev-1', deviceType: 'TEST', intervalMs: 10, rows: ref.length });
    expect([...s.columns[0]!]).toEqual(ref.map((r) => r[0]));
    expect([...s.columns[1]!]).toEqual(ref.map((r) => r[1]));
  });

  it('reads JSON and CBOR written by other encoders (half floats, indefinite arrays)', () => {
    const json = scanAcquisition(encodeAcquisition({ payload: payload([[1, 2], [3, 4]]) }, { format: 'json' }));
    expect(json).toMatchObject({ format: 'json', alg: 'none', rows: 2 });
    expect([...json.columns[1]!]).toEqual([2, 4]);
    // A hand-made CBOR document: values as an indefinite array whose rows hold a half float (0xf9 3c00 = 1.0).
    const head = encodeCbor({ protected: { ver: 'v1', alg: 'none' }, signature: '0'.repeat(64), payload: { device_type: 'T', interval_ms: 5, sensors: [{ name: 'a', units: '' }], values: [] } });
    const bytes = Buffer.concat([head.subarray(0, -1), Buffer.from([0x9f, 0x81, 0xf9, 0x3c, 0x00, 0x81, 0x02, 0xff])]);
    expect([...scanAcquisition(bytes).columns[0]!]).toEqual([1, 2]);
  });

  it('refuses rows of the wrong width, non-numbers and truncated files with a reason', () => {
    expect(() => scanAcquisition(encodeCbor(sensorDoc([[1, 2], [3]])))).toThrow(/values\[1\] has 1 values/);
    expect(() => scanAcquisition(encodeCbor(sensorDoc([[1, 2], [3, 'x' as unknown as number]])))).toThrow(/not a finite number/);
    expect(() => scanAcquisition(encodeCbor(sensorDoc([[1, 2]])).subarray(0, 60))).toThrow(/Not a valid CBOR/);
    const doc = sensorDoc([[1, 2]]);
    doc.payload.sensors.pop();
    expect(() => scanAcquisition(encodeCbor(doc))).toThrow(/2 values but there are 1 sensors/);
  });
});

describe('WAV PCM reader', () => {
  it('splits interleaved 16-bit stereo into channels and back', () => {
    const inter = Int16Array.from([1, -1, 2, -2, 3, -3, 32767, -32768]);
    const pcm = readWavPcm(encodeWav(inter, { sampleRate: 8000, channels: 2 }));
    expect(pcm.sampleRate).toBe(8000);
    expect(pcm.frames).toBe(4);
    expect([...pcm.channels[0]!]).toEqual([1, 2, 3, 32767]);
    expect([...pcm.channels[1]!]).toEqual([-1, -2, -3, -32768]);
    expect([...interleave(pcm.channels, 1, 3)]).toEqual([2, -2, 3, -3]);
  });

  it('scales 8-bit (unsigned) and 24-bit samples to 16 bits', () => {
    const h8 = wavHeader(8000, 1, 3);
    h8.writeUInt16LE(1, 32); // block align
    h8.writeUInt16LE(8, 34);
    expect([...readWavPcm(Buffer.concat([h8, Buffer.from([0, 128, 255])])).channels[0]!]).toEqual([-32768, 0, 32512]);
    const h24 = wavHeader(8000, 1, 6);
    h24.writeUInt16LE(3, 32);
    h24.writeUInt16LE(24, 34);
    expect([...readWavPcm(Buffer.concat([h24, Buffer.from([0x00, 0x00, 0x80, 0xff, 0xff, 0x7f])])).channels[0]!]).toEqual([-32768, 32767]);
  });
});

import { describe, expect, it } from 'vitest';
import { categoryOfPath, decodeFrame, describeRequest, encodeMessage, readServerMessage } from '../../../src-main/core/remote/protocol.js';
import { remoteMgmtUrl } from '../../../src-main/core/remote/remote-url.js';
import { derivedDeviceId, linesSensor, microphoneSensor, serialNumberDeviceId } from '../../../src-main/core/remote/device-identity.js';

describe('remote-management protocol', () => {
  it('encodes JSON text and standard CBOR, and reads both back', () => {
    const m = { sampleReading: true as const, progressPercentage: 40 };
    expect(encodeMessage(m, 'json')).toBe('{"sampleReading":true,"progressPercentage":40}');
    const bin = encodeMessage(m, 'cbor') as Buffer;
    expect(bin[0]).toBe(0xa2); // a map of two: minimal header, no records tag
    expect(decodeFrame(bin, true)).toEqual(m);
    expect(() => decodeFrame(Buffer.from('{'), false)).toThrow();
  });

  it('reads hello replies, sample requests and the rest', () => {
    expect(readServerMessage({ hello: true, serverTimestamp: 5 })).toEqual({ type: 'hello-accepted', serverTimestamp: 5 });
    expect(readServerMessage({ hello: false, err: 'Invalid API key' })).toEqual({ type: 'hello-refused', error: 'Invalid API key' });
    expect(readServerMessage({ sample: { label: 'x', length: 10, path: '/api/training/data', interval: 0.998 } })).toMatchObject({ type: 'sample', request: { intervalMs: 0.998, hmacKey: null } });
    expect(readServerMessage({ sample: { label: 'x', length: -1, path: '/api/training/data' } })).toMatchObject({ type: 'bad-sample' });
    expect(readServerMessage({ err: 'Failed to parse' })).toEqual({ type: 'server-error', error: 'Failed to parse' });
    expect(readServerMessage({ whatever: 1 })).toEqual({ type: 'unknown', keys: ['whatever'] });
    expect(readServerMessage('nope')).toEqual({ type: 'unknown', keys: [] });
  });

  it('takes the category from the path', () => {
    expect(categoryOfPath('/api/training/data')).toBe('training');
    expect(categoryOfPath('/api/testing/data')).toBe('testing');
    expect(categoryOfPath('/api/post-processing/data')).toBe('post-processing');
    expect(categoryOfPath('/api/validation/data')).toBe('validation');
    expect(categoryOfPath('/api/anomaly/data')).toBe('testing');
  });

  it('never puts the HMAC key in what a log may see', () => {
    const r = readServerMessage({ sample: { label: 'x', length: 10, path: '/api/training/data', hmacKey: 'very-secret' } });
    if (r.type !== 'sample') throw new Error('not a sample');
    expect(JSON.stringify(describeRequest(r.request))).not.toContain('very-secret');
  });
});

describe('remote-management URL', () => {
  it('is the platform service for the platform, port 4802 of the ingestion host otherwise, and the setting when set', () => {
    expect(remoteMgmtUrl({ ingestionUrl: 'https://ingestion.edgeimpulse.com', remoteMgmtUrl: null })).toBe('wss://remote-mgmt.edgeimpulse.com');
    expect(remoteMgmtUrl({ ingestionUrl: 'http://127.0.0.1:4810', remoteMgmtUrl: null })).toBe('ws://127.0.0.1:4802');
    expect(remoteMgmtUrl({ ingestionUrl: 'https://lab.example.org', remoteMgmtUrl: null })).toBe('wss://lab.example.org:4802');
    expect(remoteMgmtUrl({ ingestionUrl: 'http://[::1]:4810', remoteMgmtUrl: null })).toBe('ws://[::1]:4802');
    expect(remoteMgmtUrl({ ingestionUrl: 'http://127.0.0.1:4810', remoteMgmtUrl: 'ws://10.0.0.2:9000' })).toBe('ws://10.0.0.2:9000');
  });
});

describe('device identity', () => {
  it('derives a stable, MAC-shaped id per computer and port, without any key', () => {
    const a = derivedDeviceId('machine-1', 'path:/dev/ttyACM0');
    expect(a).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    expect(derivedDeviceId('machine-1', 'path:/dev/ttyACM0')).toBe(a);
    expect(derivedDeviceId('machine-2', 'path:/dev/ttyACM0')).not.toBe(a);
    expect(derivedDeviceId('machine-1', 'path:/dev/ttyACM1')).not.toBe(a);
  });

  it('uses a USB serial number when it is one', () => {
    expect(serialNumberDeviceId(' 0123ABCD ')).toBe('0123ABCD');
    expect(serialNumberDeviceId('12')).toBeNull();
  });

  it('names sensors as the platform tools do, with lengths a file of at most 100 MB can hold', () => {
    const s = linesSensor(['accX', 'accY', 'accZ'], 99.99871);
    expect(s).toEqual({ name: 'Sensor with 3 axes (accX, accY, accZ)', frequencies: [99.999], maxSampleLengthS: 3600 });
    const fast = linesSensor(['a', 'b', 'c', 'd', 'e', 'f'], 20_000);
    expect(fast.maxSampleLengthS).toBeLessThan(100);
    expect(fast.maxSampleLengthS * 20_000 * (6 * 9 + 2)).toBeLessThanOrEqual(100 * 1024 * 1024);
    expect(microphoneSensor(16000)).toEqual({ name: 'Microphone', frequencies: [16000], maxSampleLengthS: 3276 });
    expect(linesSensor(['x'], 10).name).toBe('Sensor with 1 axis (x)');
  });
});

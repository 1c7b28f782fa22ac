import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RemoteLink, type DeviceDescription, type LinkStatus, type Reply } from '../../../src-main/core/remote/remote-link.js';
import type { SampleRequest } from '../../../src-main/core/remote/protocol.js';
import { silentLogger } from '../../../src-main/core/log.js';
import { fakeConnector } from './fake-socket.js';

const description: DeviceDescription = { deviceId: '02:aa:bb:cc:dd:ee', deviceType: 'CAPTURE_DESK', sensors: [{ name: 'Microphone', maxSampleLengthS: 60, frequencies: [16000] }] };

function setup(o: { apiKey?: () => Promise<string>; describe?: () => Promise<DeviceDescription> } = {}) {
  const { connector, connections } = fakeConnector();
  const statuses: LinkStatus[] = [];
  const requests: Array<{ req: SampleRequest; reply: Reply }> = [];
  const link = new RemoteLink({
    connector,
    url: () => 'ws://127.0.0.1:4802',
    apiKey: o.apiKey ?? (async () => 'ei_key'),
    describe: o.describe ?? (async () => description),
    onRequest: (req, reply) => requests.push({ req, reply }),
    onStatus: (s) => statuses.push({ ...s }),
    log: silentLogger,
  });
  return { link, connections, statuses, requests };
}

/** Lets the link's promises (describe, apiKey) and the fake socket's open run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A started link whose first connection the platform has greeted: `c` is that connection. */
async function greeted(o: Parameters<typeof setup>[0] = {}) {
  const s = setup(o);
  s.link.start();
  await settle();
  const c = s.connections[0]!;
  c.say({ hello: true });
  return { ...s, c };
}

describe('RemoteLink', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('says hello first: version 4, JSON, the key, the device and its sensors, mode ingestion', async () => {
    const { link, connections, statuses } = setup();
    link.start();
    await settle();
    expect(connections).toHaveLength(1);
    expect(connections[0]!.sent[0]).toEqual({
      hello: { version: 4, apiKey: 'ei_key', deviceId: description.deviceId, deviceType: 'CAPTURE_DESK', connection: 'daemon', sensors: description.sensors, supportsSnapshotStreaming: false, mode: 'ingestion' },
    });
    expect(link.status.state).toBe('connecting');
    connections[0]!.say({ hello: true, serverTimestamp: 1 });
    expect(link.status.state).toBe('online');
    expect(statuses.map((s) => s.state)).toEqual(['preparing', 'connecting', 'online']);
    link.stop();
  });

  it('pings every 30 s and reconnects when no pong comes within 6 s', async () => {
    const { link, connections, c } = await greeted();
    vi.advanceTimersByTime(30_000);
    expect(c.pings).toBe(1);
    c.on.pong();
    vi.advanceTimersByTime(6_000);
    expect(c.terminated).toBe(false);
    vi.advanceTimersByTime(24_000); // second ping, no pong this time
    expect(c.pings).toBe(2);
    vi.advanceTimersByTime(6_000);
    expect(c.terminated).toBe(true);
    expect(link.status).toMatchObject({ state: 'reconnecting', retryInMs: 1000 });
    vi.advanceTimersByTime(1000);
    await settle();
    expect(connections).toHaveLength(2);
    expect(connections[1]!.sent[0]).toHaveProperty('hello'); // a new hello each time
    link.stop();
  });

  it('backs off about 1 s doubling to 30 s while the server is unreachable, and starts over after a good hello', async () => {
    const { link, connections } = setup();
    link.start();
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      await settle();
      connections.at(-1)!.on.close('connection refused');
      delays.push(link.status.retryInMs!);
      vi.advanceTimersByTime(link.status.retryInMs!);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    await settle();
    connections.at(-1)!.say({ hello: true });
    connections.at(-1)!.on.close('dropped');
    expect(link.status.retryInMs).toBe(1000);
    link.stop();
  });

  it('a refused hello stops reconnecting and says to check the API key, until retryNow()', async () => {
    const { link, connections } = setup();
    link.start();
    await settle();
    connections[0]!.say({ hello: false, err: 'Invalid API key' });
    expect(link.status.state).toBe('refused');
    expect(link.status.reason).toMatch(/Invalid API key.*API key/);
    vi.advanceTimersByTime(120_000);
    await settle();
    expect(connections).toHaveLength(1);
    link.retryNow();
    await settle();
    expect(connections).toHaveLength(2);
    link.stop();
  });

  it('no API key: refused with the reason, no socket opened', async () => {
    const { link, connections } = setup({ apiKey: async () => { throw new Error('No API key is set for this project.'); } });
    link.start();
    await settle();
    expect(connections).toHaveLength(0);
    expect(link.status).toMatchObject({ state: 'refused', reason: 'No API key is set for this project.' });
    link.stop();
  });

  it('a device that cannot be described is retried with the backoff and says why', async () => {
    let fail = true;
    const { link, connections } = setup({ describe: async () => { if (fail) throw new Error('no numeric lines'); return description; } });
    link.start();
    await settle();
    expect(link.status).toMatchObject({ state: 'failed', retryInMs: 1000 });
    expect(link.status.reason).toContain('no numeric lines');
    fail = false;
    vi.advanceTimersByTime(1000);
    await settle();
    expect(connections).toHaveLength(1);
    link.stop();
  });

  it('hands sample requests on; replies go out in the session encoding, and nowhere once that connection closed', async () => {
    const { link, c, requests } = await greeted();
    c.say({ sample: { label: 'wave', length: 2000, path: '/api/training/data', hmacKey: 'secret', interval: 10, sensor: 'Microphone', targetSampleCount: 20, collectedSampleCount: 3 } });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.req).toMatchObject({ label: 'wave', lengthMs: 2000, path: '/api/training/data', hmacKey: 'secret', intervalMs: 10, sensor: 'Microphone', targetSampleCount: 20, collectedSampleCount: 3, labelColor: null });
    requests[0]!.reply({ sample: true });
    expect(c.sent.at(-1)).toEqual({ sample: true });
    c.on.close('dropped');
    requests[0]!.reply({ sampleFinished: true });
    expect(c.sent.at(-1)).toEqual({ sample: true });
    link.stop();
  });

  it('answers startSnapshot with snapshotFailed, a malformed request with sample:false, and ignores unknown messages', async () => {
    const { link, c, requests } = await greeted();
    c.say({ startSnapshot: true, resolution: 'low' });
    expect(c.sent.at(-1)).toEqual({ snapshotFailed: true, error: 'Device does not support snapshot streaming' });
    c.say({ sample: { label: 'x' } });
    expect(c.sent.at(-1)).toMatchObject({ sample: false });
    expect(String(c.sent.at(-1)!.error)).toMatch(/could not be read/);
    const before = c.sent.length;
    c.say({ newModelAvailable: true });
    c.on.message(Buffer.from('not json'), false);
    expect(c.sent.length).toBe(before);
    expect(requests).toHaveLength(0);
    expect(link.status.state).toBe('online');
    link.stop();
  });

  it('reads CBOR frames from the server', async () => {
    const { link, connections, requests } = setup();
    link.start();
    await settle();
    connections[0]!.say({ hello: true }, true);
    expect(link.status.state).toBe('online');
    connections[0]!.say({ sample: { label: 'a', length: 1000, path: '/api/testing/data', hmacKey: '0', interval: 1 } }, true);
    expect(requests[0]!.req).toMatchObject({ label: 'a', path: '/api/testing/data', sensor: null });
    link.stop();
  });

  it('stop() closes the socket and nothing reconnects', async () => {
    const { link, connections } = setup();
    link.start();
    await settle();
    connections[0]!.say({ hello: true });
    link.stop();
    expect(connections[0]!.terminated).toBe(true);
    expect(link.status.state).toBe('off');
    vi.advanceTimersByTime(60_000);
    await settle();
    expect(connections).toHaveLength(1);
  });
});

import { Encoder } from 'cbor-x';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import type { IngestionServer } from '../support/ingestion-server/server.js';
import { startRemoteManagement } from '../support/remote-mgmt/server.js';
import type { RemoteMgmtServer } from '../support/remote-mgmt/server.js';

const KEY = 'ei_test_key';
const cbor = new Encoder({ useRecords: false, variableMapSize: true });
type Msg = Record<string, unknown>;
type Encoding = 'json' | 'cbor';

interface Frame { binary: boolean; message: Msg }

/** A device's end of the socket, speaking JSON or CBOR by hand so the server is tested from outside. */
class TestDevice {
  readonly frames: Frame[] = [];
  readonly closed: Promise<number>;
  #waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket, public encoding: Encoding) {
    ws.on('message', (data: RawData, binary: boolean) => {
      const bytes = data as Buffer;
      this.frames.push({ binary, message: (binary ? cbor.decode(bytes) : JSON.parse(bytes.toString('utf8'))) as Msg });
      for (const w of this.#waiters) w();
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  static connect(url: string, encoding: Encoding = 'json'): Promise<TestDevice> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      open.add(ws);
      ws.once('open', () => resolve(new TestDevice(ws, encoding)));
      ws.once('error', reject);
    });
  }

  send(message: Msg): void {
    this.ws.send(this.encoding === 'json' ? JSON.stringify(message) : cbor.encode(message));
  }

  /** The first frame from `from` on that matches. */
  async next(pred: (m: Msg) => boolean = () => true, from = 0, timeoutMs = 2000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames.slice(from).find((f) => pred(f.message));
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(this.frames.map((f) => f.message))}`);
      await new Promise<void>((r) => {
        const w = (): void => { this.#waiters.delete(w); r(); };
        this.#waiters.add(w);
        setTimeout(w, 50);
      });
    }
  }

  async hello(fields: Msg = {}): Promise<Msg> {
    const from = this.frames.length;
    this.send({ hello: helloBody(fields) });
    return (await this.next((m) => 'hello' in m, from)).message;
  }
}

const open = new Set<WebSocket>();

function helloBody(fields: Msg = {}): Msg {
  return {
    version: 4, apiKey: KEY, deviceId: 'dev-1', deviceType: 'TEST_BOARD', connection: 'ip',
    sensors: [{ name: 'Microphone', maxSampleLengthS: 60, frequencies: [16000] }],
    supportsSnapshotStreaming: false, mode: 'ingestion', ...fields,
  };
}

async function device(deviceId: string, encoding: Encoding = 'json', fields: Msg = {}): Promise<TestDevice> {
  const d = await TestDevice.connect(remote.url, encoding);
  expect(await d.hello({ deviceId, ...fields })).toMatchObject({ hello: true });
  return d;
}

async function mgmt(path: string, body?: Msg, method = body ? 'POST' : 'GET'): Promise<{ status: number; body: Msg }> {
  const res = await fetch(`${ingestion.managementUrl}/api${path}`, {
    method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() as Msg };
}

const startSampling = (id: string, body: Msg) => mgmt(`/1/device/${encodeURIComponent(id)}/start-sampling`, body);
const SAMPLING = { label: 'wave', lengthMs: 2000, category: 'training', intervalMs: 0.0625, sensor: 'Microphone' };
const isSampleRequest = (m: Msg): boolean => typeof m['sample'] === 'object';

let ingestion: IngestionServer;
let remote: RemoteMgmtServer;

beforeAll(async () => {
  ingestion = await startIngestionServer();
  remote = await startRemoteManagement({ ingestion });
});
afterAll(async () => {
  await remote.close();
  await ingestion.close();
});
beforeEach(() => {
  ingestion.reset();
  remote.setFaults({ autoPong: true, refuseHellos: false });
});
afterEach(() => {
  for (const ws of open) ws.terminate();
  open.clear();
});

describe('hello', () => {
  it('accepts a JSON hello and answers in JSON text frames', async () => {
    const before = remote.hellos;
    const d = await TestDevice.connect(remote.url);
    const t0 = Date.now();
    const from = d.frames.length;
    d.send({ hello: helloBody({ deviceId: 'json-1' }) });
    const reply = await d.next(() => true, from);
    expect(reply.binary).toBe(false);
    expect(reply.message).toEqual({ hello: true, serverTimestamp: expect.any(Number) });
    expect(reply.message['serverTimestamp']).toBeGreaterThanOrEqual(t0);
    expect(remote.hellos).toBe(before + 1);
    expect(remote.connected().find((c) => c.deviceId === 'json-1')).toMatchObject({
      deviceType: 'TEST_BOARD', encoding: 'json', version: 4, connection: 'ip',
      sensors: [{ name: 'Microphone', maxSampleLengthS: 60, frequencies: [16000] }],
      hello: { mode: 'ingestion', supportsSnapshotStreaming: false },
    });
    expect(remote.known().get('json-1')).toEqual({ deviceId: 'json-1', name: null, deviceType: 'TEST_BOARD' });
  });

  it('accepts a CBOR hello (version 3, no mode) and answers in CBOR binary frames, sample requests included', async () => {
    const d = await TestDevice.connect(remote.url, 'cbor');
    const { mode: _mode, ...v3 } = helloBody({ deviceId: 'cbor-1', version: 3, deviceType: 'DATA_FORWARDER' });
    d.send({ hello: v3 });
    const reply = await d.next();
    expect(reply.binary).toBe(true);
    expect(reply.message).toMatchObject({ hello: true });
    expect(remote.connected().find((c) => c.deviceId === 'cbor-1')?.encoding).toBe('cbor');

    ingestion.setFaults({ hmacKey: 'secret' });
    const answered = remote.requestSample('cbor-1', { label: 'idle', lengthMs: 1000, category: 'post-processing', intervalMs: 10, labelColor: '#f00', targetSampleCount: 5 });
    const req = await d.next(isSampleRequest);
    expect(req.binary).toBe(true);
    // toStrictEqual: an absent field must be absent, not an explicit CBOR undefined.
    expect(req.message).toStrictEqual({
      sample: { label: 'idle', length: 1000, path: '/api/post-processing/data', hmacKey: 'secret', interval: 10, labelColor: '#f00', targetSampleCount: 5 },
    });
    d.send({ sample: true });
    await expect(answered).resolves.toEqual({ ok: true });
  });

  it('refuses a wrong key with "Invalid API key" and closes; reads the ingestion keys live', async () => {
    const d = await TestDevice.connect(remote.url);
    expect(await d.hello({ deviceId: 'bad-key', apiKey: 'nope' })).toEqual({ hello: false, err: 'Invalid API key' });
    await d.closed;
    expect(remote.isConnected('bad-key')).toBe(false);
    expect(remote.known().has('bad-key')).toBe(false);

    ingestion.setFaults({ apiKeys: ['other_key'] });
    const d2 = await TestDevice.connect(remote.url);
    expect(await d2.hello({ deviceId: 'new-key', apiKey: 'other_key' })).toMatchObject({ hello: true });
  });

  it('refuses every hello while refuseHellos is set', async () => {
    remote.setFaults({ refuseHellos: true });
    const d = await TestDevice.connect(remote.url);
    expect(await d.hello({ deviceId: 'refused' })).toEqual({ hello: false, err: 'Invalid API key' });
    await d.closed;
  });

  it.each([
    [{ deviceId: '' }, /deviceId/],
    [{ deviceType: 7 }, /deviceType/],
    [{ sensors: 'mic' }, /sensors/],
    [{ sensors: [{ name: 'Microphone', maxSampleLengthS: 60, frequencies: ['16000'] }] }, /sensors\[0\]\.frequencies/],
    [{ version: 5 }, /version/],
  ])('refuses a malformed hello %j naming the field, then closes', async (fields, field) => {
    const d = await TestDevice.connect(remote.url);
    const reply = await d.hello(fields);
    expect(reply['hello']).toBe(false);
    expect(reply['err']).toMatch(field);
    await d.closed;
  });

  it('answers a frame that does not parse with err, keeps the socket, then takes a hello', async () => {
    const d = await TestDevice.connect(remote.url);
    d.ws.send('{not json');
    expect((await d.next()).message['err']).toMatch(/^Failed to parse message: /);
    d.ws.send(Buffer.from([0xff]));
    const bad = await d.next(() => true, 1);
    expect(bad.binary).toBe(true);
    expect(bad.message['err']).toMatch(/^Failed to parse message: /);
    expect(await d.hello({ deviceId: 'after-garbage' })).toMatchObject({ hello: true });
  });

  it('refuses a connection whose first message is not a hello', async () => {
    const d = await TestDevice.connect(remote.url);
    d.send({ sampleFinished: true });
    expect((await d.next()).message).toEqual({ hello: false, err: expect.stringMatching(/hello/) });
    await d.closed;
  });

  it('a second connection with the same id replaces the first', async () => {
    const first = await device('twin');
    const t = remote.connected().find((c) => c.deviceId === 'twin')?.connectedAt ?? 0;
    const second = await device('twin', 'cbor');
    await first.closed;
    const now = remote.connected().filter((c) => c.deviceId === 'twin');
    expect(now).toHaveLength(1);
    expect(now[0]?.encoding).toBe('cbor');
    expect(now[0]?.connectedAt).toBeGreaterThan(t);
    expect(remote.disconnects.filter((x) => x.deviceId === 'twin').map((x) => x.reason)).toEqual(['replaced']);
    expect(second.ws.readyState).toBe(WebSocket.OPEN);
  });
});

describe('start-sampling', () => {
  it('sends the request and answers success with an id when the device accepts', async () => {
    const d = await device('sampler');
    const pending = startSampling('sampler', SAMPLING);
    const req = await d.next(isSampleRequest);
    expect(req.message).toStrictEqual({
      sample: { label: 'wave', length: 2000, path: '/api/training/data', hmacKey: '0', interval: 0.0625, sensor: 'Microphone' },
    });
    d.send({ sample: true });
    expect(await pending).toEqual({ status: 200, body: { success: true, id: 1 } });

    const again = startSampling('sampler', { ...SAMPLING, category: 'testing' });
    expect((await d.next(isSampleRequest, d.frames.indexOf(req) + 1)).message).toMatchObject({ sample: { path: '/api/testing/data' } });
    d.send({ sample: true });
    expect((await again).body).toEqual({ success: true, id: 2 });
    expect(ingestion.requests.filter((r) => r.path.endsWith('/start-sampling')).map((r) => r.status)).toEqual([200, 200]);
  });

  it("passes on the device's refusal", async () => {
    const d = await device('busy');
    const pending = startSampling('busy', SAMPLING);
    await d.next(isSampleRequest);
    d.send({ sample: false, error: 'Already sampling' });
    expect((await pending).body).toEqual({ success: false, error: 'Already sampling' });
  });

  it('says not connected for an unknown or dropped device, and "did not respond" after the timeout', async () => {
    expect((await startSampling('ghost', SAMPLING)).body).toEqual({ success: false, error: 'Device ghost is not connected' });
    await device('silent');
    ingestion.setFaults({ deviceReplyTimeoutMs: 100 });
    expect((await startSampling('silent', SAMPLING)).body).toEqual({ success: false, error: 'Device did not respond' });
    remote.drop('silent');
    expect((await startSampling('silent', SAMPLING)).body).toEqual({ success: false, error: 'Device silent is not connected' });
  });

  it.each([
    [{ label: undefined }, /label/],
    [{ lengthMs: 1.5 }, /lengthMs/],
    // validation is declared by the platform's published API client (edge-impulse-api); anomaly is not a set.
    [{ category: 'anomaly' }, /category/],
    [{ intervalMs: '1' }, /intervalMs/],
    [{ sensor: 3 }, /sensor/],
    [{ targetSampleCount: 'x' }, /targetSampleCount/],
  ])('rejects %j naming the field', async (patch, field) => {
    const res = await startSampling('any', { ...SAMPLING, ...patch });
    expect(res.status).toBe(200);
    expect(res.body['success']).toBe(false);
    expect(res.body['error']).toMatch(field);
  });

  it('checks method, key and project like the other management endpoints', async () => {
    expect((await mgmt('/1/device/x/start-sampling', undefined, 'GET')).status).toBe(405);
    expect((await mgmt('/2/device/x/start-sampling', SAMPLING)).body).toEqual({ success: false, error: 'Project not found' });
    const res = await fetch(`${ingestion.managementUrl}/api/1/devices`);
    expect(res.status).toBe(401);
  });
});

describe('devices', () => {
  it('renames a known device, refuses an unknown one, and lists devices', async () => {
    await device('namer', 'json', { deviceType: 'EDGE_LINUX' });
    expect((await mgmt('/1/devices/namer/rename', { name: 'Kitchen' })).body).toEqual({ success: true });
    expect((await mgmt('/1/devices/nobody/rename', { name: 'X' })).body).toEqual({ success: false, error: 'Device not found' });
    expect((await mgmt('/1/devices/namer/rename', { name: '' })).body).toEqual({ success: false, error: expect.stringMatching(/name/) });
    expect(remote.known().get('namer')?.name).toBe('Kitchen');
    await device('plain');
    remote.drop('plain');
    const list = (await mgmt('/1/devices')).body['devices'] as Msg[];
    expect(list.find((d) => d['deviceId'] === 'namer')).toEqual({
      deviceId: 'namer', name: 'Kitchen', deviceType: 'EDGE_LINUX', remote_mgmt_connected: true,
      sensors: [{ name: 'Microphone', maxSampleLengthS: 60, frequencies: [16000] }],
    });
    expect(list.find((d) => d['deviceId'] === 'plain')).toMatchObject({ name: 'plain', remote_mgmt_connected: false });
  });
});

describe('connections', () => {
  it('drop() terminates the socket and requestSample then rejects', async () => {
    const d = await device('dropme');
    remote.drop('dropme');
    expect(remote.isConnected('dropme')).toBe(false);
    expect(await d.closed).toBe(1006);
    await expect(remote.requestSample('dropme', { label: 'x', lengthMs: 1, category: 'training', intervalMs: 1 })).rejects.toThrow(/not connected/);
    expect(remote.disconnects.at(-1)).toMatchObject({ deviceId: 'dropme', reason: 'dropped' });
  });

  it('a pending request rejects when the device goes away, and after its timeout', async () => {
    const d = await device('leaver');
    const gone = remote.requestSample('leaver', { label: 'x', lengthMs: 1, category: 'training', intervalMs: 1 });
    await d.next(isSampleRequest);
    d.ws.close();
    await expect(gone).rejects.toThrow(/disconnected/);
    await device('mute');
    await expect(remote.requestSample('mute', { label: 'x', lengthMs: 1, category: 'training', intervalMs: 1 }, 50)).rejects.toThrow(/did not answer/);
  });

  it('answers pings, and not while autoPong is off', async () => {
    const d = await device('pinger');
    const pong = (ms: number) => new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      d.ws.once('pong', () => { clearTimeout(timer); resolve(true); });
      d.ws.ping();
    });
    expect(await pong(1000)).toBe(true);
    remote.setFaults({ autoPong: false });
    expect(await pong(1000)).toBe(false);
  });

  it('can be closed and started again on the same port; closed means not connected', async () => {
    const own = await startIngestionServer();
    const first = await startRemoteManagement({ ingestion: own });
    const d = await TestDevice.connect(first.url);
    expect(await d.hello({ deviceId: 'restart' })).toMatchObject({ hello: true });
    await first.close();
    await d.closed;
    expect(own.attachedDevices).toBeNull();
    const res = await fetch(`${own.managementUrl}/api/1/device/restart/start-sampling`, {
      method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify(SAMPLING),
    });
    expect(await res.json()).toEqual({ success: false, error: 'Device restart is not connected' });

    const second = await startRemoteManagement({ ingestion: own, port: first.port });
    try {
      expect(second.url).toBe(first.url);
      const again = await TestDevice.connect(second.url);
      expect(await again.hello({ deviceId: 'restart' })).toMatchObject({ hello: true });
      expect(second.isConnected('restart')).toBe(true);
      // The platform remembers the device across a restart of its WebSocket service.
      expect(second.known().has('restart')).toBe(true);
    } finally {
      await second.close();
      await own.close();
    }
  });
});

describe('message log', () => {
  it('records every message both ways in order, unknown ones included', async () => {
    const d = await device('logger');
    const sampled = remote.requestSample('logger', { label: 'up', lengthMs: 500, category: 'training', intervalMs: 5 });
    await d.next(isSampleRequest);
    d.send({ sample: true });
    d.send({ sampleStarted: true });
    d.send({ sampleReading: true, progressPercentage: 50 });
    d.send({ whatIsThis: 1 });
    d.send({ sampleFinished: true });
    await sampled;
    remote.send('logger', { startSnapshot: true, resolution: 'low' });
    await d.next((m) => 'startSnapshot' in m);
    d.send({ snapshotFailed: true, error: 'Device does not support snapshot streaming' });
    await remote.waitFor((m) => m.deviceId === 'logger' && 'snapshotFailed' in m.message);

    const mine = remote.messages.filter((m) => m.deviceId === 'logger');
    expect(mine.map((m) => `${m.dir} ${Object.keys(m.message)[0]}`)).toEqual([
      'in hello', 'out hello', 'out sample', 'in sample', 'in sampleStarted', 'in sampleReading', 'in whatIsThis',
      'in sampleFinished', 'out startSnapshot', 'in snapshotFailed',
    ]);
    expect(mine.every((m) => m.encoding === 'json')).toBe(true);
    const times = mine.map((m) => m.at);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(remote.isConnected('logger')).toBe(true);
  });

  it('waitFor resolves with a future message and rejects after its timeout', async () => {
    const waited = remote.waitFor((m) => m.deviceId === 'later' && m.dir === 'in');
    await device('later');
    expect((await waited).message).toHaveProperty('hello');
    await expect(remote.waitFor(() => false, 30)).rejects.toThrow(/No matching/);
  });
});

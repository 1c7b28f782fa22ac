import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { RawData } from 'ws';
import { decodeFrame } from './codec.js';
import { checkHello } from './hello.js';
import { MessageLog } from './message-log.js';
import { sampleAnswerOf, sampleMessage } from './sample-request.js';
import { Session } from './session.js';
import { DEFAULT_REMOTE_FAULTS } from './types.js';
import type {
  ConnectedDevice, Disconnect, DisconnectReason, Encoding, KnownDevice, RemoteFaults, RemoteMgmtOptions, RemoteMgmtServer,
} from './types.js';

export type * from './types.js';
export { DEFAULT_REMOTE_FAULTS } from './types.js';

const SAMPLE_TIMEOUT_MS = 10_000;
// Policy violation: the hello was refused, which the device should not simply retry.
const REFUSED = 1008;

function defined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The id a hello claims, so its record (and a refusal) can be told apart before it is accepted. */
function claimedId(hello: unknown): string | null {
  if (typeof hello !== 'object' || hello === null) return null;
  const id = (hello as Record<string, unknown>)['deviceId'];
  return typeof id === 'string' && id !== '' ? id : null;
}

export async function startRemoteManagement(opts: RemoteMgmtOptions): Promise<RemoteMgmtServer> {
  const { ingestion, host = '127.0.0.1', port = 0 } = opts;
  const faults: RemoteFaults = { ...DEFAULT_REMOTE_FAULTS, ...defined(opts.faults ?? {}) };
  const log = new MessageLog();
  const disconnects: Disconnect[] = [];
  const sessions = new Set<Session>();
  const byDevice = new Map<string, Session>();
  let hellos = 0;
  let closing: Promise<void> | null = null;

  /** Idempotent: the socket's own close event arrives later and must not record the end twice. */
  function endDevice(session: Session, reason: DisconnectReason): void {
    const id = session.device?.deviceId;
    if (id === undefined || byDevice.get(id) !== session) return;
    byDevice.delete(id);
    disconnects.push({ deviceId: id, reason, at: performance.now() });
    session.failPending(`Device ${id} disconnected before answering`);
  }

  function refuse(session: Session, err: string, encoding: Encoding): void {
    session.send({ hello: false, err }, encoding);
    session.ws.close(REFUSED);
  }

  function onHello(session: Session, inner: unknown, encoding: Encoding): void {
    // Read live so setFaults on the ingestion server applies to the next hello.
    const check = checkHello(inner, ingestion.faults.apiKeys, faults.refuseHellos);
    if (!check.ok) {
      refuse(session, check.err, encoding);
      return;
    }
    const { hello } = check;
    session.encoding ??= encoding;
    const previous = byDevice.get(hello.deviceId);
    if (previous && previous !== session) {
      endDevice(previous, 'replaced');
      previous.ws.terminate();
    }
    // A second hello on the same socket under another id leaves the old id behind.
    if (session.device && session.device.deviceId !== hello.deviceId) byDevice.delete(session.device.deviceId);
    const device: ConnectedDevice = {
      deviceId: hello.deviceId, deviceType: hello.deviceType, sensors: hello.sensors, encoding: session.encoding,
      version: hello.version, connection: hello.connection, hello: hello.raw, connectedAt: performance.now(),
    };
    session.device = device;
    byDevice.set(device.deviceId, session);
    const before = ingestion.devices.get(device.deviceId);
    ingestion.devices.set(device.deviceId, {
      deviceId: device.deviceId, name: before?.name ?? null, deviceType: device.deviceType, sensors: device.sensors,
    });
    session.send({ hello: true, serverTimestamp: Date.now() });
  }

  function onMessage(session: Session, data: RawData, isBinary: boolean): void {
    const frame = decodeFrame(data, isBinary);
    if (!frame.ok) {
      session.send({ err: `Failed to parse message: ${frame.error}` }, frame.encoding);
      return;
    }
    const { message, encoding } = frame;
    const isHello = 'hello' in message;
    if (isHello) {
      hellos++;
      session.claimedId = claimedId(message['hello']);
    }
    log.push({ deviceId: session.logId, dir: 'in', encoding, message, at: performance.now() });
    if (isHello) {
      onHello(session, message['hello'], encoding);
      return;
    }
    if (!session.device) {
      refuse(session, 'Expected a hello message first', encoding);
      return;
    }
    const answer = sampleAnswerOf(message);
    if (answer) session.answer(answer);
    // Progress, snapshotFailed and unknown messages are only recorded, as the spec says to ignore unknown ones.
  }

  const httpServer = http.createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('This is the remote-management WebSocket service; connect with a WebSocket on /');
  });
  // Pongs are sent by hand below so the autoPong fault can change on live sockets.
  const wss = new WebSocketServer({ server: httpServer, path: '/', autoPong: false });
  wss.on('connection', (ws) => {
    const session = new Session(ws, log);
    sessions.add(session);
    ws.on('message', (data, isBinary) => onMessage(session, data, isBinary));
    ws.on('ping', (data) => {
      if (faults.autoPong && session.open) ws.pong(data);
    });
    // A socket error is followed by close; what tests watch is the device's reconnect.
    ws.on('error', () => undefined);
    ws.on('close', () => {
      sessions.delete(session);
      endDevice(session, 'device');
    });
  });
  wss.on('error', () => undefined);

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const actualPort = (httpServer.address() as AddressInfo).port;

  function sessionOf(deviceId: string): Session {
    const s = byDevice.get(deviceId);
    if (!s) throw new Error(`Device ${deviceId} is not connected`);
    return s;
  }

  const server: RemoteMgmtServer = {
    url: `ws://${host}:${actualPort}`,
    port: actualPort,
    messages: log.entries,
    disconnects,
    get hellos() {
      return hellos;
    },
    get faults() {
      return faults;
    },
    connected() {
      return [...byDevice.values()].flatMap((s) => (s.device ? [s.device] : []));
    },
    isConnected(deviceId) {
      return byDevice.has(deviceId);
    },
    known() {
      const out = new Map<string, KnownDevice>();
      for (const d of ingestion.devices.values()) out.set(d.deviceId, { deviceId: d.deviceId, name: d.name, deviceType: d.deviceType });
      return out;
    },
    async requestSample(deviceId, req, timeoutMs = SAMPLE_TIMEOUT_MS) {
      const session = sessionOf(deviceId);
      const answer = session.expectAnswer(timeoutMs);
      session.send(sampleMessage(req, ingestion.faults.hmacKey));
      return answer;
    },
    send(deviceId, message) {
      sessionOf(deviceId).send(message);
    },
    drop(deviceId) {
      const targets = deviceId === undefined ? [...sessions] : [sessionOf(deviceId)];
      for (const s of targets) {
        endDevice(s, 'dropped');
        s.ws.terminate();
      }
    },
    setFaults(p) {
      Object.assign(faults, defined(p));
    },
    waitFor(pred, timeoutMs) {
      return log.waitFor(pred, timeoutMs);
    },
    close() {
      closing ??= (async () => {
        if (ingestion.attachedDevices === server) ingestion.attachDevices(null);
        for (const s of sessions) {
          endDevice(s, 'server-closed');
          s.ws.terminate();
        }
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        await new Promise<void>((resolve, reject) => {
          httpServer.close((err) => (err ? reject(err) : resolve()));
          httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
  ingestion.attachDevices(server);
  return server;
}

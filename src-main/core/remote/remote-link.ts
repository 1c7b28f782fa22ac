import type { Logger } from '../log.js';
import { decodeFrame, describeRequest, encodeMessage, readServerMessage, type DeviceMessage, type Encoding, type ProgressMessage, type SampleRequest } from './protocol.js';
import type { RemoteLinkState, RemoteSensor } from '../contract/remote-schema.js';
import type { RemoteConnector, RemoteSocket } from './socket.js';

/** What the hello says about the device; read again before every connection (a board may have changed). */
export interface DeviceDescription {
  deviceId: string;
  deviceType: string;
  sensors: RemoteSensor[];
  /** A serial board's baud rate, and whether it was found (Auto); not part of the hello. */
  baud?: { rate: number; detected: boolean };
}

export interface LinkStatus {
  state: Exclude<RemoteLinkState, 'recording'>;
  retryInMs: number | null;
  reason: string | null;
  description: DeviceDescription | null;
}

/** Replies to one request; after its connection closed they go nowhere (the take itself carries on). */
export type Reply = (m: ProgressMessage) => void;

export interface RemoteLinkDeps {
  connector: RemoteConnector;
  url: () => string;
  /** The project's API key for the hello; throws (with a sentence for the UI) when there is none. */
  apiKey: () => Promise<string>;
  describe: () => Promise<DeviceDescription>;
  onRequest: (req: SampleRequest, reply: Reply) => void;
  onStatus: (s: LinkStatus) => void;
  log: Logger;
  encoding?: Encoding;
  pingMs?: number;
  pongTimeoutMs?: number;
  backoff?: { baseMs: number; maxMs: number };
}

export const PING_MS = 30_000;
export const PONG_TIMEOUT_MS = 6_000;
export const BACKOFF = { baseMs: 1_000, maxMs: 30_000 };

/**
 * One source's connection to the remote-management service, as the platform's daemon keeps it:
 * hello first, ping every 30 s, a missed pong or any close → reconnect after a backoff that starts
 * at about 1 s and doubles to 30 s, with a new hello. A refused hello means a wrong API key: the
 * link stops and says so until {@link retryNow} (the key or URL changed). Sample requests are
 * handed to `onRequest`; the link only carries messages.
 */
export class RemoteLink {
  readonly #d: RemoteLinkDeps;
  #socket: RemoteSocket | null = null;
  /** Bumped per connection attempt: events of an older socket are ignored. */
  #generation = 0;
  #attempt = 0;
  #retryTimer: NodeJS.Timeout | null = null;
  #pingTimer: NodeJS.Timeout | null = null;
  #pongTimer: NodeJS.Timeout | null = null;
  #stopped = true;
  #status: LinkStatus = { state: 'off', retryInMs: null, reason: null, description: null };

  constructor(d: RemoteLinkDeps) {
    this.#d = d;
  }

  get status(): LinkStatus {
    return this.#status;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#attempt = 0;
    void this.#connect();
  }

  /** Closes the connection for good (until start()). */
  stop(): void {
    this.#stopped = true;
    this.#drop();
    this.#clearRetry();
    this.#set({ state: 'off', retryInMs: null, reason: null });
  }

  /** The key or URL changed: a refused or waiting link tries again at once. */
  retryNow(): void {
    if (this.#stopped) return;
    if (this.#status.state === 'online' || this.#status.state === 'connecting' || this.#status.state === 'preparing') {
      // A new URL or key applies to the next hello: reconnect now.
      this.#drop();
    }
    this.#clearRetry();
    this.#attempt = 0;
    void this.#connect();
  }

  /** Drops the socket as if the network failed (tests, and a source that changed under the link). */
  reconnect(): void {
    if (this.#stopped) return;
    this.#socket?.terminate();
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    this.#set({ state: 'preparing', retryInMs: null, reason: null });
    let description: DeviceDescription;
    let apiKey: string;
    try {
      description = await this.#d.describe();
    } catch (err) {
      if (generation !== this.#generation || this.#stopped) return;
      return this.#retryLater(`cannot describe the device to the platform: ${(err as Error).message}`, 'failed');
    }
    try {
      apiKey = await this.#d.apiKey();
    } catch (err) {
      if (generation !== this.#generation || this.#stopped) return;
      return this.#set({ state: 'refused', retryInMs: null, reason: (err as Error).message, description });
    }
    if (generation !== this.#generation || this.#stopped) return;
    this.#set({ state: 'connecting', description });
    const encoding = this.#d.encoding ?? 'json';
    let helloDone = false;
    const url = this.#d.url();
    const socket = this.#d.connector(url, {
      open: () => {
        if (generation !== this.#generation) return;
        this.#send(socket, {
          hello: { version: 4, apiKey, deviceId: description.deviceId, deviceType: description.deviceType, connection: 'daemon', sensors: description.sensors, supportsSnapshotStreaming: false, mode: 'ingestion' },
        }, encoding);
      },
      message: (data, isBinary) => {
        if (generation !== this.#generation) return;
        let value: unknown;
        try {
          value = decodeFrame(data, isBinary);
        } catch (err) {
          this.#d.log.warn('remote management: a message from the platform did not parse; ignored', { deviceId: description.deviceId, error: String(err) });
          return;
        }
        const m = readServerMessage(value);
        if (!helloDone) {
          if (m.type === 'hello-accepted') {
            helloDone = true;
            this.#attempt = 0;
            this.#startPings(socket, generation);
            this.#d.log.info('remote management: connected', { deviceId: description.deviceId, url });
            return this.#set({ state: 'online', retryInMs: null, reason: null });
          }
          if (m.type === 'hello-refused') {
            this.#generation++;
            socket.terminate();
            this.#stopTimers();
            this.#d.log.warn('remote management: the platform refused the hello', { deviceId: description.deviceId, error: m.error });
            return this.#set({ state: 'refused', retryInMs: null, reason: `The platform refused this device (${m.error}). Check the project's API key in Settings; the device connects again when the key changes.` });
          }
        }
        const reply: Reply = (p) => {
          // Progress of a take whose connection has gone: the platform has forgotten the request.
          if (generation === this.#generation && this.#socket === socket) this.#send(socket, p, encoding);
        };
        switch (m.type) {
          case 'sample':
            this.#d.log.info('remote management: sample requested', { deviceId: description.deviceId, ...describeRequest(m.request) });
            return this.#d.onRequest(m.request, reply);
          case 'bad-sample':
            this.#d.log.warn('remote management: unreadable sample request', { deviceId: description.deviceId, error: m.error });
            return reply({ sample: false, error: m.error });
          case 'startSnapshot':
            return this.#send(socket, { snapshotFailed: true, error: 'Device does not support snapshot streaming' }, encoding);
          case 'stopSnapshot':
            return;
          case 'server-error':
            return this.#d.log.warn('remote management: the platform could not read a message', { deviceId: description.deviceId, error: m.error });
          default:
            return this.#d.log.info('remote management: unknown message ignored', { deviceId: description.deviceId, keys: m.type === 'unknown' ? m.keys : [m.type] });
        }
      },
      pong: () => {
        if (generation !== this.#generation) return;
        if (this.#pongTimer) clearTimeout(this.#pongTimer);
        this.#pongTimer = null;
      },
      close: (reason) => {
        if (generation !== this.#generation) return;
        this.#socket = null;
        this.#stopTimers();
        if (this.#stopped) return;
        this.#d.log.warn('remote management: disconnected', { deviceId: description.deviceId, reason });
        this.#retryLater(reason, 'reconnecting');
      },
    });
    this.#socket = socket;
  }

  #startPings(socket: RemoteSocket, generation: number): void {
    this.#stopTimers();
    this.#pingTimer = setInterval(() => {
      if (generation !== this.#generation) return;
      socket.ping();
      this.#pongTimer ??= setTimeout(() => {
        this.#d.log.warn('remote management: no pong within the timeout; reconnecting');
        socket.terminate();
      }, this.#d.pongTimeoutMs ?? PONG_TIMEOUT_MS);
    }, this.#d.pingMs ?? PING_MS);
  }

  #retryLater(reason: string, state: 'reconnecting' | 'failed'): void {
    const b = this.#d.backoff ?? BACKOFF;
    const delay = Math.min(b.maxMs, b.baseMs * 2 ** this.#attempt);
    this.#attempt++;
    this.#clearRetry();
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (!this.#stopped) void this.#connect();
    }, delay);
    this.#set({ state, retryInMs: delay, reason });
  }

  #send(socket: RemoteSocket, m: DeviceMessage, encoding: Encoding): void {
    socket.send(encodeMessage(m, encoding));
  }

  #drop(): void {
    this.#generation++;
    this.#stopTimers();
    this.#socket?.terminate();
    this.#socket = null;
  }

  #stopTimers(): void {
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    if (this.#pongTimer) clearTimeout(this.#pongTimer);
    this.#pingTimer = this.#pongTimer = null;
  }

  #clearRetry(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  #set(patch: Partial<LinkStatus>): void {
    this.#status = { ...this.#status, ...patch };
    this.#d.onStatus(this.#status);
  }
}

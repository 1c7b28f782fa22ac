import type { DeviceHub, DeviceSensor, IngestionServer, SampleAnswer, StartSamplingRequest } from '../ingestion-server/server.js';

export type Encoding = 'json' | 'cbor';

export interface RemoteMessage {
  /** The connection's accepted device, else the id its hello claimed; null when neither. */
  deviceId: string | null;
  dir: 'in' | 'out';
  encoding: Encoding;
  message: Record<string, unknown>;
  /** performance.now() */
  at: number;
}

export interface ConnectedDevice {
  deviceId: string;
  deviceType: string;
  sensors: DeviceSensor[];
  encoding: Encoding;
  version: number;
  connection: string;
  /** The hello's inner object as the device sent it. */
  hello: Record<string, unknown>;
  connectedAt: number;
}

export interface KnownDevice {
  deviceId: string;
  name: string | null;
  deviceType: string;
}

/**
 * Why an accepted device's connection ended: a newer hello with the same id took over, a test
 * called drop(), the device closed it (or its socket failed), or the server was closed.
 */
export type DisconnectReason = 'replaced' | 'dropped' | 'device' | 'server-closed';

export interface Disconnect {
  deviceId: string;
  reason: DisconnectReason;
  at: number;
}

export interface RemoteFaults {
  /** Default true; false = never answer pings, to test the client's missed-pong reconnect. */
  autoPong: boolean;
  /** Default false; true = every hello refused as a wrong key. */
  refuseHellos: boolean;
}

export const DEFAULT_REMOTE_FAULTS: Readonly<RemoteFaults> = { autoPong: true, refuseHellos: false };

export type SampleRequest = StartSamplingRequest;

export interface RemoteMgmtServer extends DeviceHub {
  /** 'ws://127.0.0.1:PORT' */
  url: string;
  port: number;
  /** Every message both ways, in order (hello 'in', replies 'out', sample requests 'out', progress 'in'). */
  messages: RemoteMessage[];
  /** Every end of an accepted device's connection, in order. */
  disconnects: Disconnect[];
  /** Devices with a live, accepted connection now. */
  connected(): ConnectedDevice[];
  isConnected(deviceId: string): boolean;
  /** Every device that ever said a good hello to the platform (+ its name after rename); a snapshot. */
  known(): Map<string, KnownDevice>;
  /** Count of hello frames received (any outcome). */
  readonly hellos: number;
  /**
   * Sends a sample request to a connected device; resolves with the device's first answer
   * ({sample:true} or {sample:false,error}); rejects when the device is not connected, goes away
   * first, or does not answer within timeoutMs (default 10 s).
   */
  requestSample(deviceId: string, req: SampleRequest, timeoutMs?: number): Promise<SampleAnswer>;
  /** A raw message in the session's encoding (e.g. startSnapshot, unknown messages). */
  send(deviceId: string, message: Record<string, unknown>): void;
  /** Terminates the socket(s) abruptly, all when no id is given. */
  drop(deviceId?: string): void;
  setFaults(p: Partial<RemoteFaults>): void;
  readonly faults: RemoteFaults;
  /** Resolves with the first message, already recorded or future, that matches (default 5 s). */
  waitFor(pred: (m: RemoteMessage) => boolean, timeoutMs?: number): Promise<RemoteMessage>;
  /** Stops listening, terminates every connection and detaches from the ingestion server. */
  close(): Promise<void>;
}

export interface RemoteMgmtOptions {
  ingestion: IngestionServer;
  port?: number;
  host?: string;
  faults?: Partial<RemoteFaults>;
}

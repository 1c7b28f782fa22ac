import type { Category, MethodInput, Sample } from '../contract/contract.js';
import type { Handlers } from '../dispatch.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import { readSigningKey } from '../secrets/signing-key.js';
import type { SerialOpener } from '../serial/byte-link.js';
import { fixedBaud, type PortRegistry } from '../serial/port-registry.js';
import { readAtBoard, recordFromAtBoard, type AtRecordingProgress } from '../serial/at/at-recording.js';
import type { AtDeviceConfig } from '../serial/at/at-config.js';
import type { StreamHub } from '../stream/stream-hub.js';

export interface AtHandlerDeps {
  opener: SerialOpener;
  ports: PortRegistry;
  hub: StreamHub;
  store: SampleStore;
  bus: EventBus;
  log: Logger;
  hmacKey: () => Promise<string | undefined>;
  onSaved: (id: string, queued: boolean) => void;
}

/** What the remote-management link asks of a board beyond `at.record`: who asked, and its own fallback key. */
export interface AtTakeExtras {
  /** Used when the project has no HMAC key here (the platform's request carries one). */
  fallbackHmacKey?: string | undefined;
  /** Put first in the sample's note (e.g. "requested by the platform"). */
  note?: string | undefined;
  onProgress?: (p: AtRecordingProgress) => void;
}

export type AtRecordInput = MethodInput<'at.record'> & { category: Category };

export interface AtBoards {
  handlers: Pick<Handlers, 'at.readBoard' | 'at.record'>;
  /** The board's configuration (AT+CONFIG?), claiming the port while it is read. */
  readConfig(path: string): Promise<AtDeviceConfig>;
  record(input: AtRecordInput, extras?: AtTakeExtras): Promise<Sample>;
  /** Sampling or reading its configuration right now (a new conversation would be refused). */
  isBusy(path: string): boolean;
}

/** Boards running the platform's official firmware, driven from the UI (AT commands) and from the platform (remote management). */
export function atBoards(d: AtHandlerDeps): AtBoards {
  // One conversation per port: two commands interleaved on one serial line would corrupt both.
  const busy = new Set<string>();
  const claim = (path: string) => {
    if (d.hub.isStreaming(`serial:${path}`) || d.hub.isStarting(`serial:${path}`)) throw new CoreError('Busy', `${path} is streaming live; stop the stream before talking to the board's firmware.`);
    if (busy.has(path)) throw new CoreError('Busy', `${path} is already busy with the board (sampling or reading its configuration); wait for it to finish.`);
    busy.add(path);
    return () => busy.delete(path);
  };

  const readConfig = async (path: string) => {
    const release = claim(path);
    try {
      return await readAtBoard(d, path, fixedBaud(d.ports.settingsFor(path)));
    } finally {
      release();
    }
  };

  const record = async ({ path, sensor, frequencyHz, lengthMs, label, category, metadata, queue }: AtRecordInput, extras: AtTakeExtras = {}) => {
    const release = claim(path);
    d.bus.emit('at.progress', { path, stage: 'connecting' });
    try {
      // The board signs with the key it is given; without one it records unsigned, which the sample's note says.
      const signing = await readSigningKey(async () => (await d.hmacKey()) ?? extras.fallbackHmacKey, d.log, `a sample recorded on the board at ${path}`);
      const note = [extras.note, signing.unsigned].filter(Boolean).join('; ') || null;
      const sample = await recordFromAtBoard(
        d,
        { path, baudRate: fixedBaud(d.ports.settingsFor(path)), sensor, frequencyHz, lengthMs, label: label ?? null, category, metadata: metadata ?? {}, hmacKey: signing.key, note, queue: queue ?? true },
        (p) => {
          if (p.kind === 'stage') d.bus.emit('at.progress', { path, stage: p.stage });
          else if (p.kind === 'reading') d.bus.emit('at.progress', { path, stage: 'reading', receivedBytes: p.receivedBytes, totalBytes: p.totalBytes });
          extras.onProgress?.(p);
        },
      );
      d.bus.emit('at.progress', { path, stage: 'saved' });
      d.onSaved(sample.id, sample.state === 'queued');
      return sample;
    } catch (err) {
      d.bus.emit('at.progress', { path, stage: 'failed', error: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      release();
    }
  };

  return {
    readConfig,
    record,
    isBusy: (path) => busy.has(path),
    handlers: {
      'at.readBoard': async ({ path }) => {
        const c = await readConfig(path);
        const v = c.atVersion;
        return { deviceId: c.deviceId, deviceType: c.deviceType, atVersion: `${v.major}.${v.minor}.${v.patch}`, transferBaudRate: c.transferBaudRate, sensors: c.sensors };
      },
      'at.record': (input) => record(input),
    },
  };
}

import type { Handlers } from '../dispatch.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import { readSigningKey } from '../secrets/signing-key.js';
import type { SerialOpener } from '../serial/byte-link.js';
import type { PortRegistry } from '../serial/port-registry.js';
import { readAtBoard, recordFromAtBoard } from '../serial/at/at-recording.js';
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

/** Boards running the platform's official firmware, driven from the UI (AT commands). */
export function atHandlers(d: AtHandlerDeps): Pick<Handlers, 'at.readBoard' | 'at.record'> {
  // One conversation per port: two commands interleaved on one serial line would corrupt both.
  const busy = new Set<string>();
  const claim = (path: string) => {
    if (d.hub.isStreaming(`serial:${path}`) || d.hub.isStarting(`serial:${path}`)) throw new CoreError('Busy', `${path} is streaming live; stop the stream before talking to the board's firmware.`);
    if (busy.has(path)) throw new CoreError('Busy', `${path} is already busy with the board (sampling or reading its configuration); wait for it to finish.`);
    busy.add(path);
    return () => busy.delete(path);
  };

  return {
    'at.readBoard': async ({ path }) => {
      const release = claim(path);
      try {
        const c = await readAtBoard(d, path, d.ports.settingsFor(path).baudRate);
        const v = c.atVersion;
        return { deviceId: c.deviceId, deviceType: c.deviceType, atVersion: `${v.major}.${v.minor}.${v.patch}`, transferBaudRate: c.transferBaudRate, sensors: c.sensors };
      } finally {
        release();
      }
    },
    'at.record': async ({ path, sensor, frequencyHz, lengthMs, label, category, metadata, queue }) => {
      const release = claim(path);
      d.bus.emit('at.progress', { path, stage: 'connecting' });
      try {
        // The board signs with the key it is given; without one it records unsigned, which the sample's note says.
        const signing = await readSigningKey(() => d.hmacKey(), d.log, `a sample recorded on the board at ${path}`);
        const sample = await recordFromAtBoard(
          d,
          { path, baudRate: d.ports.settingsFor(path).baudRate, sensor, frequencyHz, lengthMs, label, category, metadata: metadata ?? {}, hmacKey: signing.key, note: signing.unsigned, queue: queue ?? true },
          (p) => {
            if (p.kind === 'stage') d.bus.emit('at.progress', { path, stage: p.stage });
            else if (p.kind === 'reading') d.bus.emit('at.progress', { path, stage: 'reading', receivedBytes: p.receivedBytes, totalBytes: p.totalBytes });
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
    },
  };
}

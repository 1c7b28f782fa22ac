import type { Category, Sample } from '../../contract.js';
import { CoreError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { decodeAcquisition, detectAcquisitionFormat } from '../../samples/formats/acquisition.js';
import type { SampleStore } from '../../samples/sample-store.js';
import type { SerialOpener } from '../byte-link.js';
import { AtClient } from './at-client.js';
import type { AtDeviceConfig } from './at-config.js';
import type { AtSampleStage } from './at-sampling.js';

export interface AtRecordingRequest {
  path: string;
  baudRate: number;
  /** Default: the board's first sensor. */
  sensor?: string | undefined;
  /** Default: the sensor's first listed frequency. */
  frequencyHz?: number | null | undefined;
  lengthMs: number;
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  hmacKey?: string | undefined;
  queue?: boolean | undefined;
}

/** What happens, in order, so a CLI can print it and a UI can show it. */
export type AtRecordingProgress =
  | { kind: 'board'; config: AtDeviceConfig }
  | { kind: 'sensor'; sensor: string; frequencyHz: number; lengthMs: number }
  | { kind: 'stage'; stage: AtSampleStage }
  | { kind: 'reading'; receivedBytes: number; totalBytes: number | null };

export interface AtRecordingDeps {
  opener: SerialOpener;
  store: SampleStore;
  log: Logger;
}

/** Reads a board's configuration (device, sensors and their frequencies) without sampling. */
export async function readAtBoard(d: Pick<AtRecordingDeps, 'opener'>, path: string, baudRate: number): Promise<AtDeviceConfig> {
  const link = await d.opener.open(path, baudRate);
  const client = new AtClient(link);
  try {
    return await client.connect();
  } finally {
    client.close();
    await link.close();
  }
}

/**
 * A board running the platform's official firmware samples on its own; we set it up, start it,
 * read the sample back and keep it byte for byte (the board signed it).
 */
export async function recordFromAtBoard(d: AtRecordingDeps, o: AtRecordingRequest, onProgress: (p: AtRecordingProgress) => void = () => {}): Promise<Sample> {
  const link = await d.opener.open(o.path, o.baudRate);
  const client = new AtClient(link);
  try {
    const config = await client.connect();
    onProgress({ kind: 'board', config });
    const sensor = config.sensors.find((s) => s.name === o.sensor) ?? (o.sensor ? undefined : config.sensors[0]);
    if (!sensor) {
      throw new CoreError('InvalidArguments', o.sensor ? `The board has no sensor "${o.sensor}"; it has: ${config.sensors.map((s) => s.name).join(', ')}.` : 'The board lists no sensors.');
    }
    const hz = o.frequencyHz ?? sensor.frequencies[0];
    if (!hz) throw new CoreError('InvalidArguments', `Give a frequency: the board lists none for "${sensor.name}".`);
    if (sensor.maxSampleLengthS !== null && o.lengthMs > sensor.maxSampleLengthS * 1000) {
      throw new CoreError('InvalidArguments', `"${sensor.name}" records at most ${sensor.maxSampleLengthS} s per sample; ask for ${sensor.maxSampleLengthS * 1000} ms or less.`);
    }
    onProgress({ kind: 'sensor', sensor: sensor.name, frequencyHz: hz, lengthMs: o.lengthMs });
    await client.setSampleSettings({ label: o.label ?? 'unlabeled', intervalMs: 1000 / hz, lengthMs: o.lengthMs, hmacKey: o.hmacKey ?? null });
    const result = await client.sample(sensor.name, { onProgress: (stage) => onProgress({ kind: 'stage', stage }) });
    if (result.uploadedByDevice) {
      throw new CoreError('InvalidArguments', 'The board uploaded the sample itself (it has WiFi and upload settings), so there is nothing to read back. Clear its upload settings to record through Capture Desk.');
    }
    const bytes = await client.readBack(result, { onProgress: (receivedBytes, totalBytes) => onProgress({ kind: 'reading', receivedBytes, totalBytes }) });
    await client.unlink(result.fileName).catch((err: unknown) => d.log.warn('could not delete the sample on the board', { error: String(err) }));
    const format = detectAcquisitionFormat(bytes);
    const msg = decodeAcquisition(bytes, format);
    const rows = msg.payload.values.length;
    // Kept exactly as read: the board's signature covers these bytes.
    return await d.store.addBytes(
      {
        name: `${o.label ?? 'unlabeled'}.${Date.now().toString(36)}.${format}`,
        kind: 'sensor', label: o.label, category: o.category, metadata: o.metadata,
        lengthMs: rows * msg.payload.interval_ms,
        queue: o.queue ?? false,
        extra: { rows, interval_ms: msg.payload.interval_ms, rejected_lines: 0, sensor: sensor.name, device: config.deviceId || null, signed_by_device: msg.protected.alg !== 'none', port: o.path },
      },
      bytes,
    );
  } finally {
    client.close();
    await link.close();
  }
}

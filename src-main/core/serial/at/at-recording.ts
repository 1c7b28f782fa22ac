import { join } from 'node:path';
import type { Category, Sample } from '../../contract/contract.js';
import { storageError } from '../../fs/storage-error.js';
import { CoreError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { decodeAcquisition, detectAcquisitionFormat } from '../../samples/formats/acquisition.js';
import { SAMPLES_DIR } from '../../samples/sample-files.js';
import type { SampleStore } from '../../samples/sample-store.js';
import type { SerialOpener } from '../byte-link.js';
import { AtClient } from './at-client.js';
import type { AtDeviceConfig } from './at-config.js';
import type { AtSampleStage } from './at-sampling.js';
import { takeName } from '../../samples/take-name.js';

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
  /** Said on the saved sample (e.g. why it is unsigned: the project's key could not be read). */
  note?: string | null | undefined;
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
    const base = { label: o.label, category: o.category, metadata: o.metadata };
    const facts = { rejected_lines: 0, sensor: sensor.name, device: config.deviceId || null, port: o.path, board_file: result.fileName };
    let sample: Sample;
    let decoded: { format: ReturnType<typeof detectAcquisitionFormat>; msg: ReturnType<typeof decodeAcquisition> } | null = null;
    let readError: unknown = null;
    try {
      const format = detectAcquisitionFormat(bytes);
      decoded = { format, msg: decodeAcquisition(bytes, format) };
    } catch (err) {
      readError = err;
    }
    try {
      if (!decoded) {
        // What the board sent is kept as it came, so nothing is lost; it is not queued.
        sample = await d.store.addBytes(
          { ...base, name: takeName(o.label, `${Date.now().toString(36)}.bin`), kind: 'other', incomplete: true, queue: false,
            note: [`incomplete: the board's sample could not be read (${(readError as Error).message}); its ${bytes.length} bytes are kept as they arrived. Check the firmware version and the transfer baud rate, then record again.`, o.note].filter(Boolean).join('; '),
            extra: { ...facts, bytes_read: bytes.length } },
          bytes,
        );
      } else {
        const rows = decoded.msg.payload.values.length;
        // Kept exactly as read: the board's signature covers these bytes.
        sample = await d.store.addBytes(
          {
            ...base,
            name: takeName(o.label, `${Date.now().toString(36)}.${decoded.format}`),
            kind: 'sensor',
            lengthMs: rows * decoded.msg.payload.interval_ms,
            queue: o.queue ?? false,
            note: o.note ?? null,
            extra: { rows, interval_ms: decoded.msg.payload.interval_ms, ...facts, signed_by_device: decoded.msg.protected.alg !== 'none' },
          },
          bytes,
        );
      }
    } catch (err) {
      // Not stored here (disk full, folder not writable): the board still holds its copy, so it is not deleted there.
      const cause = storageError(err, join(d.store.dataDir, SAMPLES_DIR));
      throw new CoreError(cause instanceof CoreError ? cause.code : 'Unavailable',
        `The sample was read from the board but could not be saved: ${cause.message.replace(/\.$/, '')}. ` +
          `The board still holds it as "${result.fileName}" (it was not deleted there); fix this, then record again.`,
        { boardFile: result.fileName });
    }
    // Only now that our copy is on disk may the board's go.
    await client.unlink(result.fileName).catch((err: unknown) => d.log.warn('could not delete the sample on the board', { error: String(err) }));
    return sample;
  } finally {
    client.close();
    await link.close();
  }
}

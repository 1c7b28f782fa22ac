import type { Category, Sample } from '../core/contract.js';
import { CoreError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { decodeAcquisition, detectAcquisitionFormat } from '../core/samples/formats/acquisition.js';
import type { SampleStore } from '../core/samples/sample-store.js';
import { AtClient } from '../core/serial/at/at-client.js';
import { serialportOpener } from '../core/serial/serialport-opener.js';

export interface RecordAtOptions {
  store: SampleStore;
  log: Logger;
  path: string;
  baudRate: number;
  sensor?: string | undefined;
  frequencyHz: number | null;
  lengthMs: number;
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  hmacKey?: string | undefined;
}

/**
 * A board running the platform's official firmware samples on its own; we set it up, start it,
 * read the sample back and keep it byte for byte (the board signed it).
 */
export async function recordAt(o: RecordAtOptions): Promise<{ sample: Sample }> {
  const link = await serialportOpener.open(o.path, o.baudRate);
  const client = new AtClient(link);
  try {
    const config = await client.connect();
    process.stderr.write(`Board: ${config.deviceType ?? 'unknown'} ${config.deviceId ?? ''} (AT ${config.atVersion ? `${config.atVersion.major}.${config.atVersion.minor}.${config.atVersion.patch}` : '?'})\n`);
    const sensor = config.sensors.find((s) => s.name === o.sensor) ?? (o.sensor ? undefined : config.sensors[0]);
    if (!sensor) {
      throw new CoreError('InvalidArguments', o.sensor ? `The board has no sensor "${o.sensor}"; it has: ${config.sensors.map((s) => s.name).join(', ')}.` : 'The board lists no sensors.');
    }
    const hz = o.frequencyHz ?? sensor.frequencies[0];
    if (!hz) throw new CoreError('InvalidArguments', `Give --frequency: the board lists no frequencies for "${sensor.name}".`);
    process.stderr.write(`Sensor "${sensor.name}" at ${hz} Hz for ${o.lengthMs} ms\n`);
    await client.setSampleSettings({ label: o.label ?? 'unlabeled', intervalMs: 1000 / hz, lengthMs: o.lengthMs, hmacKey: o.hmacKey ?? null });
    const result = await client.sample(sensor.name, { onProgress: (stage) => process.stderr.write(`${stage}\n`) });
    if (result.uploadedByDevice) {
      throw new CoreError('InvalidArguments', 'The board uploaded the sample itself (it has WiFi and upload settings), so there is nothing to read back. Clear its upload settings to record through Capture Desk.');
    }
    const bytes = await client.readBack(result);
    await client.unlink(result.fileName).catch((err: unknown) => o.log.warn('could not delete the sample on the board', { error: String(err) }));
    const format = detectAcquisitionFormat(bytes);
    const msg = decodeAcquisition(bytes, format);
    const rows = msg.payload.values.length;
    // Kept exactly as read: the board's signature covers these bytes.
    const sample = await o.store.addBytes(
      {
        name: `${o.label ?? 'unlabeled'}.${Date.now().toString(36)}.${format}`,
        kind: 'sensor', label: o.label, category: o.category, metadata: o.metadata,
        lengthMs: rows * msg.payload.interval_ms,
        extra: { rows, interval_ms: msg.payload.interval_ms, rejected_lines: 0, sensor: sensor.name, device: config.deviceId ?? null, signed_by_device: msg.protected.alg !== 'none', port: o.path },
      },
      bytes,
    );
    return { sample };
  } finally {
    client.close();
    await link.close();
  }
}

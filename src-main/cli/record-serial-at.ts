import type { Category, Sample } from '../core/contract/contract.js';
import type { Logger } from '../core/log.js';
import type { SampleStore } from '../core/samples/sample-store.js';
import { recordFromAtBoard, type AtRecordingProgress } from '../core/serial/at/at-recording.js';
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

/** `record serial --mode at`: the core's AT recording, with what happens printed on stderr. */
export async function recordAt(o: RecordAtOptions): Promise<{ sample: Sample }> {
  const { store, log, ...request } = o;
  const sample = await recordFromAtBoard({ opener: serialportOpener, store, log }, request, printProgress);
  return { sample };
}

function printProgress(p: AtRecordingProgress): void {
  if (p.kind === 'board') {
    const v = p.config.atVersion;
    process.stderr.write(`Board: ${p.config.deviceType || 'unknown'} ${p.config.deviceId} (AT ${v.major}.${v.minor}.${v.patch})\n`);
  } else if (p.kind === 'sensor') {
    process.stderr.write(`Sensor "${p.sensor}" at ${p.frequencyHz} Hz for ${p.lengthMs} ms\n`);
  } else if (p.kind === 'stage') {
    process.stderr.write(`${p.stage}\n`);
  }
}

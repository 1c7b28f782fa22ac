import { join } from 'node:path';
import type { Category, Sample } from '../contract/contract.js';
import { RECORDINGS_DIR } from '../recordings/recordings-folder.js';
import { SensorRecorder } from '../capture/sensor-recorder.js';
import { encodeWav } from '../samples/formats/wav.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { ModelEntry } from '../contract/model-schema.js';
import type { CaughtSpan } from './catch-spans.js';
import { takeName } from '../samples/take-name.js';

export interface CaughtTake {
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  note: string;
  queue: boolean;
  extra: Record<string, unknown>;
}

/**
 * Saves rows a catch kept in memory as an ordinary sensor sample: the same recorder and
 * acquisition file as a take of the Record button (through the recordings folder, so a crash
 * mid-write leaves a recoverable recording), with the board's own rows, never resampled ones.
 */
export async function saveCaughtRows(
  store: SampleStore,
  rows: { values: ArrayLike<number>; count: number; sensors: Array<{ name: string; units: string }>; intervalMs: number; deviceName?: string; deviceType: string },
  t: CaughtTake,
): Promise<Sample> {
  const recorder = await SensorRecorder.start(join(store.dataDir, RECORDINGS_DIR), {
    ...(rows.deviceName === undefined ? {} : { deviceName: rows.deviceName }),
    deviceType: rows.deviceType,
    sensors: rows.sensors,
    context: { sourceId: 'model-catch', label: t.label, category: t.category, metadata: t.metadata, intervalMs: rows.intervalMs },
  });
  recorder.append(rows.values, rows.count);
  const reserved = store.reserveFile('.cbor');
  const { rows: written } = await recorder.finish(reserved.tempPath, { intervalMs: rows.intervalMs });
  return commitCaught(store, reserved, t, { kind: 'sensor', ext: '.cbor', lengthMs: written * rows.intervalMs, extra: { rows: written, interval_ms: rows.intervalMs } });
}

/** The same for a microphone: the caught span as a WAV of the samples as captured. */
export async function saveCaughtAudio(store: SampleStore, pcm: Int16Array, sampleRate: number, t: CaughtTake): Promise<Sample> {
  const reserved = store.reserveFile('.wav');
  await writeFileAtomic(reserved.tempPath, encodeWav(pcm, { sampleRate, channels: 1 }));
  return commitCaught(store, reserved, t, { kind: 'audio', ext: '.wav', lengthMs: (pcm.length / sampleRate) * 1000, extra: { frames: pcm.length, sample_rate: sampleRate } });
}

/** Either file, written, becomes the same sample: named after its label, described by the take. */
function commitCaught(
  store: SampleStore,
  reserved: { id: string; tempPath: string },
  t: CaughtTake,
  file: { kind: 'sensor' | 'audio'; ext: string; lengthMs: number; extra: Record<string, unknown> },
): Promise<Sample> {
  return store.commitFile(reserved, {
    name: takeName(t.label, `${reserved.id.slice(0, 8)}${file.ext}`),
    kind: file.kind,
    label: t.label,
    category: t.category,
    metadata: t.metadata,
    lengthMs: file.lengthMs,
    queue: t.queue,
    note: t.note,
    extra: { ...file.extra, ...t.extra },
  });
}

/** Where caught rows came from, as the sample should say it. */
export interface CaughtSource {
  audio: boolean;
  rateHz: number;
  sensors: Array<{ name: string; units: string }>;
  deviceName?: string;
  deviceType: string;
}

/**
 * One caught span saved as a sample, labelled with what the person said was happening and the
 * model's words (shared by `classify live --catch` and the app's catch mode).
 */
export function saveCaught(
  store: SampleStore,
  src: CaughtSource,
  span: CaughtSpan,
  rows: { values: Float64Array; count: number },
  o: { model: Pick<ModelEntry, 'name' | 'hash'>; label: string; category: Category; queue: boolean },
): Promise<Sample> {
  const take: CaughtTake = {
    label: o.label, category: o.category, queue: o.queue, note: `caught: ${span.note}`,
    metadata: { model: o.model.name, model_said: span.worst.label ?? '', confidence: span.worst.confidence === null ? '' : span.worst.confidence.toFixed(2) },
    extra: { caught: { model: o.model.name, model_hash: o.model.hash, start_ms: span.startMs, end_ms: span.endMs, windows: span.windows, said: span.said, uncertain: span.uncertain } },
  };
  if (src.audio) return saveCaughtAudio(store, Int16Array.from(rows.values, (x) => Math.max(-32768, Math.min(32767, Math.round(x)))), src.rateHz, take);
  return saveCaughtRows(store, { values: rows.values, count: rows.count, sensors: src.sensors, intervalMs: 1000 / src.rateHz, deviceType: src.deviceType, ...(src.deviceName === undefined ? {} : { deviceName: src.deviceName }) }, take);
}

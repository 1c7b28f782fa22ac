import { extname } from 'node:path';
import type { Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { ScannedAcquisition } from '../samples/formats/acquisition-scan.js';
import { readWavPcm } from '../samples/formats/wav-pcm.js';

// Apart from decoded.ts (sensor files: CBOR, JSON checked with zod, CSV) so that a model worker,
// which decodes each sample it classifies, loads the sensor decoders only for a sensor sample.

/**
 * A sample decoded for review: one column per axis (sensor) or channel (audio), in file order.
 * Sensor values stay float64 (a crop writes back exactly what was recorded); audio stays int16,
 * which halves the memory an hour of sound takes and is what a WAV holds anyway.
 */
export interface Decoded {
  kind: 'sensor' | 'audio';
  axes: Array<{ name: string; units: string }>;
  intervalMs: number;
  rows: number;
  columns: Array<Float64Array | Int16Array>;
  /** Shown value = stored value × scale (audio: full scale is ±1). */
  scale: number;
  /** Audio only. */
  sampleRate: number | null;
  /** What the sensor file said about itself, for writing crops and splits the same way. */
  acquisition: Omit<ScannedAcquisition, 'columns' | 'rows'> | null;
  /** Memory held, for the cache's budget. */
  bytes: number;
}

/** An audio sample (kind audio, or a .wav) decoded; null for anything else (decoded.ts decodes it). */
export function decodeAudioSample(sample: Pick<Sample, 'name' | 'kind'>, bytes: Uint8Array): Decoded | null {
  if (sample.kind !== 'audio' && extname(sample.name).toLowerCase() !== '.wav') return null;
  const pcm = readWavPcm(bytes);
  if (pcm.frames === 0) throw new CoreError('InvalidArguments', `"${sample.name}" holds no audio.`);
  return {
    kind: 'audio',
    axes: pcm.channels.map((_, i) => ({ name: pcm.channels.length === 1 ? 'audio' : `channel ${i + 1}`, units: '' })),
    intervalMs: 1000 / pcm.sampleRate,
    rows: pcm.frames,
    columns: pcm.channels,
    scale: 1 / 32768,
    sampleRate: pcm.sampleRate,
    acquisition: null,
    bytes: pcm.frames * pcm.channels.length * 2,
  };
}

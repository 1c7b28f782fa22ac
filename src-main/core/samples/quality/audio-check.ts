import type { QualityFinding } from '../../contract/contract.js';
import { decodeWavHeader } from '../formats/wav.js';
import { finding, formatMs, percent } from './findings.js';
import type { ByteSource } from './byte-source.js';
import { endianness } from 'node:os';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/** The chunk's samples as a typed array: a view when aligned on a little-endian host, else a copy. */
function int16s(chunk: Buffer, bytes: number): Int16Array {
  if (LITTLE_ENDIAN_HOST && chunk.byteOffset % 2 === 0) return new Int16Array(chunk.buffer, chunk.byteOffset, bytes / 2);
  const out = new Int16Array(bytes / 2);
  for (let i = 0; i < out.length; i++) out[i] = chunk.readInt16LE(i * 2);
  return out;
}

/** Below this peak (−60 dBFS) the whole recording is silence: a muted or wrong input. */
const SILENT_PEAK = 33;
/** Full-scale samples in a row of at least this many count as clipped (a peak can touch full scale once). */
const CLIP_RUN = 2;
export const CLIP_WARNING = 0.0005;
export const CLIP_ERROR = 0.01;
/** Exact digital zeros inside a recording for this long are a dropout, not a quiet room. */
export const DROPOUT_MS = 10;
export const DROPOUT_ERROR = 0.05;
const CHUNK = 1 << 20;

export interface AudioScan {
  lengthMs: number;
  findings: QualityFinding[];
}

/**
 * Streams through a PCM WAV once: clipping (runs of full-scale samples), silence (peak under
 * −60 dBFS) and dropouts (runs of exact zeros between sound, as a device that stops delivering
 * leaves them). 16-bit only; other depths are measured for length and otherwise left alone.
 */
export async function scanWav(src: ByteSource): Promise<AudioScan> {
  const head = await src.read(0, Math.min(src.size, 64 * 1024));
  const info = decodeWavHeader(head, src.size);
  if (info.bitsPerSample !== 16 || info.frames === 0) return { lengthMs: info.durationMs, findings: [] };
  const ch = info.channels;
  const dropoutFrames = Math.max(1, Math.round((info.sampleRate * DROPOUT_MS) / 1000));
  let peak = 0;
  let clipped = 0;
  let fullRun = 0;
  let zeroRun = 0; // in samples (all channels)
  let seenSound = false;
  let dropouts = 0;
  let dropoutSamples = 0;
  const samples = info.frames * ch;
  const bytes = samples * 2;
  let carry: Buffer | null = null;
  for (let off = 0; off < bytes; off += CHUNK) {
    let chunk = await src.read(info.dataOffset + off, Math.min(CHUNK, bytes - off));
    if (carry) (chunk = Buffer.concat([carry, chunk])), (carry = null);
    const whole = chunk.length & ~1;
    if (whole < chunk.length) carry = chunk.subarray(whole);
    const pcm = int16s(chunk, whole);
    for (let k = 0; k < pcm.length; k++) {
      const v = pcm[k]!;
      if (v === 0) {
        zeroRun++;
        fullRun = 0;
        continue;
      }
      if (zeroRun > 0) {
        if (seenSound && zeroRun >= dropoutFrames * ch) (dropouts++, (dropoutSamples += zeroRun));
        zeroRun = 0;
      }
      seenSound = true;
      const a = v < 0 ? -v : v;
      if (a > peak) peak = a;
      if (v >= 32767 || v <= -32768) {
        fullRun++;
        if (fullRun === CLIP_RUN) clipped += CLIP_RUN;
        else if (fullRun > CLIP_RUN) clipped++;
      } else fullRun = 0;
    }
  }
  const findings: QualityFinding[] = [];
  if (peak < SILENT_PEAK) {
    findings.push(finding('silence', 'error',
      `Silent: the loudest sample is ${peak === 0 ? 'digital zero' : `${(20 * Math.log10(peak / 32768)).toFixed(0)} dBFS`} for the whole ${formatMs(info.durationMs)}. ` +
      'Check that the right microphone is selected and not muted, then record again.'));
  } else {
    const fraction = clipped / samples;
    if (fraction > CLIP_WARNING) {
      findings.push(finding('clipping', fraction > CLIP_ERROR ? 'error' : 'warning',
        `Clipping: ${percent(fraction)} of the audio is cut off at full scale, which distorts it. Lower the input gain or move the microphone away from the source, then record again.`));
    }
    if (dropouts > 0) {
      const fraction = dropoutSamples / samples;
      findings.push(finding('dropouts', fraction > DROPOUT_ERROR ? 'error' : 'warning',
        `Dropouts: ${dropouts} stretch${dropouts === 1 ? '' : 'es'} of exact silence (${formatMs((dropoutSamples / ch / info.sampleRate) * 1000)} in all) inside the recording: the audio device stopped delivering sound. ` +
        'Close other programs using the microphone or pick another device, then record again.'));
    }
  }
  return { lengthMs: info.durationMs, findings };
}

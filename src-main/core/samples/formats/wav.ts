import { endianness } from 'node:os';
import { CoreError } from '../../errors.js';

/**
 * 16-bit PCM WAV (RIFF, little-endian), on buffers. The streaming file writer for long
 * recordings is in wav-writer.ts and shares the header code.
 */

export const WAV_HEADER_BYTES = 44;
/** RIFF sizes are 32-bit: the RIFF size field holds 36 + data bytes. */
export const WAV_MAX_DATA_BYTES = 0xffffffff - 36;
/** The highest rate audio interfaces record at (384 kHz); a header claiming more is damaged. */
export const MAX_WAV_RATE_HZ = 384_000;
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

export interface WavFormat {
  sampleRate: number;
  /** Interleaved channels; defaults to 1 (mono). */
  channels?: number;
}

export interface WavHeaderInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Byte offset of the first sample in the file. */
  dataOffset: number;
  /** Whole frames' worth of sample bytes actually available (see decodeWavHeader). */
  dataBytes: number;
  frames: number;
  durationMs: number;
}

export function checkFormat(fmt: WavFormat): { sampleRate: number; channels: number } {
  const channels = fmt.channels ?? 1;
  if (!Number.isInteger(fmt.sampleRate) || fmt.sampleRate < 1 || fmt.sampleRate > 0xffffffff / 8) {
    throw new CoreError('InvalidArguments', `WAV sample rate ${fmt.sampleRate} is not a positive whole number of Hz (e.g. 16000)`);
  }
  if (!Number.isInteger(channels) || channels < 1 || channels > 64) {
    throw new CoreError('InvalidArguments', `WAV channel count ${channels} must be a whole number from 1 to 64`);
  }
  return { sampleRate: fmt.sampleRate, channels };
}

/** The canonical 44-byte header for 16-bit PCM with `dataBytes` of samples. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = channels * 2;
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16); // fmt chunk size for plain PCM
  h.writeUInt16LE(1, 20); // format 1 = PCM
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** A little-endian copy of the samples (a copy, so the caller may reuse its array at once). */
export function pcmBytes(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.byteLength);
  out.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
  if (!LITTLE_ENDIAN_HOST) out.swap16();
  return out;
}

export function encodeWav(samples: Int16Array, fmt: WavFormat): Buffer {
  const { sampleRate, channels } = checkFormat(fmt);
  if (samples.length % channels !== 0) {
    throw new CoreError('InvalidArguments', `${samples.length} samples do not make whole frames of ${channels} interleaved channels`);
  }
  if (samples.byteLength > WAV_MAX_DATA_BYTES) {
    throw new CoreError('InvalidArguments', 'Audio is larger than the 4 GB a WAV file can hold: record shorter clips');
  }
  return Buffer.concat([wavHeader(sampleRate, channels, samples.byteLength), pcmBytes(samples)]);
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

function bad(why: string): never {
  throw new CoreError('InvalidArguments', `Not a readable WAV file: ${why}`);
}

/**
 * Reads the header of a PCM WAV. Chunks other than fmt and data (LIST, fact, ...) are skipped,
 * honouring the pad byte after odd-sized chunks.
 *
 * `totalBytes` is the file's size when `buf` holds only its beginning (default: buf.length).
 * The data size is clamped to what the file holds, and a size of 0 or 0xFFFFFFFF (left by a
 * streaming writer that never finished) means "to the end of the file".
 */
export function decodeWavHeader(buf: Uint8Array, totalBytes: number = buf.length): WavHeaderInfo {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') {
    bad('missing RIFF/WAVE header');
  }
  let fmt: { channels: number; sampleRate: number; bitsPerSample: number; blockAlign: number } | null = null;
  for (let pos = 12; pos + 8 <= b.length;) {
    const id = b.toString('latin1', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) bad('fmt chunk is truncated');
      const format = b.readUInt16LE(body);
      if (format !== WAVE_FORMAT_PCM && format !== WAVE_FORMAT_EXTENSIBLE) {
        bad(`audio format ${format} is compressed or floating point; only integer PCM is supported`);
      }
      fmt = {
        channels: b.readUInt16LE(body + 2),
        sampleRate: b.readUInt32LE(body + 4),
        blockAlign: b.readUInt16LE(body + 12),
        bitsPerSample: b.readUInt16LE(body + 14),
      };
      if (fmt.channels === 0 || fmt.sampleRate === 0 || fmt.blockAlign === 0) bad('fmt chunk has zero channels, rate or block size');
      if (fmt.sampleRate > MAX_WAV_RATE_HZ) bad(`its header says ${fmt.sampleRate} Hz, more than the ${MAX_WAV_RATE_HZ} Hz audio is recorded at: the header is damaged. Check the file, or convert it again`);
    } else if (id === 'data') {
      if (!fmt) bad('data chunk comes before the fmt chunk');
      const available = Math.max(0, totalBytes - body);
      const declared = size === 0 || size === 0xffffffff ? available : Math.min(size, available);
      const frames = Math.floor(declared / fmt.blockAlign);
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bitsPerSample,
        dataOffset: body,
        dataBytes: frames * fmt.blockAlign,
        frames,
        durationMs: (frames * 1000) / fmt.sampleRate,
      };
    }
    pos = body + size + (size % 2);
  }
  return bad(fmt ? 'no data chunk found' : 'no fmt chunk found');
}

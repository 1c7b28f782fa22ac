import { endianness } from 'node:os';
import { CoreError } from '../../errors.js';
import { decodeWavHeader } from './wav.js';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/** Integer PCM of a WAV file, one Int16Array per channel (8/24/32-bit files are scaled to 16 bits). */
export interface WavPcm {
  sampleRate: number;
  channels: Int16Array[];
  frames: number;
}

export function readWavPcm(bytes: Uint8Array): WavPcm {
  const h = decodeWavHeader(bytes);
  const bytesPer = h.bitsPerSample / 8;
  if (![1, 2, 3, 4].includes(bytesPer)) throw new CoreError('InvalidArguments', `Not a readable WAV file: ${h.bitsPerSample}-bit samples are not supported`);
  const n = h.channels;
  const blockAlign = (h.dataBytes / Math.max(1, h.frames)) | 0 || n * bytesPer;
  if (bytesPer === 2 && blockAlign === n * 2 && LITTLE_ENDIAN_HOST) {
    // The usual case (16-bit): one aligned copy, then deinterleave; no per-sample DataView call.
    const all = new Int16Array(bytes.buffer.slice(bytes.byteOffset + h.dataOffset, bytes.byteOffset + h.dataOffset + h.frames * n * 2));
    if (n === 1) return { sampleRate: h.sampleRate, channels: [all], frames: h.frames };
    const chans = Array.from({ length: n }, () => new Int16Array(h.frames));
    for (let f = 0, p = 0; f < h.frames; f++) for (let c = 0; c < n; c++) chans[c]![f] = all[p++]!;
    return { sampleRate: h.sampleRate, channels: chans, frames: h.frames };
  }
  const out = Array.from({ length: n }, () => new Int16Array(h.frames));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let f = 0, base = h.dataOffset; f < h.frames; f++, base += blockAlign) {
    for (let c = 0; c < n; c++) {
      const at = base + c * bytesPer;
      let v: number;
      if (bytesPer === 2) v = view.getInt16(at, true);
      else if (bytesPer === 1) v = (view.getUint8(at) - 128) << 8; // 8-bit WAV is unsigned
      else if (bytesPer === 3) v = (view.getUint8(at + 2) << 24) >> 16 | view.getUint8(at + 1);
      else v = view.getInt32(at, true) >> 16;
      out[c]![f] = v;
    }
  }
  return { sampleRate: h.sampleRate, channels: out, frames: h.frames };
}

/** Interleaves channels back into one array for encodeWav. */
export function interleave(channels: Int16Array[], from: number, to: number): Int16Array {
  const n = channels.length;
  if (n === 1) return channels[0]!.slice(from, to);
  const out = new Int16Array((to - from) * n);
  for (let f = from, o = 0; f < to; f++) for (let c = 0; c < n; c++) out[o++] = channels[c]![f]!;
  return out;
}

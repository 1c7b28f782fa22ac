/**
 * Magnitude spectrogram of one channel: `frames` FFTs of `fftSize` points (Hann window) spread
 * evenly over rows [from, to), as bytes (0 = −100 dBFS or less, 255 = 0 dBFS) so a long window
 * crosses the wire compactly and the renderer paints it straight into an ImageData.
 */
export interface Spectrogram {
  frames: number;
  bins: number;
  /** frames × bins, frame-major, bin 0 = 0 Hz. */
  data: Uint8Array<ArrayBuffer>;
  /** Start time of each frame (ms). */
  startMs: number;
  endMs: number;
  maxHz: number;
}

export const DB_FLOOR = -100;

export function spectrogram(col: ArrayLike<number>, scale: number, sampleRate: number, from: number, to: number, frames: number, fftSize: number): Spectrogram {
  const n = Math.max(0, to - from);
  const size = 2 ** Math.round(Math.log2(Math.min(4096, Math.max(64, fftSize))));
  const bins = size / 2;
  const count = Math.max(0, Math.min(frames, n));
  const data = new Uint8Array(count * bins);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const hann = Float64Array.from({ length: size }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1)));
  const norm = size / 4; // full-scale sine through a Hann window peaks at N/4
  for (let f = 0; f < count; f++) {
    const centre = from + Math.floor(((f + 0.5) * n) / count);
    const start = centre - bins;
    for (let i = 0; i < size; i++) {
      const at = start + i;
      re[i] = at >= from && at < to ? col[at]! * scale * hann[i]! : 0;
      im[i] = 0;
    }
    fft(re, im);
    for (let k = 0; k < bins; k++) {
      const mag = Math.hypot(re[k]!, im[k]!) / norm;
      const db = 20 * Math.log10(mag + 1e-12);
      data[f * bins + k] = Math.max(0, Math.min(255, Math.round(((db - DB_FLOOR) / -DB_FLOOR) * 255)));
    }
  }
  return { frames: count, bins, data, startMs: (from * 1000) / sampleRate, endMs: (to * 1000) / sampleRate, maxHz: sampleRate / 2 };
}

/** In-place iterative radix-2 FFT; length must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const nr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = nr;
      }
    }
  }
}
